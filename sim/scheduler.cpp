#include "sim/scheduler.h"

#include <boost/fiber/algo/algorithm.hpp>
#include <boost/fiber/fiber.hpp>
#include <boost/fiber/operations.hpp>
#include <boost/fiber/protected_fixedsize_stack.hpp>

#include <algorithm>
#include <cassert>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>

namespace wtsim::sim {
namespace {

thread_local Simulator* t_active = nullptr;
// The record of whatever runs now (a fiber, or main while it waits in the WiredTiger layer), set
// each time one resumes: current() is asked on every WiredTiger mutex operation.
thread_local FiberRecord* t_running = nullptr;
uint64_t g_frozen_fibers = 0;  // process-wide: their stacks are never released

// The Boost.Fiber scheduling algorithm: a ready list from which the active simulator draws at
// random. Installed once per thread and kept, because Boost.Fiber's main and dispatcher contexts
// stay registered with it between runs.
class SimAlgorithm final : public boost::fibers::algo::algorithm {
 public:
  void awakened(boost::fibers::context* ctx) noexcept override { ready_.push_back(ctx); }

  boost::fibers::context* pick_next() noexcept override {
    if (ready_.empty() && t_active != nullptr) t_active->on_idle();
    if (ready_.empty()) return nullptr;
    const size_t i = t_active != nullptr ? t_active->scheduler_rng().below(ready_.size()) : 0;
    boost::fibers::context* ctx = ready_[i];
    ready_.erase(ready_.begin() + static_cast<std::ptrdiff_t>(i));
    return ctx;
  }

  bool has_ready_fibers() const noexcept override { return !ready_.empty(); }

  void suspend_until(std::chrono::steady_clock::time_point const&) noexcept override {
    // Reached only when nothing is ready, no timer is pending and run() is not waiting: a bug in
    // the runtime itself (the main context blocked outside run()), or Boost.Fiber's teardown at
    // thread exit waiting for frozen fibers (the process should have ended with _exit).
    std::fprintf(stderr, "wtsim: scheduler idle with no runnable fiber outside run() (%llu frozen)\n",
                 static_cast<unsigned long long>(Simulator::frozen_fibers_in_process()));
    std::abort();
  }

  void notify() noexcept override {}

 private:
  std::vector<boost::fibers::context*> ready_;
};

void install_algorithm_once() {
  static thread_local bool installed = false;
  if (installed) return;
  boost::fibers::use_scheduling_algorithm<SimAlgorithm>();
  installed = true;
}

void make_ready(boost::fibers::context* ctx) {
  // Same thread, our own ready list: equivalent to context::schedule() without its sleep queue.
  boost::fibers::context::active()->schedule(ctx);
}

}  // namespace

const char* to_string(RunOutcome::Kind kind) {
  switch (kind) {
    case RunOutcome::Kind::kFinished: return "finished";
    case RunOutcome::Kind::kDeadlock: return "deadlock";
    case RunOutcome::Kind::kTimeLimit: return "time_limit";
    case RunOutcome::Kind::kFiberError: return "fiber_error";
  }
  return "?";
}

Simulator::Simulator(uint64_t seed, Nanos time_limit_ns)
    : seed_(seed), time_limit_ns_(time_limit_ns), scheduler_rng_(stream(seed, "scheduler")) {
  assert(t_active == nullptr && "one simulator per thread at a time");
  install_algorithm_once();
  t_active = this;
  t_running = nullptr;  // main
}

Simulator::~Simulator() {
  assert(live_ == 0 && "fibers must finish (run() returns) before the simulator goes");
  if (live_daemons_ > 0) {
    // WiredTiger's threads end only when their connection closes; a simulator that goes first
    // would leave fibers that the next run's scheduler resumes with dangling state.
    std::fprintf(stderr, "wtsim: %zu WiredTiger thread(s) still running when the simulator ended (a connection left open)\n", live_daemons_);
    std::abort();
  }
  t_active = nullptr;
}

Simulator* Simulator::active() { return t_active; }

FiberRecord& Simulator::spawn(std::string name, std::string group, std::function<void()> body, bool daemon) {
  auto record = std::make_unique<FiberRecord>();
  record->id = fibers_.size() + 1;
  record->name = std::move(name);
  record->group = std::move(group);
  record->daemon = daemon;
  FiberRecord* fiber = record.get();
  fibers_.push_back(std::move(record));
  ++(daemon ? live_daemons_ : live_);
  boost::fibers::fiber f(std::allocator_arg, boost::fibers::protected_fixedsize_stack(kStackBytes),
                         [this, fiber, body = std::move(body)] {
                           fiber->ctx = boost::fibers::context::active();
                           t_running = fiber;
                           hold_while_paused(*fiber);
                           try {
                             if (!fiber->cancel) body();
                           } catch (const Cancelled&) {
                           } catch (const std::exception& e) {
                             if (!first_exception_) first_exception_ = std::current_exception();
                             fiber_errors_.push_back(fiber->name + ": " + e.what());
                             cancel_group("");
                           } catch (...) {
                             if (!first_exception_) first_exception_ = std::current_exception();
                             fiber_errors_.push_back(fiber->name + ": unknown exception");
                             cancel_group("");
                           }
                           finish_fiber(*fiber);
                         });
  f.detach();
  return *fiber;
}

void Simulator::finish_fiber(FiberRecord& fiber) {
  assert(!fiber.finished && !fiber.timer && !fiber.parked);
  assert(fiber.no_cancel_depth == 0 && "a fiber ended inside WiredTiger");
  fiber.finished = true;
  ++finished_total_;
  size_t& live = fiber.daemon ? live_daemons_ : live_;
  assert(live > 0);
  --live;
  for (FiberRecord* joiner : fiber.joiners) unpark(*joiner);
  fiber.joiners.clear();
  if (live_ == 0) wake_main_if_waiting();  // run() waits for the non-daemons only
}

void Simulator::wake_main_if_waiting() {
  if (!main_parked_) return;
  main_parked_ = false;
  make_ready(main_ctx_);
}

RunOutcome Simulator::run() {
  assert(boost::fibers::context::active()->is_context(boost::fibers::type::main_context));
  assert(!main_record_.parked && "run() from inside a WiredTiger wait");
  RunOutcome outcome;
  main_ctx_ = boost::fibers::context::active();
  // Progress since the last cancel: a run that makes none after cancelling cannot end.
  Nanos mark_ns = -1;
  uint64_t mark_finished = 0;
  while (live_ > 0) {
    main_parked_ = true;
    main_ctx_->suspend();  // on_idle() or the last non-daemon's end makes main ready
    t_running = nullptr;
    assert(!main_parked_);
    if (live_ == 0) break;
    // Stuck: fibers live, none ready, no timer (deadlock), or the next timer is past the limit.
    if (outcome.kind == RunOutcome::Kind::kFinished) {
      outcome.kind = time_limit_hit_ ? RunOutcome::Kind::kTimeLimit : RunOutcome::Kind::kDeadlock;
      outcome.at_ns = now_ns();
      outcome.blocked = blocked_fibers();
    } else if (mark_ns == now_ns() && mark_finished == finished_total_) {
      abort_stuck();
    }
    mark_ns = now_ns();
    mark_finished = finished_total_;
    cancel_group("");
  }
  main_ctx_ = nullptr;
  if (!fiber_errors_.empty() && outcome.kind == RunOutcome::Kind::kFinished) {
    outcome.kind = RunOutcome::Kind::kFiberError;
    outcome.at_ns = now_ns();
  }
  outcome.errors = std::move(fiber_errors_);
  outcome.first_exception = first_exception_;
  fiber_errors_.clear();
  first_exception_ = nullptr;
  return outcome;
}

void Simulator::abort_stuck() const {
  std::fprintf(stderr, "wtsim: the run cannot end: after cancelling every fiber, none finished and time stood still at %lld ns; blocked:\n",
               static_cast<long long>(now_ns()));
  for (const BlockedFiber& b : blocked_fibers()) {
    std::fprintf(stderr, "  #%llu %s (%s): %s\n", static_cast<unsigned long long>(b.id), b.name.c_str(), b.group.c_str(), b.waits_on.c_str());
  }
  std::abort();
}

void Simulator::on_idle() {
  if (!timers_.empty()) {
    const Nanos when_ns = timers_.begin()->first.when_ns;
    if (when_ns > time_limit_ns_ && !time_limit_hit_) {
      time_limit_hit_ = true;  // main cancels every fiber; time goes on for their cleanup
      if (main_parked_) return wake_main_if_waiting();
    }
    const Nanos cleanup_end_ns = time_limit_ns_ > std::numeric_limits<Nanos>::max() - kCleanupNs
                                     ? std::numeric_limits<Nanos>::max()
                                     : time_limit_ns_ + kCleanupNs;
    if (when_ns <= time_limit_ns_ || (time_limit_hit_ && when_ns <= cleanup_end_ns)) {
      clock_.advance_to(when_ns);
      while (!timers_.empty() && timers_.begin()->first.when_ns == when_ns) {
        FiberRecord* fiber = timers_.begin()->second;
        timers_.erase(timers_.begin());
        fiber->timer.reset();
        fiber->timed_out = true;
        unpark(*fiber);
      }
      return;
    }
  }
  wake_main_if_waiting();
}

FiberRecord& Simulator::current() {
  assert(t_running != nullptr && t_running != &main_record_ && "simulator primitives are for simulated fibers only");
  assert(t_running->ctx == boost::fibers::context::active());
  return *t_running;
}

bool Simulator::in_fiber() const { return t_running != nullptr && t_running != &main_record_; }

FiberRecord& Simulator::current_or_main() {
  if (in_fiber()) return current();
  assert(boost::fibers::context::active()->is_context(boost::fibers::type::main_context));
  if (main_record_.ctx == nullptr) {
    main_record_.name = "main";
    main_record_.ctx = boost::fibers::context::active();
  }
  return main_record_;
}

FiberRecord* Simulator::fiber_by_id(uint64_t id) {
  return id >= 1 && id <= fibers_.size() ? fibers_[id - 1].get() : nullptr;
}

void Simulator::check_cancelled() {
  FiberRecord& fiber = current();
  if (fiber.cancel && fiber.no_cancel_depth == 0) throw Cancelled{};
}

void Simulator::sleep_until(Nanos when_ns) {
  FiberRecord& fiber = current();
  check_cancelled();
  if (when_ns < now_ns()) when_ns = now_ns();
  const TimerKey key{when_ns, timer_seq_++};
  timers_.emplace(key, &fiber);
  fiber.timer = key;
  park("sleep");
}

size_t Simulator::cut_sleeps(Nanos until_ns) {
  assert(until_ns >= now_ns());
  std::vector<FiberRecord*> cut;
  for (auto it = timers_.upper_bound(TimerKey{until_ns, std::numeric_limits<uint64_t>::max()}); it != timers_.end();) {
    FiberRecord* fiber = it->second;
    const bool sleeping = fiber->waits_on != nullptr && std::strcmp(fiber->waits_on, "sleep") == 0;
    if (fiber->daemon || !sleeping) {
      ++it;
      continue;
    }
    cut.push_back(fiber);
    it = timers_.erase(it);
  }
  for (FiberRecord* fiber : cut) {  // in their old order: the same tie-break as before
    const TimerKey key{until_ns, timer_seq_++};
    timers_.emplace(key, fiber);
    fiber->timer = key;
  }
  return cut.size();
}

void Simulator::yield() {
  check_cancelled();
  FiberRecord& fiber = current();
  boost::this_fiber::yield();
  t_running = &fiber;
  hold_while_paused(fiber);
  check_cancelled();
}

void Simulator::park(const char* waits_on, const std::string* detail) {
  FiberRecord& fiber = current();
  if (fiber.frozen) suspend_for_ever(fiber);
  const bool cancellable = fiber.no_cancel_depth == 0;
  if (fiber.cancel && cancellable) {
    if (fiber.timer) {
      timers_.erase(*fiber.timer);
      fiber.timer.reset();
    }
    throw Cancelled{};
  }
  fiber.parked = true;
  fiber.waits_on = waits_on;
  fiber.waits_on_detail = detail;
  fiber.ctx->suspend();
  t_running = &fiber;
  assert(!fiber.parked);
  hold_while_paused(fiber);
  fiber.waits_on = nullptr;
  fiber.waits_on_detail = nullptr;
  if (fiber.cancel && cancellable) throw Cancelled{};
}

bool Simulator::park_until(const char* waits_on, const Nanos* deadline_ns) {
  FiberRecord& fiber = current_or_main();
  if (fiber.frozen) suspend_for_ever(fiber);
  assert(!fiber.parked && !fiber.timer);
  fiber.timed_out = false;
  if (deadline_ns != nullptr) {
    const TimerKey key{std::max(*deadline_ns, now_ns()), timer_seq_++};
    timers_.emplace(key, &fiber);
    fiber.timer = key;
  }
  fiber.parked = true;
  fiber.waits_on = waits_on;
  fiber.waits_on_detail = nullptr;
  ++fiber.no_cancel_depth;  // cancel_group() leaves it parked: only unpark() or the deadline wake it
  fiber.ctx->suspend();
  t_running = &fiber == &main_record_ ? nullptr : &fiber;
  --fiber.no_cancel_depth;
  assert(!fiber.parked && !fiber.timer);
  if (&fiber != &main_record_) hold_while_paused(fiber);
  fiber.waits_on = nullptr;
  return fiber.timed_out;
}

void Simulator::join(FiberRecord& target) {
  FiberRecord& me = current_or_main();
  assert(&me != &target && "a fiber cannot join itself");
  if (target.finished) return;
  target.joiners.push_back(&me);
  park_until("join", nullptr);
  assert(target.finished);
}

void Simulator::unpark(FiberRecord& fiber) {
  assert(fiber.parked && !fiber.finished);
  if (fiber.timer) {  // woken before its deadline
    timers_.erase(*fiber.timer);
    fiber.timer.reset();
  }
  if (fiber.frozen) return;  // never again
  fiber.parked = false;
  make_ready(fiber.ctx);
}

void Simulator::freeze(FiberRecord& fiber) {
  assert(!fiber.finished && !fiber.frozen && !fiber.joiners.size() && "nobody joins a fiber that is frozen");
  assert(&fiber != t_running && "a fiber cannot freeze itself");
  if (fiber.timer) {
    timers_.erase(*fiber.timer);
    fiber.timer.reset();
  }
  fiber.frozen = true;
  size_t& live = fiber.daemon ? live_daemons_ : live_;
  assert(live > 0);
  --live;
  ++g_frozen_fibers;
  // A fiber that is ready (not parked) runs on to its next wait, which never returns.
}

uint64_t Simulator::frozen_fibers_in_process() { return g_frozen_fibers; }

void Simulator::suspend_for_ever(FiberRecord& fiber) {
  assert(fiber.frozen && !fiber.timer);
  fiber.parked = true;
  fiber.waits_on = "frozen";
  fiber.ctx->suspend();
  std::fprintf(stderr, "wtsim: frozen fiber %s resumed\n", fiber.name.c_str());
  std::abort();
}

void Simulator::cancel_group(std::string_view group) {
  // A killed process is stopped no more: its fibers must reach a park to unwind.
  if (group.empty()) {
    while (!paused_groups_.empty()) resume_group(std::string(paused_groups_.front()));
  } else {
    resume_group(group);
  }
  for (auto& fiber : fibers_) {
    if (fiber->finished || fiber->cancel || fiber->daemon || fiber->frozen) continue;
    if (!group.empty() && fiber->group != group) continue;
    fiber->cancel = true;
    // It throws at its next park (outside WiredTiger, if inside it now).
    if (!fiber->parked || fiber->no_cancel_depth > 0) continue;
    if (fiber->timer) {
      timers_.erase(*fiber->timer);
      fiber->timer.reset();
    }
    unpark(*fiber);
  }
}

void Simulator::pause_group(const std::string& group) {
  assert(!group.empty());
  if (group_paused(group)) return;
  assert(paused_groups_.size() < kPausedGroupsMax);
  paused_groups_.push_back(group);
}

void Simulator::resume_group(std::string_view group) {
  const auto it = std::find(paused_groups_.begin(), paused_groups_.end(), group);
  if (it == paused_groups_.end()) return;
  paused_groups_.erase(it);
  std::vector<FiberRecord*> still_held;
  for (FiberRecord* fiber : held_) {
    if (fiber->group != group) {
      still_held.push_back(fiber);
    } else {
      unpark(*fiber);
    }
  }
  held_ = std::move(still_held);
}

bool Simulator::group_paused(std::string_view group) const {
  return std::find(paused_groups_.begin(), paused_groups_.end(), group) != paused_groups_.end();
}

// Called as a fiber resumes, before it goes on: the one place a pause takes hold.
void Simulator::hold_while_paused(FiberRecord& fiber) {
  if (paused_groups_.empty() || fiber.daemon) return;  // the common case: no draw, no cost
  const char* const waits_on = fiber.waits_on;
  while (group_paused(fiber.group)) {  // only resume_group() wakes it (a cancel resumes first)
    assert(held_.size() < fibers_.size());
    held_.push_back(&fiber);
    fiber.parked = true;
    fiber.waits_on = "paused";
    fiber.ctx->suspend();
    t_running = &fiber;
    assert(!fiber.parked);
  }
  fiber.waits_on = waits_on;
}

size_t Simulator::live_fibers(std::string_view group) const {
  size_t n = 0;
  for (const auto& fiber : fibers_) n += (!fiber->finished && !fiber->frozen && fiber->group == group) ? 1 : 0;
  return n;
}

std::vector<BlockedFiber> Simulator::blocked_fibers() const {
  std::vector<BlockedFiber> blocked;
  for (const auto& fiber : fibers_) {
    if (fiber->finished || fiber->frozen) continue;
    std::string what = fiber->waits_on != nullptr ? fiber->waits_on : "running";
    if (fiber->waits_on_detail != nullptr) what += " " + *fiber->waits_on_detail;
    if (fiber->timer) what += " until " + std::to_string(fiber->timer->when_ns) + " ns";
    blocked.push_back({fiber->id, fiber->name, fiber->group, what});
  }
  return blocked;
}

}  // namespace wtsim::sim
