#pragma once
// One run: scenario + seed -> simulator, node (disk, fault plan, WiredTiger, system), model,
// actors -> trace + verdict. The node's lifecycle is world/node_host.h; the run's phases are here.
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "faults/fault_injector.h"
#include "faults/network.h"
#include "models/kv_model.h"
#include "properties/violation.h"
#include "sim/buggify.h"
#include "sim/scheduler.h"
#include "sim/sync.h"
#include "world/history.h"
#include "world/member_rpc.h"
#include "world/node_host.h"
#include "world/replica_clients.h"
#include "world/script_clients.h"
#include "world/replica_set.h"
#include "world/run_control.h"
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

// One run of a scenario whose swarm knobs are drawn (draw_knobs: the trace's header holds the
// concrete scenario; replaying and shrinking never draw again). An explicit
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

// One run: the simulator, the trace, the model and its history, the verdict, and the node
// (world/node_host.h); the run's phases. Its actor: director (group "world") starts the node,
// ends the fault phase, runs the liveness phase, waits for the node's fibers to end and has the
// node make its final checks.
class World final : public RunControl, public MemberAccess {
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
  sim::Buggify& buggify() override { return buggify_; }
  RunStats& stats() override { return stats_; }
  void violation(properties::Property property, const std::string& detail, std::optional<uint64_t> subject = std::nullopt) override {
    verdict_->violation(property, detail, subject);
  }
  void classify(const std::string& reason, const std::string& detail) override { verdict_->classify(reason, detail); }
  void reached(properties::Marker marker, uint64_t times = 1) override { verdict_->reached(marker, times); }
  void client_started() override;
  void client_finished() override;
  void note_progress() override;
  void note_workload_done() override { stats_.workload_done_ns = std::max(stats_.workload_done_ns, sim_.now_ns()); }
  MemberAccess* members() override { return rpc_ ? this : nullptr; }

  // --- MemberAccess: a replica set's members, for a script on the first (world/run_context.h). ---
  std::string read_on(size_t member, Read read) override;
  uint64_t newest_ts(size_t member) override;
  size_t member_count() const override { return hosts_.size(); }
  std::string member_state(size_t member) override;
  void start_script_fault(const NetworkFault& shape, size_t step) override;
  void end_script_faults() override;

  // --- RunControl: for the node's lifecycle (world/run_control.h). ---
  sim::Nanos fault_end_ns() const override { return fault_end_ns_; }
  void extend_end(sim::Nanos stalled_ns) override { end_ns_ += stalled_ns; }
  void end_faults_at(sim::Nanos fault_end_ns) override;
  void client_abandoned(const std::string& fiber_name) override;

  // --- For the drivers of whole runs (run_scenario_forking): the primary's injector. ---
  faults::FaultInjector& injector() { return hosts_.front()->injector(); }

 private:
  void director();
  // Waits for the nodes' fibers to end after the phases; false if they never do (a violation).
  bool wait_for_node_fibers();
  bool nodes_busy() const;  // a node restarting, or a node's fiber alive
  // Builds the replica set's members and what joins them (the first member is built already).
  void build_replica_set(uint64_t seed, faults::FaultPlan first_plan);
  // The members' final checks, the final primary last; then the replica set's own checks.
  void final_checks();
  // Every member that applied the primary's oplog holds the primary's documents.
  void check_convergence(size_t primary);
  // With elections: what keeps the set from one writable primary ("" once it has one).
  std::string primary_pending() const;
  // Carries out the replica set's network faults (actor "network-faults").
  void network_fault_actor();
  void network_fault(size_t index, bool start);
  // Cuts or gives back `shape`'s links; `source` says whose ({"index": i} or {"step": s}).
  void apply_network(const NetworkFault& shape, bool start, nlohmann::json source);
  void apply_pause(size_t member, bool start, nlohmann::json source);
  void apply_step_down(const NetworkFault& f, bool start, nlohmann::json source);
  // Liveness (liveness.cpp): faults stop, the node must converge before end_ns_.
  void liveness_phase();
  std::string liveness_pending() const;
  sim::Nanos liveness_deadline_ns() const;  // end_ns_, later while a node recovers

  const Scenario& scenario_;
  uint64_t seed_;
  sim::Simulator sim_;
  sim::Buggify buggify_;
  std::unique_ptr<traces::Trace> trace_;
  std::unique_ptr<Verdict> verdict_;  // over trace_
  RunStats stats_;
  sim::Nanos end_ns_;
  sim::Nanos fault_end_ns_;
  bool ended_early_ = false;  // end_faults_at() moved the ends (once per run)
  struct ClientProgress {
    sim::Nanos last_ns = -1;  // -1: none yet
    bool finished = false;
  };
  std::map<std::string, ClientProgress> clients_;  // by fiber name (ordered: deterministic reports)
  ProgressFn progress_;
  // The replica set's members, the primary first (one for a single node). Last: their systems
  // refer to the run's parts.
  std::vector<std::unique_ptr<NodeHost>> hosts_;
  // A replica set's: the network between its members (and its clients, with elections), the
  // requests over it, and the sync source of each member.
  std::unique_ptr<faults::Network> network_;
  std::unique_ptr<MemberRpc> rpc_;
  std::unique_ptr<SyncSource> sync_source_;
  // With elections: what the members share, their clients, and the source every member
  // catches up from at the end (the final primary).
  std::unique_ptr<ReplicaSet> set_;
  std::map<size_t, uint64_t> paused_primaries_;  // a paused primary -> the newest term at its pause
  std::map<size_t, NetworkFault> script_faults_;  // a script's partitions and pauses in force, by step
  std::unique_ptr<ReplicaClients> replica_clients_;
  std::unique_ptr<ScriptClients> script_clients_;  // a script's, with elections
  std::optional<size_t> final_source_;
};

}  // namespace wtsim::world
