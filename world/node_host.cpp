// The node's lifecycle: starts (retried as an administrator would), crashes, restarts.
#include "world/node_host.h"

#include <wiredtiger.h>

#include <algorithm>
#include <cassert>
#include <cstdlib>

#include "sim/wt_threads.h"
#include "world/doc_system.h"

namespace wtsim::world {
namespace {

constexpr int kMaxStartAttempts = 16;             // crashes during recovery, in a row
constexpr uint64_t kWaitsForNodeMax = 1'000'000;  // waits for the node's fibers to end

engine::WtConfig wt_config(const Scenario& s) {
  engine::WtConfig c;
  c.cache_mb = s.node.cache_mb;
  c.log_file_max_kb = s.node.log_file_max_kb;
  return c;
}

std::unique_ptr<System> make_system(WorkloadKind kind, RunContext& run, NodeContext& host) {
  switch (kind) {
    case WorkloadKind::kKv: return make_kv_system(run, host);
    case WorkloadKind::kDocuments: return make_mixed_doc_system(run, host);
    case WorkloadKind::kTimeSeries: return make_time_series_system(run, host);
    case WorkloadKind::kPadding: return make_padding_system(run, host);
    case WorkloadKind::kBackup: return make_backup_system(run, host);
    case WorkloadKind::kScript: return make_script_system(run, host);
  }
  assert(false && "every workload kind has a system");
  return nullptr;
}

}  // namespace

NodeHost::NodeHost(RunControl& run, faults::FaultPlan plan, size_t member, SyncSource* source, ReplicaSet* set)
    : run_(run),
      sim_(run.sim()),
      scenario_(run.scenario()),
      member_(member),
      member_suffix_(member == 0 ? "" : ".m" + std::to_string(member)),
      group_("node" + member_suffix_),
      history_(run.trace(), run.sim(), model_, member),
      fault_rng_(sim::stream(run.seed(), "faults" + member_suffix_)),
      injector_(std::move(plan)),
      cpu_("cpu" + member_suffix_, scenario_.cost.cpu_cores),
      disk_queue_("disk" + member_suffix_, 1) {
  node_ = std::make_unique<Node>(disk_, injector_, wt_config(scenario_));
  assert((member_ == 0 && set == nullptr) == (source == nullptr) && "every member but the primary replicates");
  if (set != nullptr) {
    system_ = make_electable_system(run_, *this, *source, *set);
  } else {
    system_ = member_ == 0 ? make_system(scenario_.workload.kind, run_, *this) : make_secondary_system(run_, *this, *source);
  }
  node_->set_crash_handler([this](faults::CrashMode mode, faults::FsOp op, const std::string& file) {
    note_crash_point(op, file);
    crash_node(mode, /*power_loss=*/true, "fault plan: crash at disk op " +
                                              std::to_string(injector_.mutating_ops()) + " (" + faults::to_string(op) +
                                              " " + file + " by " + sim_.current_or_main().name + ")");
  });
  node_->set_disk_timer([this](faults::FsOp op, uint64_t bytes) { pay_disk(disk_cost_ns(op, bytes)); });
}

NodeHost::~NodeHost() = default;

void NodeHost::start() {
  restarting_ = true;
  start_until_up();
  restarting_ = false;
}

void NodeHost::start_until_up() {
  for (int attempt = 1; !start_node(); ++attempt) {
    if (dead_) return;
    after_failed_start();
    if (attempt == kMaxStartAttempts) {  // a node that never comes back must not pass silently
      run_.violation(properties::Property::kRecoverySucceeds, "the node did not start in " + std::to_string(kMaxStartAttempts) + " attempts");
      dead_ = true;
      return;
    }
    sim_.sleep_for(scenario_.cost.restart_ns);
  }
}

bool NodeHost::start_node() {
  system_->before_open();
  // Only a restore may open with WiredTiger.backup present; a restarting node must do a crash
  // recovery, or it recreates its metadata from a backup that began long ago (the sentinel's job).
  if (disk_.exists("WiredTiger.backup")) {
    run_.violation(properties::Property::kSentinelRecovery, "the node is restarting with a stale WiredTiger.backup: a hot-backup restore instead of crash recovery");
  }
  // Counted, not taken from one drain: a commit observer drains fired faults inside the calls.
  const uint64_t io_errors_before_open = io_errors_fired_;
  const uint64_t enospc_before_open = disk_.enospc_returned();
  const sim::Nanos open_start_ns = sim_.now_ns();
  // Every attempt is a generation: one that fails (or crashes in recovery) leaves its number used.
  event("node", "open_started", {{"generation", node_->generation() + 1}});
  opening_ = true;
  const int ret = node_->open();
  opening_ = false;
  drain_wt_messages();
  drain_fired_faults();
  const bool io_error_during_open = io_errors_fired_ > io_errors_before_open;
  if (node_->fenced()) run_.reached(properties::Marker::kCrashDuringRecovery);
  if (node_->fenced() && ret == 0) return false;  // crashed during recovery: try again
  // Full now, or full while it ran: a disk-full window may end inside a long recovery.
  const bool disk_full = disk_.capacity() != faults::Disk::kUnlimited || disk_.enospc_returned() > enospc_before_open;
  if (ret != 0 && (classify_failed_start(ret, "wiredtiger_open") || io_error_during_open || disk_full)) {
    // A device that refuses I/O for good, an injected I/O error or a full disk failed this
    // attempt; an administrator would restart the node again (after a power cycle, after freeing space).
    event("node", "open_failed", {{"code", ret}, {"error", wiredtiger_strerror(ret)}, {"retry", true}, {"generation", node_->generation()}});
    return false;
  }
  if (ret != 0) {
    event("node", "open_failed", {{"code", ret}, {"error", wiredtiger_strerror(ret)}, {"generation", node_->generation()}});
    refused_or_violated(properties::Property::kRecoverySucceeds, std::string("wiredtiger_open: ") + wiredtiger_strerror(ret));
    dead_ = true;
    return false;
  }
  event("node", "started", {{"generation", node_->generation()}});
  extend_for_recovery(open_start_ns);
  if (!open_schema()) return false;
  if (node_->generation() > 1 || crashes_ > 0) {
    check_recovered("recovery");
    if (node_->fenced()) return false;
    if (scenario_.end_after_recovery_ns) run_.end_faults_at(sim_.now_ns() + *scenario_.end_after_recovery_ns);
  }
  system_->after_open(node_->conn());
  drain_wt_messages();
  if (node_->fenced()) return false;
  spawn_node_actors();
  return true;
}

bool NodeHost::open_schema() {
  const uint64_t io_errors_before_schema = io_errors_fired_;
  const int opened = system_->open(node_->conn());
  drain_wt_messages();
  drain_fired_faults();
  const bool io_error_during_schema = io_errors_fired_ > io_errors_before_schema;
  if (node_->fenced()) return false;
  if (opened != 0 && (classify_failed_start(opened, "opening the schema") || io_error_during_schema)) {
    event("node", "open_failed",
                       {{"code", opened}, {"error", wiredtiger_strerror(opened)}, {"stage", "schema"}, {"retry", true}, {"generation", node_->generation()}});
    node_->fence();
    return false;
  }
  if (opened != 0) {
    refused_or_violated(properties::Property::kRecoverySucceeds, std::string("opening the schema: ") + wiredtiger_strerror(opened));
    dead_ = true;
    return false;
  }
  return true;
}

// What the crashing disk operation was part of: coverage of the places storage engines break.
void NodeHost::note_crash_point(faults::FsOp op, const std::string& file) {
  if (sim::wt_threads::in_eviction() || sim_.current_or_main().name.rfind("wt:evict", 0) == 0) run_.reached(properties::Marker::kCrashDuringEviction);
  if (checkpoint_running_) run_.reached(properties::Marker::kCrashDuringCheckpoint);
  const bool log_file = file.rfind("WiredTigerLog.", 0) == 0 || file.rfind("WiredTigerTmplog.", 0) == 0;
  const bool later_log = log_file && file.size() > 14 && std::strtoull(file.c_str() + file.find('.') + 1, nullptr, 10) > 1;
  const bool switching = later_log && (op == faults::FsOp::kCreate || op == faults::FsOp::kRename);
  const bool closing_old_log = sim_.current_or_main().name == "wt:log-close-server";
  if (switching || closing_old_log || injector_.in_log_switch()) run_.reached(properties::Marker::kCrashDuringLogSwitch);
}

// Recovery replays the log written since the last checkpoint, which faults may make long (crashes
// that keep checkpoints from finishing): the part of it inside the liveness phase moves the run's
// end, so liveness is judged from when the node is up, as for an abandoned close. A recovery that
// never ends is still caught: the end moves only once it has.
void NodeHost::extend_for_recovery(sim::Nanos open_start_ns) {
  if (scenario_.liveness_ns == 0) return;  // no liveness phase to judge
  const sim::Nanos from_ns = std::max(open_start_ns, run_.fault_end_ns());
  if (sim_.now_ns() <= from_ns) return;
  const sim::Nanos overlap_ns = sim_.now_ns() - from_ns;
  run_.extend_end(overlap_ns);
  event("node", "recovery_in_liveness", {{"generation", node_->generation()}, {"extended_ms", overlap_ns / sim::kNsPerMs}});
}

void NodeHost::crash_node(faults::CrashMode mode, bool power_loss, const std::string& cause) {
  if (node_->fs() == nullptr || node_->fenced()) return;  // already down
  ++run_.stats().crashes;
  ++crashes_;
  for (const properties::Marker marker : system_->busy_phases()) run_.reached(marker);
  if (power_loss) last_crash_mode_ = mode;
  node_->fence();
  nlohmann::json files = nlohmann::json::array();
  if (power_loss) {
    for (const auto& r : disk_.crash(mode, fault_rng_.next())) {
      if (r.pending_ops == 0) continue;
      files.push_back({{"file", r.name}, {"pending_ops", r.pending_ops}, {"kept_ops", r.kept_ops},
                       {"torn_bytes", r.torn_bytes}});
    }
  }
  if (power_loss) injector_.power_cycled();  // a process crash leaves the device as it was
  injector_.node_crashed();
  event("faults", "crash",
                     {{"cause", cause}, {"mode", power_loss ? faults::to_string(mode) : "process_only"},
                      {"generation", node_->generation()}, {"unsynced", files}});
  history_.crashed();  // after the crash event: what it cut completes as info
  sim_.cancel_group(group_);
  if (!restarting_) {
    restarting_ = true;
    sim_.spawn("restarter" + member_suffix_, "world", [this] { restarter(); });
  }
}

void NodeHost::pause(bool on) {
  if (on) {
    sim_.pause_group(group_);
  } else {
    sim_.resume_group(group_);
  }
}

void NodeHost::restarter() {
  // Sleep, not yield: a fiber still inside WiredTiger may wait for virtual time to pass.
  const sim::Nanos start_ns = sim_.now_ns();
  uint64_t waits = 0;
  for (; sim_.live_fibers(group_) > 0 && waits < kWaitsForNodeMax; ++waits) sim_.sleep_for(sim::kNsPerUs);
  if (waits == kWaitsForNodeMax) {
    freeze_stuck_node_fibers();
    run_.extend_end(sim_.now_ns() - start_ns);  // as for an abandoned close (close_crashed_node)
  }
  assert(sim_.live_fibers(group_) == 0);
  drain_wt_messages();
  close_crashed_node();
  sim_.sleep_for(scenario_.cost.restart_ns);
  start_until_up();
  restarting_ = false;
}

void NodeHost::freeze_stuck_node_fibers() {
  // Cancelled fibers that never left WiredTiger: they wait inside the dead node's connection for
  // what will never come (docs/findings.md, finding 10). The killed process they stand for is gone.
  nlohmann::json names = nlohmann::json::array();
  for (const sim::BlockedFiber& b : sim_.live_fiber_report()) {
    if (b.group != group_) continue;
    sim::FiberRecord* fiber = sim_.fiber_by_id(b.id);
    assert(fiber != nullptr && fiber->cancel);
    names.push_back(b.name + " (" + b.waits_on + ")");
    sim::wt_threads::freeze_inside_wiredtiger(*fiber);
    run_.client_abandoned(b.name);
  }
  assert(!names.empty());
  event("node", "fibers_frozen", {{"generation", node_->generation()}, {"fibers", names}});
}

void NodeHost::close_crashed_node() {
  system_->close();
  const sim::Nanos start_ns = sim_.now_ns();
  if (node_->close_fenced()) {
    // The killed process's close hung in WiredTiger (docs/findings.md, finding 10). It stands for nothing
    // real, so the run's end moves by the time it took: liveness is not judged on it.
    const sim::Nanos stalled_ns = sim_.now_ns() - start_ns;
    run_.extend_end(stalled_ns);
    event("node", "connection_abandoned",
                       {{"generation", node_->generation()}, {"stalled_ms", stalled_ns / sim::kNsPerMs}});
  }
  drain_wt_messages();
}

void NodeHost::end_fault_phase() {
  if (!injector_.enabled()) return;  // already ended
  injector_.set_enabled(false);
  if (member_ == 0) run_.stats().fault_phase_disk_ops = injector_.mutating_ops();  // a sweep's crash points
}

std::string NodeHost::liveness_pending(sim::Nanos since_ns) const {
  if (dead_) return "the node could not be restarted";
  if (restarting_ || !node_->up()) return "the node is not up";
  return system_->liveness_pending(since_ns);
}

void NodeHost::shut_down() {
  if (node_->fs() != nullptr && !node_->fenced() && node_->conn() != nullptr) node_->fence();
  system_->close();
  node_.reset();  // closes a connection a cancelled run left open (its waits run WiredTiger's fibers)
}

void NodeHost::finish_stats(RunStats& stats) {
  const bool enospc = disk_.enospc_returned() > 0;
  if (member_ > 0) {  // the disk operations counted are the primary's: a sweep's crash points
    if (enospc) run_.reached(properties::Marker::kEnospcReached);
    return;
  }
  stats.mutating_disk_ops = injector_.mutating_ops();
  if (injector_.enabled()) stats.fault_phase_disk_ops = stats.mutating_disk_ops;  // it never ended
  run_.reached(properties::Marker::kEnospcReached, enospc ? 1 : 0);
}

uint64_t NodeHost::event(const std::string& actor, const char* kind, nlohmann::json details) {
  if (member_ > 0) details["member"] = member_;
  return run_.trace().event(sim_.now_ns(), actor, kind, std::move(details));
}

// Every message, WiredTiger's own threads' included: they run on the seeded scheduler, so what
// they print and when is part of the run.
void NodeHost::drain_wt_messages() {
  for (std::string& m : node_->take_messages()) {
    event("wiredtiger", "message", {{"text", std::move(m)}});
  }
  for (const int error : sim::wt_threads::take_log_switch_wedges()) {
    run_.classify("log_switch_wedged", std::string("WiredTiger 3.2.1's log cannot switch files after ") +
                                           wiredtiger_strerror(error) + "; the node was halted and restarts (docs/findings.md, finding 24)");
  }
}

sim::Nanos NodeHost::disk_cost_ns(faults::FsOp op, uint64_t bytes) const {
  const engine::CostModel& cost = scenario_.cost;
  switch (op) {
    case faults::FsOp::kRead:
    case faults::FsOp::kWrite:
      return cost.disk_per_byte_ns * static_cast<sim::Nanos>(bytes);
    case faults::FsOp::kSync:
      return cost.disk_sync_ns;
    default:
      return 0;  // metadata operations: their cost is in the directory sync that makes them durable
  }
}

bool NodeHost::drain_fired_faults() {
  bool io_error = false;
  for (const faults::FiredFault& f : injector_.take_fired()) {
    io_error |= f.what.rfind("EIO", 0) == 0;
    if (f.what.rfind("EIO", 0) == 0) run_.reached(properties::Marker::kIoErrorInjected), ++io_errors_fired_;
    event("faults", "fired",
                       {{"plan_index", f.plan_index}, {"disk_op", f.disk_op}, {"file", f.file}, {"what", f.what}, {"actor", f.actor}});
  }
  return io_error;
}

void NodeHost::after_wt_call() {
  drain_fired_faults();
  if (node_->fenced()) throw sim::Cancelled{};
}

void NodeHost::refuse_if_fenced() const {
  if (node_->fenced()) throw sim::Cancelled{};
}

uint64_t NodeHost::file_bytes(const std::string& name) const {
  for (const faults::FileInfo& f : disk_.files()) {
    if (f.name == name) return f.current_bytes;
  }
  return 0;
}

}  // namespace wtsim::world
