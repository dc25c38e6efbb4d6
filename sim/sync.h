#pragma once
// Fiber-aware synchronisation on virtual time: wait queues, mutex, event and resources.
// All FIFO, so the order of waking is a function of the order of waiting (deterministic).
#include <cstdint>
#include <deque>
#include <string>

#include "sim/scheduler.h"

namespace wtsim::sim {

class WaitQueue {
 public:
  // Parks the current fiber until notified. If cancelled while waiting, leaves the queue and
  // throws Cancelled.
  void wait(Simulator& sim, const char* what, const std::string* detail = nullptr);
  // Wakes the longest waiter; returns it, or nullptr if none waits.
  FiberRecord* notify_one(Simulator& sim);
  void notify_all(Simulator& sim);
  bool empty() const { return waiters_.empty(); }
  size_t size() const { return waiters_.size(); }

 private:
  std::deque<FiberRecord*> waiters_;
};

// A non-recursive mutex with FIFO hand-off.
class Mutex {
 public:
  explicit Mutex(std::string name) : name_(std::move(name)) {}
  void lock();
  void unlock();
  bool locked() const { return owner_ != nullptr; }
  bool held_by_current() const;

 private:
  std::string name_;
  FiberRecord* owner_ = nullptr;
  WaitQueue waiters_;
};

class MutexGuard {
 public:
  explicit MutexGuard(Mutex& m) : m_(m) { m_.lock(); }
  ~MutexGuard() {
    if (m_.held_by_current()) m_.unlock();  // a cancelled CondVar::wait unwinds without it
  }
  MutexGuard(const MutexGuard&) = delete;
  MutexGuard& operator=(const MutexGuard&) = delete;

 private:
  Mutex& m_;
};

// A condition variable for sim::Mutex. wait() releases the mutex, parks, and re-acquires it;
// spurious wake-ups do not happen, but callers still re-check their predicate (FIFO hand-off means
// another fiber may have run in between).
class CondVar {
 public:
  explicit CondVar(std::string name) : name_(std::move(name)) {}
  void wait(Mutex& m);
  template <class Pred>
  void wait(Mutex& m, Pred pred) {
    while (!pred()) wait(m);
  }
  void notify_one();
  void notify_all();

 private:
  std::string name_;
  WaitQueue waiters_;
};

// A manual-reset event.
class Event {
 public:
  explicit Event(std::string name) : name_(std::move(name)) {}
  void wait();
  void set();
  void reset() { set_ = false; }
  bool is_set() const { return set_; }

 private:
  std::string name_;
  bool set_ = false;
  WaitQueue waiters_;
};

// A simulated resource with `slots` identical servers (CPU cores, a disk queue). use() waits for
// a free slot in FIFO order, then holds it for `cost_ns` of virtual time.
class Resource {
 public:
  Resource(std::string name, int slots);
  void use(Nanos cost_ns);
  int slots() const { return slots_; }
  int busy() const { return busy_; }
  Nanos busy_ns_total() const { return busy_ns_total_; }  // utilisation accounting

 private:
  void acquire();
  void release();

  std::string name_;
  int slots_;
  int busy_ = 0;
  Nanos busy_ns_total_ = 0;
  WaitQueue waiters_;
};

}  // namespace wtsim::sim
