#pragma once
// What runs on a replica set member other than the primary: its node actors (journal flusher,
// checkpointer: world/node_host_actors.cpp), its oplog fetcher and applier, its oplog trimmer,
// and a TTL monitor that, as a secondary's in MongoDB, passes over the TTL indexes and deletes
// nothing (a secondary's expired documents go when the primary's deletes arrive in its oplog).
// It takes no client writes. The member backup.member names takes the backup account's hot
// backup (DocSystem, world/hot_backup_actor.h) while it applies, as the accounts' hidden members do.
//
// The fetcher asks its sync source (world/sync_source.h) for the entries above the last one this
// member applied (the newest entry of its own oplog, which takes the source's ts and term),
// makes its catalog match the source's, and applies the entries in order, each in its own
// WiredTiger transaction with its own oplog entry. If the source no longer has that entry (it
// lost it in a crash, or a new primary never had it), the member has diverged and rolls back
// (world/secondary_rollback.h). A member that cannot roll back, or has fallen off the source's
// oplog (too stale), needs a resync, which is not simulated: it stops applying, says so in the
// trace, and is left out of the convergence check.
//
// With elections every member runs a subclass (world/electable_system.cpp) that may become
// primary: the hooks below stop the fetcher while it is one.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "properties/min_valid_ledger.h"
#include "world/doc_system.h"
#include "world/sync_source.h"
#include "world/ttl_monitor.h"

namespace wtsim::world {

class SecondarySystem : public DocSystem {
 public:
  SecondarySystem(RunContext& run, NodeContext& host, SyncSource& source);

  void spawn_actors(const std::string& suffix) override;
  std::vector<properties::Marker> busy_phases() const override;
  // The applies of updates (what orders a hot backup's copy: world/hot_backup_actor.h).
  uint64_t before_commit(const std::vector<engine::DocWrite>& writes, bool durable) override;
  // Caught up once since the faults stopped (a batch fetched after then, applied whole), and a
  // backup it runs finished or abandoned.
  std::string liveness_pending(int64_t since_ns) const override;
  std::string convergence_exempt() const override { return exempt_; }
  // After the run's phases, the node's fibers gone: fetches and applies (rolling back if it
  // must) until a batch comes back empty, so that the member holds what the primary holds. A
  // member that needs a resync has nothing to catch up with: the convergence check leaves it out.
  bool catch_up() override;
  // Also judges min_valid_kept on the raw minValid table while a rollback's point is owed.
  int open(WT_CONNECTION* conn) override;
  // Below its minValid (the engine's, as MongoDB's member goes by its own): RECOVERING, it answers
  // no read and stands for no election. A read it answers is judged on the ledger.
  bool recovering() const override { return engine_ != nullptr && engine_->min_valid().has_value(); }
  std::string read_refusal() override;

 protected:
  // The collections and indexes arrive with replication (the primary's catalog).
  engine::Status create_schema(engine::OperationContext&) override { return {}; }
  // Before each round of the fetcher: false to skip fetching for now (a primary fetches nothing).
  virtual bool fetching(engine::OperationContext&) { return true; }
  // While a fetch waits for its answer: false to stop waiting (an elected member fetches no more).
  virtual bool fetching_wanted() const { return true; }
  // Just before a fetch asks the source (the fetch's position must be durable with elections).
  virtual void before_fetch(engine::OperationContext&) {}
  // The newest entry of this member's own oplog (ts 0: none yet).
  engine::OplogEntry last_applied(engine::OperationContext& op);
  bool stopped() const { return !exempt_.empty(); }
  // Whether the TTL monitor's pass beginning now deletes (a secondary's never does).
  virtual bool ttl_primary() const { return false; }
  const TtlMonitor& ttl_monitor() const { return monitor_; }
  // min_valid_kept: the member is about to `what` (become primary, answer a read).
  void judge_serving(const std::string& what);

 private:
  void fetcher();
  // One round: the entries above this member's last applied one, applied (after a rollback, if
  // the member diverged). How many; nullopt if the source did not answer or the member stopped.
  std::optional<size_t> fetch_and_apply(engine::OperationContext& op);
  // The member needs a resync (not simulated): it applies nothing more.
  std::nullopt_t stop(const char* kind, uint64_t applied_ts, std::string why);
  void event(const char* kind, nlohmann::json details);
  // Creates what the source has and this member lacks, drops indexes the source dropped, and
  // follows collMod's expireAfterSeconds.
  void match_catalog(engine::OperationContext& op, const std::map<std::string, engine::CollectionSpec>& source);
  void match_index(engine::OperationContext& op, const std::string& ns, const engine::IndexSpec& index);
  template <class Call>
  void ddl(const char* what, Call&& call);
  bool runs_ttl_monitor() const;

  SyncSource& source_;
  std::string exempt_;  // over every generation: why the member stopped (it needs a resync)
  sim::Nanos applied_fetch_ns_ = -1;  // when the last wholly applied batch was asked for
  TtlSpec ttl_;
  TtlMonitor monitor_;
  properties::MinValidLedger min_valid_ledger_;  // over every generation: what its rollbacks owe
};

}  // namespace wtsim::world
