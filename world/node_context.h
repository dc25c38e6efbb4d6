#pragma once
// What a System and its actors see of the node they run on (world/system.h): its WiredTiger
// connection, its disk, and the one way to call into it. A NodeHost implements it
// (world/node_host.h); what is the run's, not the node's, is in RunContext (world/run_context.h).
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "engine/operation_context.h"
#include "engine/status.h"
#include "engine/wt_error.h"
#include "faults/crash_mode.h"
#include "faults/disk.h"
#include "faults/fault_plan.h"
#include "sim/sync.h"
#include "sim/virtual_clock.h"
#include "models/kv_model.h"
#include "world/history.h"
#include "world/node.h"

namespace wtsim::world {

// Sets a flag for a scope (unwinding included: a crash cancels the fiber with an exception).
class BusyFlag {
 public:
  explicit BusyFlag(bool& flag) : flag_(flag) { flag_ = true; }
  ~BusyFlag() { flag_ = false; }
  BusyFlag(const BusyFlag&) = delete;
  BusyFlag& operator=(const BusyFlag&) = delete;

 private:
  bool& flag_;
};

// A node call's WiredTiger code: the call's own int, a Status's, or its result's status.
inline int wt_code_of(int code) { return code; }
inline int wt_code_of(const engine::Status& status) { return status.wt_code; }
template <class Result>
int wt_code_of(const Result& result) {
  return result.status.wt_code;
}

class NodeContext {
 public:
  // --- The node's parts. ---
  // The member of the replica set (0: the primary, and the only member of a single node).
  virtual size_t member() const = 0;
  // The scheduler group of the node's fibers ("node"; "node.m2" for member 2): they die with it.
  virtual const std::string& fiber_group() const = 0;
  virtual Node& node() = 0;
  // The node's commits: every invocation and fate goes through its history (world/history.h),
  // which tells its model; a recovered state is checked against that model.
  virtual History& history() = 0;
  virtual models::KvModel& model() = 0;
  virtual faults::Disk& disk() = 0;
  // The node's CPU cores (the scenario's cost model): each member of a replica set has its own.
  virtual sim::Resource& cpu() = 0;
  virtual std::string generation_suffix() const = 0;  // ".g3", ".m2.g3": names the node's fibers
  virtual uint64_t file_bytes(const std::string& name) const = 0;
  // Bytes of every file but the log (the figure the backup account's inflation is measured in).
  virtual uint64_t table_file_bytes() const = 0;

  // --- Calling into the node. ---
  // Whether an EIO or ENOSPC from a call ends the process, as MongoDB's fassert on a failed
  // commit, log flush or checkpoint does; a write inside a transaction that rolls back is retried.
  enum class OnIoError { kFatal, kRetry };
  struct NodeCallOptions {
    OnIoError on_io_error = OnIoError::kFatal;
    // Runs when the call failed, before the failure is handled: undoes what the actor counted on
    // (a commit that may or may not have happened goes in doubt).
    std::function<void()> on_failure{};
    // Held while the call runs and its fired faults drain: a crash they cause counts as one
    // during the call (a coverage marker's phase).
    bool* busy = nullptr;
    // False: the caller answers a failure itself (keeps a sentinel, skips a check), and the node
    // goes on; nothing is recorded.
    bool handle_failure = true;
  };
  // The one way a node actor calls into its node (WiredTiger directly or through the engine):
  // refused with sim::Cancelled when the node is fenced; afterwards the faults that fired are
  // drained and a fence that came meanwhile cancels the actor (a fenced node acknowledges
  // nothing); a failure (the call's int, or its result's status) is recorded and handled in
  // one place, handle_wt_failure. Returns what the call returned.
  template <class Call>
  auto node_call(const std::string& what, Call&& call, const NodeCallOptions& options = {}) {
    refuse_if_fenced();
    std::optional<BusyFlag> busy;
    if (options.busy != nullptr) busy.emplace(*options.busy);
    auto result = call();
    after_wt_call();
    busy.reset();
    const int code = wt_code_of(result);
    if (code != 0 && options.on_failure) options.on_failure();
    if (code != 0 && options.handle_failure) handle_wt_failure(code, what, options.on_io_error);
    return result;
  }
  // A session on the node for one actor's operations, opened as a node call: a connection
  // WiredTiger panicked (its own thread may have) refuses the session, which crashes the node as
  // any failed call does (the caller is cancelled).
  std::unique_ptr<engine::OperationContext> open_operation(const std::string& what) {
    std::unique_ptr<engine::OperationContext> op;
    node_call(what, [&] {
      try {
        op = std::make_unique<engine::OperationContext>(node().conn());
      } catch (const engine::WtError& e) {
        return e.code();
      }
      return 0;
    });
    return op;
  }
  // Inside a node call that runs long (a backup's copy loop) or calls back (the engine's commit
  // observer): drains fired faults; throws sim::Cancelled if the node was fenced meanwhile.
  virtual void after_wt_call() = 0;
  // Records the failure; a panic or fatal I/O error crashes the node (and throws Cancelled).
  virtual void handle_wt_failure(int code, const std::string& what, OnIoError on_io_error = OnIoError::kFatal) = 0;
  virtual void pay_disk(sim::Nanos cost_ns) = 0;
  // Around a node's own commit that no client makes (a vote's record): waits while a hot backup
  // fixes its point in time or releases a table (world/hot_backup_actor.h), then counts the
  // commit in flight until end_commit.
  virtual void begin_commit() = 0;
  virtual void end_commit() = 0;
  // A script's crash step: the node loses power now, as a fault would; the calling actor (one
  // of the node's) is cancelled.
  [[noreturn]] virtual void crash_now(faults::CrashMode mode, const std::string& cause) = 0;
  // A script's crash step with a count: the node loses power just before the `n`th mutating disk
  // operation from now (whichever fiber makes it), as a fault plan's at_disk_op would.
  virtual void arm_crash_after(uint64_t n, faults::CrashMode mode) = 0;
  // System::read_refusal of the node's system: "" if it may answer a read, else the code it answers.
  virtual std::string read_refusal() = 0;
  // An event a fault plan's anchored crashes count from (a rollback begins; faults/fault_plan.h).
  virtual void note_crash_anchor(faults::CrashAnchor event) = 0;

 protected:
  ~NodeContext() = default;
  // Throws sim::Cancelled when the node is fenced (a fenced node acknowledges nothing).
  virtual void refuse_if_fenced() const = 0;
};

// A node's own commit in flight for this object's lifetime (NodeContext::begin_commit): a vote's
// record, a rollback's minValid. A crash that cancels the fiber unwinds it.
class CommitInFlight {
 public:
  explicit CommitInFlight(NodeContext& host) : host_(host) { host_.begin_commit(); }
  ~CommitInFlight() { host_.end_commit(); }
  CommitInFlight(const CommitInFlight&) = delete;
  CommitInFlight& operator=(const CommitInFlight&) = delete;

 private:
  NodeContext& host_;
};

}  // namespace wtsim::world
