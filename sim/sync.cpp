#include "sim/sync.h"

#include <algorithm>
#include <cassert>

namespace wtsim::sim {

void WaitQueue::wait(Simulator& sim, const char* what, const std::string* detail) {
  FiberRecord& me = sim.current();
  waiters_.push_back(&me);
  me.notified = false;
  try {
    sim.park(what, detail);
  } catch (const Cancelled&) {
    auto it = std::find(waiters_.begin(), waiters_.end(), &me);
    if (it != waiters_.end()) waiters_.erase(it);
    throw;
  }
}

FiberRecord* WaitQueue::notify_one(Simulator& sim) {
  while (!waiters_.empty()) {
    FiberRecord* fiber = waiters_.front();
    waiters_.pop_front();
    if (fiber->parked) {
      fiber->notified = true;
      sim.unpark(*fiber);
      return fiber;
    }
  }
  return nullptr;
}

void WaitQueue::notify_all(Simulator& sim) {
  while (notify_one(sim) != nullptr) {
  }
}

void Mutex::lock() {
  Simulator& sim = *Simulator::active();
  FiberRecord& me = sim.current();
  assert(owner_ != &me && "Mutex is not recursive");
  sim.check_cancelled();
  if (owner_ == nullptr) {
    owner_ = &me;
    return;
  }
  try {
    waiters_.wait(sim, "mutex", &name_);
  } catch (const Cancelled&) {
    if (owner_ == &me) unlock();  // ownership was handed over just before the cancel
    throw;
  }
  assert(owner_ == &me);
}

bool Mutex::held_by_current() const {
  return owner_ != nullptr && owner_ == &Simulator::active()->current();
}

void Mutex::unlock() {
  assert(owner_ != nullptr);
  // Hand-off: the first waiter owns the mutex before it runs (FIFO fairness, no barging).
  owner_ = waiters_.notify_one(*Simulator::active());
}

void CondVar::wait(Mutex& m) {
  Simulator& sim = *Simulator::active();
  m.unlock();
  // If cancelled here the fiber unwinds without the mutex; MutexGuard only unlocks what it holds.
  waiters_.wait(sim, "condition", &name_);
  m.lock();
}

void CondVar::notify_one() { waiters_.notify_one(*Simulator::active()); }
void CondVar::notify_all() { waiters_.notify_all(*Simulator::active()); }

void Event::wait() {
  Simulator& sim = *Simulator::active();
  sim.check_cancelled();
  while (!set_) waiters_.wait(sim, "event", &name_);
}

void Event::set() {
  set_ = true;
  waiters_.notify_all(*Simulator::active());
}

Resource::Resource(std::string name, int slots) : name_(std::move(name)), slots_(slots) {
  assert(slots_ > 0);
}

void Resource::acquire() {
  Simulator& sim = *Simulator::active();
  sim.check_cancelled();
  if (busy_ < slots_ && waiters_.empty()) {
    ++busy_;
    return;
  }
  FiberRecord& me = sim.current();
  try {
    waiters_.wait(sim, "resource", &name_);
  } catch (const Cancelled&) {
    if (me.notified) release();  // a slot was handed to us just before the cancel: pass it on
    throw;
  }
  // release() handed its slot to us: busy_ already counts it.
}

void Resource::release() {
  assert(busy_ > 0);
  if (waiters_.notify_one(*Simulator::active()) == nullptr) --busy_;
}

void Resource::use(Nanos cost_ns) {
  assert(cost_ns >= 0);
  if (cost_ns == 0) return;
  Simulator& sim = *Simulator::active();
  acquire();
  struct Release {
    Resource* r;
    ~Release() { r->release(); }
  } guard{this};
  busy_ns_total_ += cost_ns;
  sim.sleep_for(cost_ns);
}

}  // namespace wtsim::sim
