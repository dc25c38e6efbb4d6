#include "world/world.h"

#include <wiredtiger.h>

#include <cassert>
#include <cstdlib>

#include "faults/fault_swarm.h"
#include "properties/coverage.h"
#include "sim/planted.h"
#include "properties/kv_properties.h"
#include "world/doc_system.h"
#include "sim/wt_threads.h"

namespace wtsim::world {
namespace {

constexpr int kMaxStartAttempts = 16;          // crashes during recovery, in a row
constexpr uint64_t kWaitsForNodeMax = 1'000'000;  // waits for the node's fibers to end
constexpr sim::Nanos kTimeLimitSlackNs = 3600 * sim::kNsPerSec;

engine::WtConfig wt_config(const Scenario& s) {
  engine::WtConfig c;
  c.cache_mb = s.node.cache_mb;
  c.log_file_max_kb = s.node.log_file_max_kb;
  return c;
}

nlohmann::json make_header(const Scenario& s, uint64_t seed, const faults::FaultPlan& plan) {
  int major = 0, minor = 0, patch = 0;
  wiredtiger_version(&major, &minor, &patch);
  return {{"tool", "wtsim"},
          {"tool_version", WTSIM_VERSION},
          {"wiredtiger_version", std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch)},
          {"seed", seed},
          {"scenario", s.source},
          {"fault_plan", faults::to_json(plan)},
          {"cost_model", s.cost.to_json()},
          // The wall-clock instant of virtual time 0: new Date() at t_us is this + t_us / 1000.
          {"virtual_epoch_ms", sim::kVirtualEpochSec * 1000}};
}

nlohmann::json with_planted_bug(nlohmann::json header) {
  if (const auto bug = planted::enabled()) header["planted_bug"] = planted::name_of(*bug);
  return header;
}

}  // namespace

void enable_planted_bug_of(const nlohmann::json& header, const std::string& origin) {
  if (!header.contains("planted_bug")) return;
  const std::string name = header["planted_bug"].is_string() ? header["planted_bug"].get<std::string>() : "?";
  [[maybe_unused]] const auto bug = planted::find(name);
#ifdef WTSIM_PLANTED_BUGS
  if (bug && planted::enabled() == bug) return;
  if (bug && !planted::enabled()) return planted::enable(*bug);
#endif
  throw std::invalid_argument(origin + ": /header/planted_bug: the run had planted bug \"" + name +
                              "\"; replay it with wtsim-planted (the self-test build)");
}

RunResult run_scenario(const Scenario& declared, uint64_t seed, const faults::FaultPlan* plan_override,
                       ProgressFn progress, traces::EventSink* sink) {
  const Scenario scenario = draw_knobs(declared, seed);  // swarm knobs (knobs.h); the header gets these
  faults::FaultPlan plan;
  if (plan_override != nullptr) {
    plan = *plan_override;
  } else if (scenario.fault_plan) {
    plan = *scenario.fault_plan;
  } else {
    sim::Rng rng = sim::stream(seed, "fault-plan");
    plan = faults::draw_plan(scenario.swarm, rng, scenario.duration_ns);
  }
  World world(scenario, seed, std::move(plan), std::move(progress));
  if (sink != nullptr) world.trace().stream_to(sink);
  return world.run();
}

RunResult run_scenario_forking(const Scenario& declared, uint64_t seed, const BeforeDiskOp& before_op) {
  const Scenario scenario = draw_knobs(declared, seed);
  assert(scenario.fault_plan && "a sweep's run gives its plan");
  traces::HashOnlySink hash_only;  // outlives the world
  World world(scenario, seed, *scenario.fault_plan);
  world.trace().stream_to(&hash_only);
  world.injector().set_before_mutating_op([&](uint64_t op) { before_op(world.injector(), op); });
  return world.run();
}

std::unique_ptr<System> World::make_system(WorkloadKind kind) {
  switch (kind) {
    case WorkloadKind::kKv: return make_kv_system(*this);
    case WorkloadKind::kDocuments: return make_mixed_doc_system(*this);
    case WorkloadKind::kTimeSeries: return make_time_series_system(*this);
    case WorkloadKind::kPadding: return make_padding_system(*this);
    case WorkloadKind::kBackup: return make_backup_system(*this);
    case WorkloadKind::kScript: return make_script_system(*this);
  }
  assert(false && "every workload kind has a system");
  return nullptr;
}

World::World(const Scenario& scenario, uint64_t seed, faults::FaultPlan plan, ProgressFn progress)
    : scenario_(scenario),
      seed_(seed),
      sim_(seed, scenario.duration_ns + scenario.liveness_ns + kTimeLimitSlackNs),
      fault_rng_(sim::stream(seed, "faults")),
      buggify_(scenario.buggify, seed),
      injector_(std::move(plan)),
      cpu_("cpu", scenario.cost.cpu_cores),
      disk_queue_("disk", 1),
      end_ns_(scenario.duration_ns + scenario.liveness_ns),
      fault_end_ns_(scenario.duration_ns),
      progress_(std::move(progress)) {
  trace_ = std::make_unique<traces::Trace>(with_planted_bug(make_header(scenario, seed, injector_.plan())));
  history_ = std::make_unique<History>(*trace_, sim_, model_);
  verdict_ = std::make_unique<Verdict>(*trace_, sim_);
  node_ = std::make_unique<Node>(disk_, injector_, wt_config(scenario));
  system_ = make_system(scenario.workload.kind);
  node_->set_crash_handler([this](faults::CrashMode mode, faults::FsOp op, const std::string& file) {
    note_crash_point(op, file);
    crash_node(mode, /*power_loss=*/true, "fault plan: crash at disk op " +
                                              std::to_string(injector_.mutating_ops()) + " (" + faults::to_string(op) +
                                              " " + file + " by " + sim_.current_or_main().name + ")");
  });
  node_->set_disk_timer([this](faults::FsOp op, uint64_t bytes) { pay_disk(disk_cost_ns(op, bytes)); });
}

World::~World() = default;

RunResult World::run() {
  (void)sim::wt_threads::take_log_switch_wedges();  // an earlier run's in this process are not ours
  sim_.spawn("director", "world", [this] { director(); });
  sim_.spawn("fault-actor", "world", [this] { fault_actor(); });
  if (scenario_.node.metrics_interval_ns > 0) sim_.spawn("metrics", "world", [this] { metrics_sampler(); });
  const sim::RunOutcome outcome = sim_.run();
  if (outcome.kind == sim::RunOutcome::Kind::kDeadlock || outcome.kind == sim::RunOutcome::Kind::kTimeLimit) {
    std::string detail = std::string(sim::to_string(outcome.kind)) + "; blocked:";
    for (const auto& b : outcome.blocked) detail += " " + b.name + " (" + b.waits_on + ")";
    violation(properties::Property::kLiveness, detail);
  }
  for (const std::string& e : outcome.errors) violation(properties::Property::kNoInternalError, e);
  if (node_->fs() != nullptr && !node_->fenced() && node_->conn() != nullptr) node_->fence();
  system_->close();
  node_.reset();  // closes a connection a cancelled run left open (its waits run WiredTiger's fibers)
  assert(sim_.live_daemons() == 0 && "every WiredTiger thread ends with its connection");
  assert(sim::wt_threads::counters().mutexes_held == 0 && "no WiredTiger mutex outlives the run");

  stats_.virtual_ns = sim_.now_ns();
  stats_.mutating_disk_ops = injector_.mutating_ops();
  if (injector_.enabled()) stats_.fault_phase_disk_ops = stats_.mutating_disk_ops;  // it never ended
  reached(properties::Marker::kEnospcReached, disk_.enospc_returned() > 0 ? 1 : 0);
  trace_->set_verdict(verdict_->to_json(sim::to_string(outcome.kind), buggify_.report(), stats_));
  RunResult result;
  result.ok = verdict_->ok();
  result.violations = verdict_->violations();
  result.unsurvivable = verdict_->unsurvivable();
  result.stats = stats_;
  result.trace = std::move(trace_);
  return result;
}

void World::director() {
  restarting_ = true;
  start_until_up();
  restarting_ = false;
  // Whole virtual seconds, whether or not anyone watches: the schedule must not depend on it.
  while (sim_.now_ns() < fault_end_ns_) {
    sim_.sleep_until(std::min(sim_.now_ns() + sim::kNsPerSec, fault_end_ns_));
    if (progress_) progress_(sim_.now_ns(), end_ns_);
  }
  if (end_ns_ > fault_end_ns_) liveness_phase();
  for (uint64_t waits = 0; restarting_ || sim_.live_fibers("node") > 0; ++waits) {
    if (waits == kWaitsForNodeMax) {  // the node never stops: report who is stuck where
      std::string detail = "the node's fibers did not end within " + std::to_string(kWaitsForNodeMax / 1000) + " virtual s of the end; live:";
      for (const auto& b : sim_.live_fiber_report()) detail += " " + b.name + " (" + b.waits_on + ")";
      violation(properties::Property::kLiveness, detail);
      return;
    }
    sim_.sleep_for(sim::kNsPerMs);
  }
  final_checks();
}

void World::start_until_up() {
  for (int attempt = 1; !start_node(); ++attempt) {
    if (node_dead_) return;
    after_failed_start();
    if (attempt == kMaxStartAttempts) {  // a node that never comes back must not pass silently
      violation(properties::Property::kRecoverySucceeds, "the node did not start in " + std::to_string(kMaxStartAttempts) + " attempts");
      node_dead_ = true;
      return;
    }
    sim_.sleep_for(scenario_.cost.restart_ns);
  }
}

bool World::start_node() {
  system_->before_open();
  // Only a restore may open with WiredTiger.backup present; a restarting node must do a crash
  // recovery, or it recreates its metadata from a backup that began long ago (the sentinel's job).
  if (disk_.exists("WiredTiger.backup")) {
    violation(properties::Property::kSentinelRecovery, "the node is restarting with a stale WiredTiger.backup: a hot-backup restore instead of crash recovery");
  }
  // Counted, not taken from one drain: a commit observer drains fired faults inside the calls.
  const uint64_t io_errors_before_open = io_errors_fired_;
  // Every attempt is a generation: one that fails (or crashes in recovery) leaves its number used.
  trace_->event(sim_.now_ns(), "node", "open_started", {{"generation", node_->generation() + 1}});
  const int ret = node_->open();
  drain_wt_messages();
  drain_fired_faults();
  const bool io_error_during_open = io_errors_fired_ > io_errors_before_open;
  if (node_->fenced()) reached(properties::Marker::kCrashDuringRecovery);
  if (node_->fenced() && ret == 0) return false;  // crashed during recovery: try again
  const bool disk_full = disk_.capacity() != faults::Disk::kUnlimited;
  if (ret != 0 && (classify_failed_start(ret, "wiredtiger_open") || io_error_during_open || disk_full)) {
    // A device that refuses I/O for good, an injected I/O error or a full disk failed this
    // attempt; an administrator would restart the node again (after a power cycle, after freeing space).
    trace_->event(sim_.now_ns(), "node", "open_failed", {{"code", ret}, {"error", wiredtiger_strerror(ret)}, {"retry", true}, {"generation", node_->generation()}});
    return false;
  }
  if (ret != 0) {
    trace_->event(sim_.now_ns(), "node", "open_failed", {{"code", ret}, {"error", wiredtiger_strerror(ret)}, {"generation", node_->generation()}});
    refused_or_violated(properties::Property::kRecoverySucceeds, std::string("wiredtiger_open: ") + wiredtiger_strerror(ret));
    node_dead_ = true;
    return false;
  }
  trace_->event(sim_.now_ns(), "node", "started", {{"generation", node_->generation()}});
  const uint64_t io_errors_before_schema = io_errors_fired_;
  const int opened = system_->open(node_->conn());
  drain_wt_messages();
  drain_fired_faults();
  const bool io_error_during_schema = io_errors_fired_ > io_errors_before_schema;
  if (node_->fenced()) return false;
  if (opened != 0 && (classify_failed_start(opened, "opening the schema") || io_error_during_schema)) {
    trace_->event(sim_.now_ns(), "node", "open_failed", {{"code", opened}, {"error", wiredtiger_strerror(opened)}, {"stage", "schema"}, {"retry", true}, {"generation", node_->generation()}});
    node_->fence();
    return false;
  }
  if (opened != 0) {
    refused_or_violated(properties::Property::kRecoverySucceeds, std::string("opening the schema: ") + wiredtiger_strerror(opened));
    node_dead_ = true;
    return false;
  }
  if (node_->generation() > 1 || stats_.crashes > 0) {
    check_recovered("recovery");
    if (node_->fenced()) return false;
    end_soon_after_recovery();
  }
  system_->after_open(node_->conn());
  drain_wt_messages();
  if (node_->fenced()) return false;
  spawn_node_actors();
  return true;
}

// What the crashing disk operation was part of: coverage of the places storage engines break.
void World::note_crash_point(faults::FsOp op, const std::string& file) {
  if (sim::wt_threads::in_eviction() || sim_.current_or_main().name.rfind("wt:evict", 0) == 0) reached(properties::Marker::kCrashDuringEviction);
  if (checkpoint_running_) reached(properties::Marker::kCrashDuringCheckpoint);
  const bool log_file = file.rfind("WiredTigerLog.", 0) == 0 || file.rfind("WiredTigerTmplog.", 0) == 0;
  const bool later_log = log_file && file.size() > 14 && std::strtoull(file.c_str() + file.find('.') + 1, nullptr, 10) > 1;
  const bool switching = later_log && (op == faults::FsOp::kCreate || op == faults::FsOp::kRename);
  if (switching || sim_.current_or_main().name == "wt:log-close-server") reached(properties::Marker::kCrashDuringLogSwitch);
}

void World::end_soon_after_recovery() {
  if (!scenario_.end_after_recovery_ns || ended_early_) return;
  const sim::Nanos fault_end_ns = sim_.now_ns() + *scenario_.end_after_recovery_ns;
  if (fault_end_ns >= fault_end_ns_) return;
  ended_early_ = true;
  end_ns_ -= fault_end_ns_ - fault_end_ns;  // the liveness phase keeps its length
  fault_end_ns_ = fault_end_ns;
  assert(end_ns_ >= fault_end_ns_ && fault_end_ns_ >= sim_.now_ns());
  const size_t woken = sim_.cut_sleeps(end_ns_);
  trace_->event(sim_.now_ns(), "world", "run_shortened",
                {{"fault_end_ms", fault_end_ns_ / sim::kNsPerMs}, {"end_ms", end_ns_ / sim::kNsPerMs}, {"sleeps_cut", woken}});
}

void World::check_recovered(const char* when) {
  models::KvState state;
  int ret = system_->read_state(node_->conn(), &state);
  drain_wt_messages();
  if (node_->fenced()) return;
  if (ret != 0) {
    refused_or_violated(properties::Property::kRecoverySucceeds, std::string("reading after recovery: ") + wiredtiger_strerror(ret));
    return;
  }
  models::RecoveryCheck details;
  auto found = properties::check_recovered_state(model_, state, sim_.now_ns(), &details);
  ++stats_.recoveries;
  nlohmann::json check = {{"when", when}, {"keys", state.size()}, {"cut", details.cut},
                          {"durable_point", details.durable_point}, {"lost_acked", details.lost_acked},
                          {"ok", details.ok}, {"state_digest", History::state_digest(state)},
                          {"in_doubt_applied", details.in_doubt_applied}};
  for (const auto& m : details.mismatches) {
    check["mismatches"].push_back({{"key", m.key}, {"expected", m.expected}, {"found", m.found}});
  }
  history_->close_fenced();
  const uint64_t check_index = trace_->event(sim_.now_ns(), "checker", "recovery_check", check);
  if (details.ok && details.lost_acked > 0) {
    reached(properties::Marker::kUnsyncedCommitsLost);
    if (last_crash_mode_ == faults::CrashMode::kTornPrefix) reached(properties::Marker::kTornLogTailRecovered);
  }
  for (auto& v : found) {
    violation(corruption_injected() ? properties::Property::kCorruptionDetectedOrHarmless : v.property, v.detail, check_index);
  }
  history_->rebased(std::move(state));
  report_validation(when);
}

void World::report_validation(const char* when) {
  auto problems = system_->validate(node_->conn());
  drain_wt_messages();
  if (node_->fenced()) return;
  // An injected transient I/O error that hit the validation itself (verify reading a page:
  // swarm_documents seed 265) says nothing about the data: validate once more, the error spent.
  const bool fired = drain_fired_faults();
  if (!problems.empty() && !injector_.active_sticky_errors().empty()) {  // nothing can be read back
    verdict_->classify("device_refuses_io", std::string(when) + ": validation failed (" + problems.front().second +
                                      ") while the device refuses I/O (" + injector_.active_sticky_errors().front() + ")");
    problems.clear();  // the engine's own findings below still count
  }
  if (fired && !problems.empty()) {
    trace_->event(sim_.now_ns(), "checker", "validation_retried", {{"when", when}, {"problems", problems.size()}});
    problems = system_->validate(node_->conn());
    drain_wt_messages();
    drain_fired_faults();
    if (node_->fenced()) return;
  }
  for (const auto& [property, detail] : problems) {
    // WiredTiger's verify failing on damaged data is detection; anything else is damage let through.
    if (property == properties::Property::kTablesVerify) {
      refused_or_violated(property, std::string(when) + ": " + detail);
    } else {
      violation(corruption_injected() ? properties::Property::kCorruptionDetectedOrHarmless : property, std::string(when) + ": " + detail);
    }
  }
  for (const auto& [property, detail] : system_->take_findings()) violation(property, detail);
}

void World::crash_node(faults::CrashMode mode, bool power_loss, const std::string& cause) {
  if (node_->fs() == nullptr || node_->fenced()) return;  // already down
  ++stats_.crashes;
  for (const properties::Marker marker : system_->busy_phases()) reached(marker);
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
  trace_->event(sim_.now_ns(), "faults", "crash",
                {{"cause", cause}, {"mode", power_loss ? faults::to_string(mode) : "process_only"},
                 {"generation", node_->generation()}, {"unsynced", files}});
  history_->crashed();  // after the crash event: what it cut completes as info
  sim_.cancel_group("node");
  if (!restarting_) {
    restarting_ = true;
    sim_.spawn("restarter", "world", [this] { restarter(); });
  }
}

void World::restarter() {
  // Sleep, not yield: a fiber still inside WiredTiger may wait for virtual time to pass.
  const sim::Nanos start_ns = sim_.now_ns();
  uint64_t waits = 0;
  for (; sim_.live_fibers("node") > 0 && waits < kWaitsForNodeMax; ++waits) sim_.sleep_for(sim::kNsPerUs);
  if (waits == kWaitsForNodeMax) {
    freeze_stuck_node_fibers();
    end_ns_ += sim_.now_ns() - start_ns;  // as for an abandoned close (close_crashed_node)
  }
  assert(sim_.live_fibers("node") == 0);
  drain_wt_messages();
  close_crashed_node();
  sim_.sleep_for(scenario_.cost.restart_ns);
  start_until_up();
  restarting_ = false;
}

void World::freeze_stuck_node_fibers() {
  // Cancelled fibers that never left WiredTiger: they wait inside the dead node's connection for
  // what will never come (docs/findings.md, finding 10). The killed process they stand for is gone.
  nlohmann::json names = nlohmann::json::array();
  for (const sim::BlockedFiber& b : sim_.live_fiber_report()) {
    if (b.group != "node") continue;
    sim::FiberRecord* fiber = sim_.fiber_by_id(b.id);
    assert(fiber != nullptr && fiber->cancel);
    names.push_back(b.name + " (" + b.waits_on + ")");
    sim::wt_threads::freeze_inside_wiredtiger(*fiber);
    if (auto it = clients_.find(b.name); it != clients_.end()) it->second.finished = true;  // as a cancelled client
  }
  assert(!names.empty());
  trace_->event(sim_.now_ns(), "node", "fibers_frozen", {{"generation", node_->generation()}, {"fibers", names}});
}

void World::close_crashed_node() {
  system_->close();
  const sim::Nanos start_ns = sim_.now_ns();
  if (node_->close_fenced()) {
    // The killed process's close hung in WiredTiger (docs/findings.md, finding 10). It stands for nothing
    // real, so the run's end moves by the time it took: liveness is not judged on it.
    const sim::Nanos stalled_ns = sim_.now_ns() - start_ns;
    end_ns_ += stalled_ns;
    trace_->event(sim_.now_ns(), "node", "connection_abandoned",
                  {{"generation", node_->generation()}, {"stalled_ms", stalled_ns / sim::kNsPerMs}});
  }
  drain_wt_messages();
}

void World::end_fault_phase() {
  if (!injector_.enabled()) return;  // already ended
  injector_.set_enabled(false);
  stats_.fault_phase_disk_ops = injector_.mutating_ops();
}

void World::final_checks() {
  end_fault_phase();
  if (node_dead_ || !node_->up()) return;
  models::KvState state;
  if (system_->read_state(node_->conn(), &state) != 0) {
    violation(properties::Property::kFinalStateMatches, "reading the final state failed");
    return;
  }
  const auto v = properties::check_final_state(model_, state, sim_.now_ns());
  history_->close_fenced();
  const uint64_t check_index =
      trace_->event(sim_.now_ns(), "checker", "final_check", {{"keys", state.size()}, {"state_digest", History::state_digest(state)}});
  if (v) violation(v->property, v->detail, check_index);
  report_validation("final");
  system_->close();
  const int closed = node_->close_clean();
  drain_wt_messages();
  if (closed != 0) violation(properties::Property::kFinalStateMatches, std::string("clean close: ") + wiredtiger_strerror(closed));
  // A clean shutdown must reopen to exactly the same state.
  history_->rebased(std::move(state));
  if (node_->open() != 0) {
    refused_or_violated(properties::Property::kRecoverySucceeds, "reopen after clean shutdown failed");
    return;
  }
  if (system_->open(node_->conn()) == 0) check_recovered("clean_reopen");
  system_->close();
  node_->close_clean();
  drain_wt_messages();
}

// Every message, WiredTiger's own threads' included: they run on the seeded scheduler, so what
// they print and when is part of the run.
void World::drain_wt_messages() {
  for (std::string& m : node_->take_messages()) {
    trace_->event(sim_.now_ns(), "wiredtiger", "message", {{"text", std::move(m)}});
  }
  for (const int error : sim::wt_threads::take_log_switch_wedges()) {
    verdict_->classify("log_switch_wedged", std::string("WiredTiger 3.2.1's log cannot switch files after ") +
                                      wiredtiger_strerror(error) + "; the node was halted and restarts (docs/findings.md, finding 24)");
  }
}

sim::Nanos World::disk_cost_ns(faults::FsOp op, uint64_t bytes) const {
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

bool World::drain_fired_faults() {
  bool io_error = false;
  for (const faults::FiredFault& f : injector_.take_fired()) {
    io_error |= f.what.rfind("EIO", 0) == 0;
    if (f.what.rfind("EIO", 0) == 0) reached(properties::Marker::kIoErrorInjected), ++io_errors_fired_;
    trace_->event(sim_.now_ns(), "faults", "fired",
                  {{"plan_index", f.plan_index}, {"disk_op", f.disk_op}, {"file", f.file}, {"what", f.what}, {"actor", f.actor}});
  }
  return io_error;
}

void World::after_wt_call() {
  drain_fired_faults();
  if (node_->fenced()) throw sim::Cancelled{};
}

void World::refuse_if_fenced() const {
  if (node_->fenced()) throw sim::Cancelled{};
}

uint64_t World::file_bytes(const std::string& name) const {
  for (const faults::FileInfo& f : disk_.files()) {
    if (f.name == name) return f.current_bytes;
  }
  return 0;
}

bool World::corruption_injected() const {
  for (const auto& f : injector_.plan().faults) {
    if (f.kind == faults::FaultKind::kBitFlip || f.kind == faults::FaultKind::kMisdirectedWrite) return true;
  }
  return false;
}

}  // namespace wtsim::world
