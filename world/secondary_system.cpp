// The replica set member that applies its sync source's oplog: world/secondary_system.h.
#include "world/secondary_system.h"

#include "world/secondary_rollback.h"

namespace wtsim::world {
namespace {

constexpr sim::Nanos kIdleNs = 50 * sim::kNsPerMs;    // after an empty batch (MongoDB's awaitData)
constexpr sim::Nanos kRetryNs = 500 * sim::kNsPerMs;  // after no answer
constexpr uint64_t kCatchUpRoundsMax = 10'000;        // the final catch-up's fetches

TtlSpec as_secondary(TtlSpec spec) {
  spec.primary = false;
  return spec;
}

engine::CollectionOptions options_of(const engine::CollectionSpec& c) {
  return {c.capped_max_docs, c.padded, c.clustered, c.power_of_2_sizes, c.no_padding, c.padding_rules};
}

}  // namespace

SecondarySystem::SecondarySystem(RunContext& run, NodeContext& host, SyncSource& source)
    : DocSystem(run, host), source_(source), ttl_(as_secondary(run.scenario().ttl)), monitor_(run, host, ttl_, [this] { return ttl_primary(); }) {}

void SecondarySystem::spawn_actors(const std::string& suffix) {
  if (runs_ttl_monitor()) {
    run_.sim().spawn("ttl-monitor" + suffix, host_.fiber_group(), [this] {
      monitor_.run(engine_, [this](properties::Property p, const std::string& detail) { finding(p, detail); });
    });
  }
  run_.sim().spawn("oplog-fetcher" + suffix, host_.fiber_group(), [this] { fetcher(); });
  spawn_backup(suffix);
  spawn_oplog_trimmer(suffix);
}

std::vector<properties::Marker> SecondarySystem::busy_phases() const {
  std::vector<properties::Marker> phases = DocSystem::busy_phases();
  if (monitor_.in_pass()) phases.push_back(properties::Marker::kCrashDuringTtlPass);
  return phases;
}

uint64_t SecondarySystem::before_commit(const std::vector<engine::DocWrite>& writes, bool durable) {
  for (const engine::DocWrite& w : writes) {
    if (w.pre_image != nullptr && w.post_image != nullptr) ++rewrites_[std::string(w.ns)];
  }
  return DocSystem::before_commit(writes, durable);
}

std::string SecondarySystem::liveness_pending(int64_t since_ns) const {
  if (const std::string backup = backup_pending(); !backup.empty()) return backup;
  if (!exempt_.empty() || applied_fetch_ns_ >= since_ns) return "";
  return "member " + std::to_string(host_.member()) + " has applied no batch fetched since the faults stopped";
}

bool SecondarySystem::catch_up() {
  if (!exempt_.empty()) return true;
  engine::OperationContext op(host_.node().conn());
  for (uint64_t round = 0; round < kCatchUpRoundsMax && exempt_.empty(); ++round) {
    const std::optional<size_t> applied = fetch_and_apply(op);
    if (!applied) return false;
    if (*applied == 0) return true;
  }
  return false;
}

void SecondarySystem::fetcher() {
  engine::OperationContext op(host_.node().conn());
  sim::Simulator& sim = run_.sim();
  while (sim.now_ns() < run_.end_ns() && exempt_.empty()) {
    if (!fetching(op)) {
      sim.sleep_for(kIdleNs);
      continue;
    }
    const std::optional<size_t> applied = fetch_and_apply(op);
    if (!applied) sim.sleep_for(kRetryNs);
    if (applied && *applied == 0) sim.sleep_for(kIdleNs);
  }
}

std::optional<size_t> SecondarySystem::fetch_and_apply(engine::OperationContext& op) {
  const sim::Nanos round_ns = run_.sim().now_ns();
  const engine::OplogEntry last = last_applied(op);
  before_fetch(op);
  SyncBatch batch = source_.fetch(host_.member(), last.ts, last.term, [this] { return !fetching_wanted(); });
  if (batch.outcome == SyncBatch::Outcome::kUnreachable) return std::nullopt;
  if (batch.outcome == SyncBatch::Outcome::kTooStale) return stop("too_stale", last.ts, "too stale: " + batch.why + "; it needs a resync");
  if (batch.outcome == SyncBatch::Outcome::kDiverged) {
    event("rollback_required", {{"applied_ts", last.ts}, {"why", batch.why}});
    const RollbackResult r =
        Rollback(run_, host_, *engine_, op, source_, min_valid_ledger_, [&](const auto& catalog) { match_catalog(op, catalog); }).run();
    if (r.outcome == RollbackResult::Outcome::kImpossible) return stop("rollback_impossible", last.ts, "cannot roll back: " + r.why);
    if (r.outcome == RollbackResult::Outcome::kRetry) event("rollback_retry", {{"why", r.why}});
    return std::nullopt;
  }
  match_catalog(op, batch.catalog);
  for (const engine::OplogEntry& entry : batch.entries) {
    if (entry.ts < engine_->next_oplog_ts()) {
      // A write of this member's own took the ts since the fetch (a secondary must write
      // nothing): the next round finds where the two oplogs part, and rolls back.
      event("apply_cut", {{"ts", entry.ts}, {"next_ts", engine_->next_oplog_ts()}});
      const CommitInFlight in_flight(host_);  // may clear minValid: a backup's release waits
      host_.node_call("note_applied", [&] { return engine_->note_applied(op); });
      return std::nullopt;
    }
    const engine::Status s = host_.node_call("apply", [&] { return engine_->apply_oplog_entry(op, entry); });
    if (s.code == engine::ErrorCode::kOk) min_valid_ledger_.applied(entry.ts);
    if (s.code != engine::ErrorCode::kOk) {
      finding(properties::Property::kReplicasConverge, "member " + std::to_string(host_.member()) + ": applying the entry at ts " +
                                                           std::to_string(entry.ts) + " failed: code " + std::to_string(static_cast<int>(s.code)));
    }
  }
  {
    const CommitInFlight in_flight(host_);
    host_.node_call("note_applied", [&] { return engine_->note_applied(op); });
  }
  applied_fetch_ns_ = round_ns;
  return batch.entries.size();
}

int SecondarySystem::open(WT_CONNECTION* conn) {
  const int ret = DocSystem::open(conn);
  if (ret != 0 || !min_valid_ledger_.owed_ts()) return ret;
  engine::OperationContext op(conn);
  std::optional<uint64_t> stored_ts;
  if (const int read = properties::read_min_valid_ts(op.session(), &stored_ts); read != 0) return read;
  if (auto f = min_valid_ledger_.check_start(stored_ts)) finding(f->first, f->second);
  return 0;
}

std::string SecondarySystem::read_refusal() {
  if (recovering()) return "NotMasterOrSecondary";
  judge_serving("answer a read");
  return "";
}

void SecondarySystem::judge_serving(const std::string& what) {
  if (auto f = min_valid_ledger_.check_serving(what)) finding(f->first, "member " + std::to_string(host_.member()) + ": " + f->second);
}

std::nullopt_t SecondarySystem::stop(const char* kind, uint64_t applied_ts, std::string why) {
  exempt_ = std::move(why);
  event(kind, {{"applied_ts", applied_ts}, {"why", exempt_}});
  return std::nullopt;
}

void SecondarySystem::event(const char* kind, nlohmann::json details) {
  details["member"] = host_.member();
  run_.trace().event(run_.sim().now_ns(), run_.sim().current_or_main().name, kind, std::move(details));
}

engine::OplogEntry SecondarySystem::last_applied(engine::OperationContext& op) {
  const uint64_t next = engine_->next_oplog_ts();
  std::vector<engine::OplogEntry> last;
  if (next >= 2) host_.node_call("read_last_applied", [&] { return engine_->read_oplog_after(op, next - 2, 1, &last); });
  return last.empty() ? engine::OplogEntry{} : last.front();
}

template <class Call>
void SecondarySystem::ddl(const char* what, Call&& call) {
  const engine::Status s = host_.node_call(what, std::forward<Call>(call));
  if (s.code != engine::ErrorCode::kOk) {
    finding(properties::Property::kReplicasConverge,
            "member " + std::to_string(host_.member()) + ": " + what + " to match the primary's catalog failed: code " +
                std::to_string(static_cast<int>(s.code)));
  }
}

void SecondarySystem::match_catalog(engine::OperationContext& op, const std::map<std::string, engine::CollectionSpec>& primary) {
  for (const auto& [ns, spec] : primary) {
    if (engine_->catalog().find(ns) == nullptr) ddl("create_collection", [&] { return engine_->create_collection(op, ns, options_of(spec)); });
    for (const engine::IndexSpec& index : spec.indexes) match_index(op, ns, index);
    const engine::CollectionSpec* mine = engine_->catalog().find(ns);
    if (mine == nullptr) continue;
    std::vector<std::string> dropped;
    for (const engine::IndexSpec& index : mine->indexes) {
      if (!index.is_id() && spec.index(index.name) == nullptr) dropped.push_back(index.name);
    }
    for (const std::string& name : dropped) ddl("drop_index", [&] { return engine_->drop_index(op, ns, name); });
  }
}

void SecondarySystem::match_index(engine::OperationContext& op, const std::string& ns, const engine::IndexSpec& index) {
  const engine::CollectionSpec* mine = engine_->catalog().find(ns);
  if (mine == nullptr || index.is_id()) return;
  const engine::IndexSpec* have = mine->index(index.name);
  if (have == nullptr) {
    engine::IndexSpec copy = index;
    copy.table.clear();  // this member's own table
    ddl("create_index", [&] { return engine_->create_index(op, ns, copy); });
  } else if (have->expire_after_seconds != index.expire_after_seconds) {
    ddl("coll_mod", [&] { return engine_->set_expire_after(op, ns, index.name, index.expire_after_seconds); });
  }
}

bool SecondarySystem::runs_ttl_monitor() const {
  const WorkloadKind kind = run_.scenario().workload.kind;
  const TtlSpec& ttl = run_.scenario().ttl;
  const bool indexed = kind == WorkloadKind::kTimeSeries || kind == WorkloadKind::kScript || run_.scenario().workload.ttl_index;
  return indexed && ttl.mode == TtlMode::kIndex;
}

std::unique_ptr<System> make_secondary_system(RunContext& run, NodeContext& host, SyncSource& source) {
  return std::make_unique<SecondarySystem>(run, host, source);
}

}  // namespace wtsim::world
