#pragma once
// One node of a run as a unit: its simulated disk, its fault plan, its WiredTiger connection
// (world/node.h), the System that runs on it, and its lifecycle: start (retried as an
// administrator would), crash, restart with a recovery check, the classification of faults no
// node survives, and the final checks. Its actors:
//   fault-actor  (group "world") carries out the time-triggered faults of its plan;
//   restarter    (group "world") after a crash: waits for the node's fibers to die, recovers,
//                checks the recovered state, restarts the node's actors;
//   metrics      (group "world") samples serverStatus and collStats into the trace;
//   journal-flusher, checkpointer and the System's clients (group "node"): die with the node.
// What the node's systems see of it is a NodeContext; what it sees of its run, a RunControl.
#include <memory>
#include <optional>
#include <string>

#include "faults/disk.h"
#include "faults/fault_injector.h"
#include "sim/random.h"
#include "sim/sync.h"
#include "world/node.h"
#include "world/node_context.h"
#include "world/run_control.h"
#include "world/sync_source.h"
#include "world/system.h"

namespace wtsim::world {

class ReplicaSet;

class NodeHost final : public NodeContext {
 public:
  // `member` 0 is the primary (and a single node); another member's fibers, events and random
  // streams are named after it (".m2"), so the primary's stay as a single node's.
  // A member other than the primary replicates from `source`; with elections (`set`) every
  // member does, and may become primary (world/elector.h).
  NodeHost(RunControl& run, faults::FaultPlan plan, size_t member, SyncSource* source = nullptr, ReplicaSet* set = nullptr);
  ~NodeHost();
  NodeHost(const NodeHost&) = delete;
  NodeHost& operator=(const NodeHost&) = delete;

  // --- NodeContext: for the node's systems and their actors (world/node_context.h). ---
  size_t member() const override { return member_; }
  const std::string& fiber_group() const override { return group_; }
  Node& node() override { return *node_; }
  History& history() override { return history_; }
  models::KvModel& model() override { return model_; }
  faults::Disk& disk() override { return disk_; }
  sim::Resource& cpu() override { return cpu_; }
  std::string generation_suffix() const override { return member_suffix_ + ".g" + std::to_string(node_->generation()); }
  uint64_t file_bytes(const std::string& name) const override;
  uint64_t table_file_bytes() const override;
  void after_wt_call() override;
  void handle_wt_failure(int code, const std::string& what, OnIoError on_io_error = OnIoError::kFatal) override;
  void pay_disk(sim::Nanos cost_ns) override;
  void begin_commit() override { system_->begin_commit(); }
  void end_commit() override { system_->end_commit(); }
  [[noreturn]] void crash_now(faults::CrashMode mode, const std::string& cause) override;
  void arm_crash_after(uint64_t n, faults::CrashMode mode) override;
  void note_crash_anchor(faults::CrashAnchor event) override { injector_.note(event); }
  std::string read_refusal() override { return system_->read_refusal(); }
  bool recovering() const { return system_->recovering(); }

  // --- For the run (world/world.h). ---
  const std::string& member_suffix() const { return member_suffix_; }  // "", ".m2"
  // The first start: up, or dead after too many attempts (a violation says so).
  void start();
  bool up() const { return node_->up(); }
  bool restarting() const { return restarting_; }
  bool dead() const { return dead_; }
  // Inside wiredtiger_open (recovery, for a restart): its length is WiredTiger's, not a liveness bug.
  bool opening() const { return opening_; }
  // Liveness: what has not converged since `since_ns` ("" once the node and its system have).
  std::string liveness_pending(sim::Nanos since_ns) const;
  // No fault fires from here on; counts the fault phase's mutating disk operations. Idempotent.
  void end_fault_phase();
  void lift_disk_full() { disk_.set_capacity(faults::Disk::kUnlimited); }
  // The final state against the model, validation, a clean close and reopen. A member other
  // than the primary first catches up with it (the primary must still be up).
  void final_checks();
  // The data the final checks read (documents and catalog rows); null if they read none.
  const models::KvState* final_state() const { return final_state_ ? &*final_state_ : nullptr; }
  // Why this member's final data need not equal the primary's ("": it must; world/system.h).
  std::string convergence_exempt() const { return system_->convergence_exempt(); }
  // The final checks' read of the oplog (ts and term of every entry, oldest first).
  const std::vector<OplogId>& final_oplog() const { return final_oplog_; }
  // The node's document engine while it is up and not restarting (a sync source serves from it).
  engine::DocumentEngine* serving_engine() { return up() && !restarting_ ? system_->engine() : nullptr; }
  // After the scheduler stopped: closes whatever a cancelled run left open.
  void shut_down();
  // Stats only the node knows: its disk operations, the ENOSPC marker.
  void finish_stats(RunStats& stats);
  faults::FaultInjector& injector() { return injector_; }
  // A stalled process (a network fault `pause`): the node's fibers stop where they are until it
  // resumes (sim::Simulator::pause_group). A crash ends the pause (cancel_group resumes).
  void pause(bool on);
  bool paused() const { return sim_.group_paused(group_); }
  // Actor bodies, spawned by the run (their order is part of the schedule).
  void fault_actor();
  void metrics_sampler();

 private:
  // Lifecycle (node_host.cpp).
  // Starts the node, retrying after failures an administrator would retry (an injected I/O error, a
  // full disk, a device to power-cycle), at most kMaxStartAttempts times.
  void start_until_up();
  bool start_node();
  bool open_schema();
  void crash_node(faults::CrashMode mode, bool power_loss, const std::string& cause);
  void note_crash_point(faults::FsOp op, const std::string& file);
  void extend_for_recovery(sim::Nanos open_start_ns);
  void restarter();
  // After a crash: freezes the node's fibers still inside WiredTiger a virtual second later.
  void freeze_stuck_node_fibers();
  // Closes the fenced node's system and connection (abandoned if its close hangs).
  void close_crashed_node();
  void drain_wt_messages();
  // A trace event of the node's; another member's say which member.
  uint64_t event(const std::string& actor, const char* kind, nlohmann::json details);
  bool drain_fired_faults();  // true if an injected I/O error fired
  void refuse_if_fenced() const override;
  sim::Nanos disk_cost_ns(faults::FsOp op, uint64_t bytes) const;

  // Checks and classification (node_host_checks.cpp).
  void check_recovered(const char* when);
  void report_validation(const char* when);
  // A start failed with `code` at `stage`: true if a fault no node survives explains it (it is
  // classified, and the device will be power-cycled before the next attempt).
  bool classify_failed_start(int code, const std::string& stage);
  // A refusal (open, read or verify failed): detection when corruption was injected, else a
  // violation of `property`.
  void refused_or_violated(properties::Property property, const std::string& detail);
  bool corruption_injected() const;
  // After a failed start: closes what is open; carries out a power cycle the start asked for.
  void after_failed_start();
  void power_cycle_device(const std::string& reason);

  // Actors (node_host_actors.cpp).
  void spawn_node_actors();
  void journal_flusher();
  void checkpointer();

  RunControl& run_;
  sim::Simulator& sim_;
  const Scenario& scenario_;
  const size_t member_;
  const std::string member_suffix_;  // "" for the primary, ".m<member>" for another
  const std::string group_;          // "node" + member_suffix_
  models::KvModel model_;
  History history_;  // over model_ and the run's trace
  sim::Rng fault_rng_;
  faults::Disk disk_;
  faults::FaultInjector injector_;
  sim::Resource cpu_;
  sim::Resource disk_queue_;
  std::unique_ptr<Node> node_;
  std::unique_ptr<System> system_;
  bool power_cycle_pending_ = false;  // an administrator power-cycles the device before the next start
  uint64_t io_errors_fired_ = 0;      // injected I/O errors drained so far, whoever drained them
  faults::CrashMode last_crash_mode_ = faults::CrashMode::kDropUnsynced;
  bool restarting_ = false;
  bool opening_ = false;
  bool checkpoint_running_ = false;  // the checkpointer is inside WiredTiger's checkpoint
  bool dead_ = false;                // could not be restarted: the run ends early
  uint64_t crashes_ = 0;             // this node's
  std::optional<models::KvState> final_state_;
  std::vector<OplogId> final_oplog_;
};

}  // namespace wtsim::world
