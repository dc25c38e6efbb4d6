// What runs on a replica set member other than the primary: its node actors (journal flusher,
// checkpointer: world/node_host_actors.cpp), its oplog fetcher and applier, its oplog trimmer,
// and a TTL monitor that, as a secondary's in MongoDB, passes over the TTL indexes and deletes
// nothing (a secondary's expired documents go when the primary's deletes arrive in its oplog).
// It takes no client writes. The member backup.member names takes the backup account's hot
// backup (DocSystem, world/hot_backup_actor.h) while it applies, as the accounts' hidden members do.
//
// The fetcher asks the primary (world/sync_source.h) for the entries above the last one this
// member applied (the newest entry of its own oplog, which takes the source's ts and term),
// makes its catalog match the primary's, and applies the entries in order, each in its own
// WiredTiger transaction with its own oplog entry. If the primary no longer has that entry (it
// lost it in a crash), the member has diverged and rolls back (world/secondary_rollback.h). A
// member that cannot roll back, or has fallen off the primary's oplog (too stale), needs a
// resync, which is not simulated: it stops applying, says so in the trace, and is left out of
// the convergence check.
#include "world/doc_system.h"
#include "world/secondary_rollback.h"
#include "world/sync_source.h"
#include "world/ttl_monitor.h"

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
  return {c.capped_max_docs, c.padded, c.power_of_2_sizes, c.no_padding, c.padding_rules};
}

class SecondarySystem final : public DocSystem {
 public:
  SecondarySystem(RunContext& run, NodeContext& host, SyncSource& source) : DocSystem(run, host), source_(source) {}

  void spawn_actors(const std::string& suffix) override {
    if (runs_ttl_monitor()) {
      run_.sim().spawn("ttl-monitor" + suffix, host_.fiber_group(), [this] {
        monitor_.run(engine_, [this](properties::Property p, const std::string& detail) { finding(p, detail); });
      });
    }
    run_.sim().spawn("oplog-fetcher" + suffix, host_.fiber_group(), [this] { fetcher(); });
    spawn_backup(suffix);
    spawn_oplog_trimmer(suffix);
  }

  std::vector<properties::Marker> busy_phases() const override {
    std::vector<properties::Marker> phases = DocSystem::busy_phases();
    if (monitor_.in_pass()) phases.push_back(properties::Marker::kCrashDuringTtlPass);
    return phases;
  }

  // The applies of updates (what orders a hot backup's copy: world/hot_backup_actor.h).
  uint64_t before_commit(const std::vector<engine::DocWrite>& writes, bool durable) override {
    for (const engine::DocWrite& w : writes) {
      if (w.pre_image != nullptr && w.post_image != nullptr) ++rewrites_[std::string(w.ns)];
    }
    return DocSystem::before_commit(writes, durable);
  }

  // Caught up once since the faults stopped (a batch fetched after then, applied whole), and a
  // backup it runs finished or abandoned.
  std::string liveness_pending(int64_t since_ns) const override {
    if (const std::string backup = backup_pending(); !backup.empty()) return backup;
    if (!exempt_.empty() || applied_fetch_ns_ >= since_ns) return "";
    return "member " + std::to_string(host_.member()) + " has applied no batch fetched since the faults stopped";
  }

  std::string convergence_exempt() const override { return exempt_; }

  // After the run's phases, the node's fibers gone: fetches and applies (rolling back if it
  // must) until a batch comes back empty, so that the member holds what the primary holds. A
  // member that needs a resync has nothing to catch up with: the convergence check leaves it out.
  bool catch_up() override {
    if (!exempt_.empty()) return true;
    engine::OperationContext op(host_.node().conn());
    for (uint64_t round = 0; round < kCatchUpRoundsMax && exempt_.empty(); ++round) {
      const std::optional<size_t> applied = fetch_and_apply(op);
      if (!applied) return false;
      if (*applied == 0) return true;
    }
    return false;
  }

 protected:
  // The collections and indexes arrive with replication (the primary's catalog).
  engine::Status create_schema(engine::OperationContext&) override { return {}; }

 private:
  void fetcher() {
    engine::OperationContext op(host_.node().conn());
    sim::Simulator& sim = run_.sim();
    while (sim.now_ns() < run_.end_ns() && exempt_.empty()) {
      const std::optional<size_t> applied = fetch_and_apply(op);
      if (!applied) sim.sleep_for(kRetryNs);
      if (applied && *applied == 0) sim.sleep_for(kIdleNs);
    }
  }

  // One round: the entries above this member's last applied one, applied (after a rollback, if
  // the member diverged). How many; nullopt if the primary did not answer or the member stopped.
  std::optional<size_t> fetch_and_apply(engine::OperationContext& op) {
    const sim::Nanos round_ns = run_.sim().now_ns();
    const engine::OplogEntry last = last_applied(op);
    SyncBatch batch = source_.fetch(host_.member(), last.ts, last.term);
    if (batch.outcome == SyncBatch::Outcome::kUnreachable) return std::nullopt;
    if (batch.outcome == SyncBatch::Outcome::kTooStale) return stop("too_stale", last.ts, "too stale: " + batch.why + "; it needs a resync");
    if (batch.outcome == SyncBatch::Outcome::kDiverged) {
      event("rollback_required", {{"applied_ts", last.ts}, {"why", batch.why}});
      const RollbackResult r = Rollback(run_, host_, *engine_, op, source_, [&](const auto& catalog) { match_catalog(op, catalog); }).run();
      if (r.outcome == RollbackResult::Outcome::kImpossible) return stop("rollback_impossible", last.ts, "cannot roll back: " + r.why);
      if (r.outcome == RollbackResult::Outcome::kRetry) event("rollback_retry", {{"why", r.why}});
      return std::nullopt;
    }
    match_catalog(op, batch.catalog);
    for (const engine::OplogEntry& entry : batch.entries) {
      const engine::Status s = host_.node_call("apply", [&] { return engine_->apply_oplog_entry(op, entry); });
      if (s.code != engine::ErrorCode::kOk) {
        finding(properties::Property::kReplicasConverge, "member " + std::to_string(host_.member()) + ": applying the entry at ts " +
                                                             std::to_string(entry.ts) + " failed: code " + std::to_string(static_cast<int>(s.code)));
      }
    }
    host_.node_call("note_applied", [&] { return engine_->note_applied(op); });
    applied_fetch_ns_ = round_ns;
    return batch.entries.size();
  }

  // The member needs a resync (not simulated): it applies nothing more.
  std::nullopt_t stop(const char* kind, uint64_t applied_ts, std::string why) {
    exempt_ = std::move(why);
    event(kind, {{"applied_ts", applied_ts}, {"why", exempt_}});
    return std::nullopt;
  }

  void event(const char* kind, nlohmann::json details) {
    details["member"] = host_.member();
    run_.trace().event(run_.sim().now_ns(), run_.sim().current_or_main().name, kind, std::move(details));
  }

  // The newest entry of this member's own oplog (ts 0: none yet).
  engine::OplogEntry last_applied(engine::OperationContext& op) {
    const uint64_t next = engine_->next_oplog_ts();
    std::vector<engine::OplogEntry> last;
    if (next >= 2) host_.node_call("read_last_applied", [&] { return engine_->read_oplog_after(op, next - 2, 1, &last); });
    return last.empty() ? engine::OplogEntry{} : last.front();
  }

  // Creates what the primary has and this member lacks, drops indexes the primary dropped, and
  // follows collMod's expireAfterSeconds.
  void match_catalog(engine::OperationContext& op, const std::map<std::string, engine::CollectionSpec>& primary) {
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

  void match_index(engine::OperationContext& op, const std::string& ns, const engine::IndexSpec& index) {
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

  template <class Call>
  void ddl(const char* what, Call&& call) {
    const engine::Status s = host_.node_call(what, std::forward<Call>(call));
    if (s.code != engine::ErrorCode::kOk) {
      finding(properties::Property::kReplicasConverge,
              "member " + std::to_string(host_.member()) + ": " + what + " to match the primary's catalog failed: code " +
                  std::to_string(static_cast<int>(s.code)));
    }
  }

  bool runs_ttl_monitor() const {
    const WorkloadKind kind = run_.scenario().workload.kind;
    const TtlSpec& ttl = run_.scenario().ttl;
    return (kind == WorkloadKind::kTimeSeries || kind == WorkloadKind::kScript) && ttl.mode == TtlMode::kIndex;
  }

  SyncSource& source_;
  std::string exempt_;  // over every generation: why the member stopped (it needs a resync)
  sim::Nanos applied_fetch_ns_ = -1;  // when the last wholly applied batch was asked for
  TtlSpec ttl_ = as_secondary(run_.scenario().ttl);
  TtlMonitor monitor_{run_, host_, ttl_};
};

}  // namespace

std::unique_ptr<System> make_secondary_system(RunContext& run, NodeContext& host, SyncSource& source) {
  return std::make_unique<SecondarySystem>(run, host, source);
}

}  // namespace wtsim::world
