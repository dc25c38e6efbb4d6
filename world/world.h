#pragma once
// One run: scenario + seed -> simulator, disk, fault plan, node, model, actors -> trace + verdict.
//
// Actors (fibers):
//   director     (group "world") starts the node, waits for the end, runs the final checks;
//   fault-actor  (group "world") carries out the time-triggered faults of the plan;
//   restarter    (group "world") after a crash: waits for the node's fibers to die, recovers,
//                checks the recovered state, restarts the node's actors;
//   metrics      (group "world") samples serverStatus and collStats into the trace;
//   journal-flusher, checkpointer and the System's clients (group "node"): die with the node.
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "faults/disk.h"
#include "faults/fault_injector.h"
#include "models/kv_model.h"
#include "properties/violation.h"
#include "sim/buggify.h"
#include "sim/scheduler.h"
#include "sim/sync.h"
#include "world/history.h"
#include "world/node.h"
#include "world/scenario.h"
#include "world/system.h"
#include "traces/trace.h"

namespace wtsim::world {

struct RunStats {
  uint64_t commits_acked = 0;
  uint64_t commits_failed = 0;
  uint64_t crashes = 0;
  uint64_t recoveries = 0;
  uint64_t checkpoints = 0;
  sim::Nanos virtual_ns = 0;
  sim::Nanos workload_done_ns = 0;  // bulk loads: when the last client finished
  uint64_t mutating_disk_ops = 0;   // the crash points a fault plan's at_disk_op can name (not in the trace)
  uint64_t fault_phase_disk_ops = 0;  // those made before the fault phase ended: where a crash can fire
};

// A fault that no node could survive (a device that refuses every read of the log): classified,
// never a violation. An administrator's answer (a power cycle of the device) follows, and the run goes
// on testing recovery.
struct Unsurvivable {
  sim::Nanos at_ns = 0;
  std::string reason;  // "device_refuses_io", "corruption_detected"
  std::string detail;
};

struct RunResult {
  bool ok = true;
  std::vector<properties::Violation> violations;
  std::vector<Unsurvivable> unsurvivable;
  RunStats stats;
  std::unique_ptr<traces::Trace> trace;
};

// An explicit plan overrides the scenario's (replay, shrinking); otherwise the scenario's
// explicit plan, otherwise one drawn from its swarm spec and the seed.
// Called from the run about once per virtual second (never more often than that), with the
// virtual time and the scenario's end: a terminal progress line. Prints only; must not touch the run.
using ProgressFn = std::function<void(sim::Nanos now_ns, sim::Nanos end_ns)>;

// With a `sink`, the trace streams every event to it as produced and keeps none (see
// traces::Trace::stream_to): for runs too large to hold, and on-the-fly replay.
// A trace recorded with a planted bug (header "planted_bug") replays only in the self-test build,
// with that bug on; elsewhere this throws std::invalid_argument naming the bug.
void enable_planted_bug_of(const nlohmann::json& header, const std::string& origin);

RunResult run_scenario(const Scenario& scenario, uint64_t seed,
                       const faults::FaultPlan* plan_override = nullptr, ProgressFn progress = nullptr,
                       traces::EventSink* sink = nullptr);

// A run that calls `before_op` just before each of its mutating disk operations (runs/sweep.cpp
// forks there: a child arms a crash at that operation with FaultInjector::add and goes on). The
// scenario must give its fault plan; the run only hashes its events.
using BeforeDiskOp = std::function<void(faults::FaultInjector& injector, uint64_t op)>;
RunResult run_scenario_forking(const Scenario& scenario, uint64_t seed, const BeforeDiskOp& before_op);

// Registers the calling fiber as a client for its scope (exceptions included).
class ClientScope {
 public:
  explicit ClientScope(class World& world);
  ~ClientScope();
  ClientScope(const ClientScope&) = delete;
  ClientScope& operator=(const ClientScope&) = delete;

 private:
  class World& world_;
};

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

// A node call's WiredTiger code: the call's own int, or its result's wt_code.
inline int wt_code_of(int code) { return code; }
template <class Result>
int wt_code_of(const Result& result) {
  return result.wt_code;
}

class World {
 public:
  World(const Scenario& scenario, uint64_t seed, faults::FaultPlan plan, ProgressFn progress = nullptr);
  ~World();
  RunResult run();

  // --- For systems and their actors. ---
  sim::Simulator& sim() { return sim_; }
  models::KvModel& model() { return model_; }
  // Every commit's invocation and fate goes through the history, which tells the model.
  History& history() { return *history_; }
  traces::Trace& trace() { return *trace_; }
  sim::Resource& cpu() { return cpu_; }
  sim::Buggify& buggify() { return buggify_; }
  sim::Resource& disk_queue() { return disk_queue_; }
  Node& node() { return *node_; }
  faults::Disk& disk() { return disk_; }
  RunStats& stats() { return stats_; }
  const Scenario& scenario() const { return scenario_; }
  uint64_t seed() const { return seed_; }
  sim::Nanos end_ns() const { return end_ns_; }
  // The fault phase ends here; a liveness phase (scenario liveness_ms) may follow until end_ns().
  sim::Nanos fault_end_ns() const { return fault_end_ns_; }
  // Client fibers (liveness.cpp): a client registers for its lifetime with a ClientScope and
  // reports each acknowledged operation; one that makes none during the liveness phase starves.
  void client_started();
  void client_finished();
  void note_progress();
  std::string generation_suffix() const { return ".g" + std::to_string(node_->generation()); }
  double latency_factor() const { return injector_.latency_factor(sim_.now_ns()); }
  uint64_t file_bytes(const std::string& name) const;
  // Bytes of every file but the log (the figure the backup account's inflation is measured in).
  uint64_t table_file_bytes() const;
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
  // nothing); a failure (the call's int, or its result's wt_code) is recorded and handled in
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
  // Inside a node call that runs long (a backup's copy loop) or calls back (the engine's commit
  // observer): drains fired faults; throws sim::Cancelled if the node was fenced meanwhile.
  void after_wt_call();
  // Records the failure; a panic or fatal I/O error crashes the node (and throws Cancelled).
  void handle_wt_failure(int code, const std::string& what, OnIoError on_io_error = OnIoError::kFatal);
  void pay_disk(sim::Nanos cost_ns);
  // A script's crash step: the node loses power now, as a fault would; the calling actor (one
  // of the node's) is cancelled.
  [[noreturn]] void crash_now(faults::CrashMode mode, const std::string& cause);
  // A script's crash step with a count: the node loses power just before the `n`th mutating disk
  // operation from now (whichever fiber makes it), as a fault plan's at_disk_op would.
  void arm_crash_after(uint64_t n, faults::CrashMode mode);
  faults::FaultInjector& injector() { return injector_; }
  // `subject`: the event the violation is about (a recovery check), when there is one.
  void violation(properties::Property property, const std::string& detail, std::optional<uint64_t> subject = std::nullopt);
  // A coverage marker (properties/coverage.h) was reached `times` times.
  void reached(properties::Marker marker, uint64_t times = 1);
  // A bulk-load client finished its share: the workload's virtual duration is the latest.
  void note_workload_done() { stats_.workload_done_ns = std::max(stats_.workload_done_ns, sim_.now_ns()); }

 private:
  // Lifecycle (world.cpp).
  void director();
  // Starts the node, retrying after failures an administrator would retry (an injected I/O error, a
  // full disk, a device to power-cycle), at most kMaxStartAttempts times.
  void start_until_up();
  bool start_node();
  void crash_node(faults::CrashMode mode, bool power_loss, const std::string& cause);
  void note_crash_point(faults::FsOp op, const std::string& file);
  void restarter();
  // After a crash: freezes the node's fibers still inside WiredTiger a virtual second later.
  void freeze_stuck_node_fibers();
  // Closes the fenced node's system and connection (abandoned if its close hangs).
  void close_crashed_node();
  // After a failed start: closes what is open; carries out a power cycle the start asked for.
  void after_failed_start();
  void final_checks();
  // No fault fires from here on (the liveness phase, the final checks); counts the fault phase's
  // mutating disk operations.
  void end_fault_phase();
  std::unique_ptr<System> make_system(WorkloadKind kind);
  // Unsurvivable faults (unsurvivable.cpp).
  // A start failed with `code` at `stage`: true if a fault no node survives explains it (it is
  // classified, and the device will be power-cycled before the next attempt).
  bool classify_failed_start(int code, const std::string& stage);
  void classify(const std::string& reason, const std::string& detail);
  // A refusal (open, read or verify failed): detection when corruption was injected, else a
  // violation of `property`.
  void refused_or_violated(properties::Property property, const std::string& detail);
  void power_cycle_device(const std::string& reason);
  // Liveness (liveness.cpp): faults stop, the node must converge before end_ns_.
  void liveness_phase();
  std::string liveness_pending() const;
  void check_recovered(const char* when);
  // The scenario's end_after_recovery_ms: after a recovery check, the phases end sooner.
  void end_soon_after_recovery();
  void drain_wt_messages();
  void refuse_if_fenced() const;
  sim::Nanos disk_cost_ns(faults::FsOp op, uint64_t bytes) const;
  bool drain_fired_faults();  // true if an injected I/O error fired
  bool corruption_injected() const;
  void report_validation(const char* when);

  // Actors (actors.cpp).
  void spawn_node_actors();
  void journal_flusher();
  void checkpointer();
  void metrics_sampler();
  void fault_actor();

  const Scenario& scenario_;
  uint64_t seed_;
  sim::Simulator sim_;
  sim::Rng fault_rng_;
  sim::Buggify buggify_;
  faults::Disk disk_;
  faults::FaultInjector injector_;
  std::unique_ptr<Node> node_;
  std::unique_ptr<System> system_;
  models::KvModel model_;
  std::unique_ptr<traces::Trace> trace_;
  std::unique_ptr<History> history_;  // over model_ and trace_
  sim::Resource cpu_;
  sim::Resource disk_queue_;
  std::vector<properties::Violation> violations_;
  std::vector<Unsurvivable> unsurvivable_;
  bool power_cycle_pending_ = false;  // an administrator power-cycles the device before the next start
  uint64_t io_errors_fired_ = 0;      // injected I/O errors drained so far, whoever drained them
  std::map<std::string, uint64_t> coverage_;  // marker -> times reached (ordered: deterministic)
  faults::CrashMode last_crash_mode_ = faults::CrashMode::kDropUnsynced;
  RunStats stats_;
  bool restarting_ = false;
  bool checkpoint_running_ = false;  // the checkpointer is inside WiredTiger's checkpoint
  bool node_dead_ = false;  // could not be restarted: the run ends early
  sim::Nanos end_ns_;
  sim::Nanos fault_end_ns_;
  bool ended_early_ = false;  // end_soon_after_recovery() moved the ends (once per run)
  struct ClientProgress {
    sim::Nanos last_ns = -1;  // -1: none yet
    bool finished = false;
  };
  std::map<std::string, ClientProgress> clients_;  // by fiber name (ordered: deterministic reports)
  ProgressFn progress_;
};

}  // namespace wtsim::world
