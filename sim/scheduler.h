#pragma once
// The seeded fiber scheduler on virtual time.
//
// All fibers run on one OS thread. When several are ready, the next one is drawn from the
// "scheduler" random stream; when none is ready, virtual time jumps to the earliest timer. When
// nothing is ready and no timer is pending while fibers still live, the run is deadlocked: run()
// returns a report naming each blocked fiber and what it waits on, after cancelling them.
//
// Cancellation is how fibers die (a crashed node's fibers, a deadlocked run): a cancelled fiber's
// next park throws sim::Cancelled, which unwinds it to its wrapper.
#include <boost/fiber/context.hpp>

#include <cstdint>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "sim/random.h"
#include "sim/virtual_clock.h"

namespace wtsim::sim {

// Thrown inside a cancelled fiber. Deliberately not a std::exception, so that a generic
// `catch (const std::exception&)` in simulated code never swallows it.
struct Cancelled {};

struct TimerKey {
  Nanos when_ns;
  uint64_t seq;
  bool operator<(const TimerKey& o) const {
    return when_ns != o.when_ns ? when_ns < o.when_ns : seq < o.seq;
  }
};

struct FiberRecord {
  uint64_t id = 0;  // spawn order: the deterministic identity used in reports
  std::string name;
  std::string group;  // cancellation unit, e.g. "node" for everything that dies in a crash
  boost::fibers::context* ctx = nullptr;
  bool parked = false;
  bool cancel = false;
  bool finished = false;
  bool notified = false;  // woken by a WaitQueue (as opposed to a cancel)
  // WiredTiger's own threads (sim/wt_threads.cpp): run() does not wait for them and no cancel
  // reaches them; they end when WiredTiger joins them.
  bool daemon = false;
  // > 0 while the fiber is inside WiredTiger (its locks, waits and file-system callbacks): a park
  // there never throws Cancelled, since unwinding through WiredTiger's C frames is not allowed.
  // A cancel is kept and thrown at the first park outside.
  int no_cancel_depth = 0;
  bool timed_out = false;  // the last park_until() ended by its deadline
  int wt_mutexes_held = 0;  // WiredTiger mutexes it holds (sim/wt_threads.cpp)
  // Frozen (Simulator::freeze): it never runs again and no longer counts as live.
  bool frozen = false;
  std::vector<FiberRecord*> joiners;  // parked in join() until this fiber finishes
  const char* waits_on = nullptr;         // what a parked fiber waits for
  const std::string* waits_on_detail = nullptr;  // e.g. the mutex's name
  std::optional<TimerKey> timer;
};

// While alive, parks of the current fiber are not cancellable (see FiberRecord::no_cancel_depth).
class NoCancelScope {
 public:
  explicit NoCancelScope(FiberRecord& fiber) : fiber_(fiber) { ++fiber_.no_cancel_depth; }
  ~NoCancelScope() { --fiber_.no_cancel_depth; }
  NoCancelScope(const NoCancelScope&) = delete;
  NoCancelScope& operator=(const NoCancelScope&) = delete;

 private:
  FiberRecord& fiber_;
};

struct BlockedFiber {
  uint64_t id;
  std::string name;
  std::string group;
  std::string waits_on;
};

struct RunOutcome {
  enum class Kind { kFinished, kDeadlock, kTimeLimit, kFiberError };
  Kind kind = Kind::kFinished;
  Nanos at_ns = 0;
  std::vector<BlockedFiber> blocked;  // for kDeadlock and kTimeLimit, in spawn order
  std::vector<std::string> errors;    // for kFiberError: unexpected exceptions escaping fibers
  std::exception_ptr first_exception;  // the first of them, for callers that rethrow (tests)
};

const char* to_string(RunOutcome::Kind kind);

class Simulator {
 public:
  static constexpr size_t kStackBytes = 256 * 1024;
  static constexpr Nanos kDefaultTimeLimitNs = 24LL * 3600 * kNsPerSec;

  explicit Simulator(uint64_t seed, Nanos time_limit_ns = kDefaultTimeLimitNs);
  ~Simulator();
  Simulator(const Simulator&) = delete;
  Simulator& operator=(const Simulator&) = delete;

  // The simulator running on this thread, or nullptr.
  static Simulator* active();

  uint64_t seed() const { return seed_; }
  const VirtualClock& clock() const { return clock_; }
  Nanos now_ns() const { return clock_.now_ns(); }

  // Starts a fiber; it first runs when the scheduler picks it. A daemon is not waited for by
  // run() and never cancelled (WiredTiger's threads).
  FiberRecord& spawn(std::string name, std::string group, std::function<void()> body, bool daemon = false);

  // Called from the main context: runs fibers until all but the daemons have finished (or
  // deadlock, time limit, or an unexpected exception in a fiber, each of which cancels every
  // fiber first). After a time limit, time goes on for at most kCleanupNs so that fibers inside
  // WiredTiger can leave it; a run that still cannot end is a bug of the harness: it aborts with
  // the blocked fibers printed.
  RunOutcome run();
  static constexpr Nanos kCleanupNs = 600 * kNsPerSec;

  // --- Called from fibers ---
  void sleep_for(Nanos duration_ns) { sleep_until(now_ns() + duration_ns); }
  void sleep_until(Nanos when_ns);
  void yield();
  // Parks the current fiber until unpark(); throws Cancelled if it is (or gets) cancelled.
  void park(const char* waits_on, const std::string* detail = nullptr);
  void unpark(FiberRecord& fiber);
  // Parks until unpark() or, with a deadline, until virtual time reaches it; true if the deadline
  // ended it. Never cancellable: for the WiredTiger layer, which also calls it from the main
  // context (then the other fibers run meanwhile, as if main were one of them).
  bool park_until(const char* waits_on, const Nanos* deadline_ns);
  // Waits (uncancellably) until `fiber` has finished.
  void join(FiberRecord& fiber);
  FiberRecord& current();
  // The current fiber, or the main context's record when called outside any fiber.
  FiberRecord& current_or_main();
  bool in_fiber() const;
  // A fiber by its id (spawn order, from 1), or nullptr.
  FiberRecord* fiber_by_id(uint64_t id);
  // Throws Cancelled if the current fiber has been cancelled.
  void check_cancelled();

  // Freezes a fiber that can never leave WiredTiger (it waits inside a dead node's connection):
  // it is never resumed again, counts as live no more, and its stack is leaked. A process with
  // frozen fibers must end with _exit (see frozen_fibers_in_process()): Boost.Fiber's own
  // teardown would wait for them.
  void freeze(FiberRecord& fiber);
  static uint64_t frozen_fibers_in_process();

  // Fibers (not daemons) asleep in sleep_until past `until_ns` wake at `until_ns` instead, in the
  // order they would have woken: a run whose end comes sooner wakes its actors, which then see the
  // new end. Deadlines of park_until (WiredTiger's timed waits) are left alone. Returns how many.
  size_t cut_sleeps(Nanos until_ns);
  // Cancels every live fiber of `group` (an empty group name cancels all).
  void cancel_group(std::string_view group);
  // A stalled process (SIGSTOP): while `group` is paused, each of its fibers stops at its next
  // scheduling point (a park, a wake, a yield, its start) and waits there, outside time, until
  // resume_group(). Timers go on: a sleep that ends during the pause ends at the resume.
  // cancel_group() resumes what it cancels (a killed process is stopped no more). Daemons are
  // never paused.
  void pause_group(const std::string& group);
  void resume_group(std::string_view group);
  bool group_paused(std::string_view group) const;
  size_t live_fibers(std::string_view group) const;
  size_t live_fibers() const { return live_; }
  size_t live_daemons() const { return live_daemons_; }
  // Every live fiber and what it waits on, in spawn order (for reports).
  std::vector<BlockedFiber> live_fiber_report() const { return blocked_fibers(); }

  // Internal: the scheduling algorithm asks for work when nothing is ready.
  void on_idle();
  Rng& scheduler_rng() { return scheduler_rng_; }

 private:
  void finish_fiber(FiberRecord& fiber);
  void wake_main_if_waiting();
  [[noreturn]] void abort_stuck() const;
  [[noreturn]] void suspend_for_ever(FiberRecord& fiber);
  void hold_while_paused(FiberRecord& fiber);
  std::vector<BlockedFiber> blocked_fibers() const;

  uint64_t seed_;
  Nanos time_limit_ns_;
  VirtualClock clock_;
  Rng scheduler_rng_;
  std::vector<std::unique_ptr<FiberRecord>> fibers_;  // spawn order
  std::map<TimerKey, FiberRecord*> timers_;
  uint64_t timer_seq_ = 0;
  size_t live_ = 0;          // non-daemon fibers alive
  size_t live_daemons_ = 0;
  uint64_t finished_total_ = 0;
  FiberRecord main_record_;  // the main context, for the WiredTiger layer's waits
  boost::fibers::context* main_ctx_ = nullptr;  // set while run() waits
  bool main_parked_ = false;
  bool time_limit_hit_ = false;
  std::vector<std::string> paused_groups_;  // at most kPausedGroupsMax
  std::vector<FiberRecord*> held_;           // stopped by a pause, in the order they stopped
  static constexpr size_t kPausedGroupsMax = 64;
  std::vector<std::string> fiber_errors_;
  std::exception_ptr first_exception_;
};

}  // namespace wtsim::sim
