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
#include "world/run_context.h"
#include "world/scenario.h"
#include "world/system.h"
#include "world/verdict.h"
#include "traces/trace.h"

namespace wtsim::world {

struct RunResult {
  bool ok = true;
  std::vector<properties::Violation> violations;
  std::vector<Unsurvivable> unsurvivable;
  RunStats stats;
  std::unique_ptr<traces::Trace> trace;
};

// Called from the run about once per virtual second (never more often than that), with the
// virtual time and the scenario's end: a terminal progress line. Prints only; must not touch the run.
using ProgressFn = std::function<void(sim::Nanos now_ns, sim::Nanos end_ns)>;

// A trace recorded with a planted bug (header "planted_bug") replays only in the self-test build,
// with that bug on; elsewhere this throws std::invalid_argument naming the bug.
void enable_planted_bug_of(const nlohmann::json& header, const std::string& origin);

// One run. Its swarm knobs are drawn here (a scenario drawn already has none left). An explicit
// plan overrides the scenario's (replay, shrinking); otherwise the scenario's explicit plan,
// otherwise one drawn from its swarm spec and the seed. With a `sink`, the trace streams every
// event to it as produced and keeps none (traces::Trace::stream_to): for runs too large to hold,
// and on-the-fly replay.
RunResult run_scenario(const Scenario& scenario, uint64_t seed,
                       const faults::FaultPlan* plan_override = nullptr, ProgressFn progress = nullptr,
                       traces::EventSink* sink = nullptr);

// A run that calls `before_op` just before each of its mutating disk operations (runs/sweep.cpp
// forks there: a child arms a crash at that operation with FaultInjector::add and goes on). The
// scenario must give its fault plan; the run only hashes its events.
using BeforeDiskOp = std::function<void(faults::FaultInjector& injector, uint64_t op)>;
RunResult run_scenario_forking(const Scenario& scenario, uint64_t seed, const BeforeDiskOp& before_op);

// One run: the node's lifecycle and the run's phases; what systems see of it is a RunContext.
class World final : public RunContext {
 public:
  World(const Scenario& scenario, uint64_t seed, faults::FaultPlan plan, ProgressFn progress = nullptr);
  ~World();
  RunResult run();

  // --- RunContext: for systems and their actors (world/run_context.h). ---
  sim::Simulator& sim() override { return sim_; }
  const Scenario& scenario() const override { return scenario_; }
  uint64_t seed() const override { return seed_; }
  sim::Nanos end_ns() const override { return end_ns_; }
  traces::Trace& trace() override { return *trace_; }
  History& history() override { return *history_; }
  models::KvModel& model() override { return model_; }
  Node& node() override { return *node_; }
  faults::Disk& disk() override { return disk_; }
  sim::Resource& cpu() override { return cpu_; }
  sim::Buggify& buggify() override { return buggify_; }
  RunStats& stats() override { return stats_; }
  std::string generation_suffix() const override { return ".g" + std::to_string(node_->generation()); }
  uint64_t file_bytes(const std::string& name) const override;
  uint64_t table_file_bytes() const override;
  void after_wt_call() override;
  void handle_wt_failure(int code, const std::string& what, OnIoError on_io_error = OnIoError::kFatal) override;
  void pay_disk(sim::Nanos cost_ns) override;
  [[noreturn]] void crash_now(faults::CrashMode mode, const std::string& cause) override;
  void arm_crash_after(uint64_t n, faults::CrashMode mode) override;
  void violation(properties::Property property, const std::string& detail, std::optional<uint64_t> subject = std::nullopt) override {
    verdict_->violation(property, detail, subject);
  }
  void reached(properties::Marker marker, uint64_t times = 1) override { verdict_->reached(marker, times); }
  void client_started() override;
  void client_finished() override;
  void note_progress() override;
  void note_workload_done() override { stats_.workload_done_ns = std::max(stats_.workload_done_ns, sim_.now_ns()); }

  // --- For the drivers of whole runs (run_scenario_forking). ---
  faults::FaultInjector& injector() { return injector_; }

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
  void refuse_if_fenced() const override;
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
  std::unique_ptr<Verdict> verdict_;  // over trace_
  bool power_cycle_pending_ = false;  // an administrator power-cycles the device before the next start
  uint64_t io_errors_fired_ = 0;      // injected I/O errors drained so far, whoever drained them
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
