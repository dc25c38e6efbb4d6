#pragma once
// Executes the count-triggered part of a fault plan against the stream of disk operations, and
// answers the time-window questions (disk capacity, latency). Time-triggered crashes and bit
// flips are executed by the world's fault actor, on virtual time.
#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "faults/fault_plan.h"

namespace wtsim::faults {

enum class FsOp { kRead, kWrite, kSync, kTruncate, kCreate, kRename, kRemove };
const char* to_string(FsOp op);

struct FaultDecision {
  int error = 0;             // errno to return instead of doing the op
  bool drop_dirty = false;   // with a sync error: the dirty data is lost
  bool crash = false;        // crash before this op reaches the disk
  CrashMode crash_mode = CrashMode::kDropUnsynced;
  uint64_t misdirect_bytes = 0;  // a write lands this much further on
};

// A fault that fired, for the trace.
struct FiredFault {
  size_t plan_index = 0;
  uint64_t disk_op = 0;  // the mutating-op count when it fired
  std::string file;
  std::string what;
  std::string actor;  // the fiber whose operation it was (WiredTiger's own: "wt:...")
};

class FaultInjector {
 public:
  explicit FaultInjector(FaultPlan plan);

  // One disk operation, by whichever fiber (`actor`) made it: WiredTiger's own threads are fibers
  // of the run's scheduler, so every operation counts, in a deterministic order.
  FaultDecision on_disk_op(FsOp op, const std::string& file, const std::string& actor = {});

  double latency_factor(sim::Nanos now_ns) const;
  std::optional<uint64_t> capacity_at(sim::Nanos now_ns) const;

  const FaultPlan& plan() const { return plan_; }
  // A checkpoint or a rollback begins (the world says so; new log files and eviction passes the
  // injector sees in the operations themselves): anchored crashes on it count from here.
  void note(CrashAnchor event);
  // Whether a log switch is under way: from a later log file's creation to the sync that closes
  // the file before it (WiredTiger's log-close server), or the node's crash. A crash then is one
  // during a log switch.
  bool in_log_switch() const { return log_switch_first_op_ != 0; }
  // The node's process is gone (any crash): what it had under way (a log switch) ends with it.
  void node_crashed() { end_log_switch(); }
  // How often each anchor event has begun so far, in CrashAnchor's order.
  const std::array<uint64_t, kCrashAnchorCount>& anchor_counts() const { return anchor_counts_; }
  // A count-triggered fault armed during the run (a script's crash after N more disk operations):
  // it joins the plan with the next index.
  void add(const Fault& fault);
  // Called just before each mutating operation is counted, with its number (from 1), while
  // faults are enabled: a sweep forks there, and its child arms a crash at that very operation.
  void set_before_mutating_op(std::function<void(uint64_t op)> hook) { before_mutating_op_ = std::move(hook); }
  uint64_t mutating_ops() const { return mutating_ops_; }
  // Faults fired since the last call, in firing order.
  std::vector<FiredFault> take_fired();
  // A power cycle of the device (a power loss, or an administrator's after the device refused a
  // restart) clears sticky I/O errors that have started: the device comes back. A crash of the
  // process alone clears nothing. Errors that have not started yet still will.
  void power_cycled();
  // Sticky I/O errors that have started and no power cycle has cleared, one line each ("plan #3:
  // sticky EIO on read of WiredTigerLog since disk op 1082"): while any is there, the device
  // refuses those operations to every node.
  std::vector<std::string> active_sticky_errors() const;
  // Stops count-triggered faults (liveness phase, or after the node is fenced).
  void set_enabled(bool enabled) { enabled_ = enabled; }
  bool enabled() const { return enabled_; }

 private:
  bool matches(const Fault& f, FsOp op, const std::string& file) const;
  // The anchor events a mutating operation begins: a later log file's creation, the first
  // operation of an eviction pass.
  void note_anchors(FsOp op, const std::string& file, const std::string& actor);
  void note_log_switch(FsOp op, const std::string& file);
  void end_log_switch() { log_switch_first_op_ = log_switch_closed_at_op_ = 0; }
  uint64_t crash_trigger(size_t i) const;
  // Arms the anchored crashes on this occurrence of `event`, whose first operation is `first_op`.
  void note_event(CrashAnchor event, uint64_t first_op);

  FaultPlan plan_;
  std::vector<uint64_t> matched_;  // per fault: matching ops so far
  std::vector<bool> spent_;        // per fault: a one-shot fault that fired
  std::vector<uint64_t> started_at_op_;  // per fault: the disk op a sticky error started at (0: not)
  std::vector<uint64_t> armed_at_op_;    // per anchored crash: the op it comes before (0: not yet)
  std::array<uint64_t, kCrashAnchorCount> anchor_counts_ = {};
  bool evicting_ = false;  // the last mutating operation was eviction's
  uint64_t newest_log_ = 0;               // the number of the newest log file created
  uint64_t log_switch_first_op_ = 0;      // the switch's first operation (0: none under way)
  uint64_t log_switch_closed_at_op_ = 0;  // the old file's closing sync (0: not yet)
  uint64_t mutating_ops_ = 0;
  bool enabled_ = true;
  std::vector<FiredFault> fired_;
  std::function<void(uint64_t)> before_mutating_op_;
};

}  // namespace wtsim::faults
