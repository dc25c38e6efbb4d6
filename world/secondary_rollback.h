#pragma once
// A diverged member's rollback, as MongoDB's rollback via refetch (3.x): it finds the common
// point of its oplog and the primary's (the newest entry with the same ts and term in both),
// collects the documents its entries above that point touched, asks the primary for its current
// version of each, puts them back (deleting those the primary does not have), and drops its
// entries above the common point. The engine's steps (engine.h) make each part safe to redo after
// a crash; the applier then replays the primary's entries from the common point, and the data is
// consistent again once it reaches minValid (engine/min_valid.h).
//
// Why refetch and not WiredTiger's rollback_to_stable: the engine commits without WiredTiger
// timestamps (a single node's files and trace hashes stay what they are), and rollback_to_stable
// rolls a whole connection back to a stable timestamp, which would need every commit of every
// member timestamped and a stable point kept behind the majority commit point. Refetch needs only
// the oplog, which every member has. README: "Replica sets" says the same to users.
#include <functional>
#include <map>
#include <string>

#include "engine/engine.h"
#include "properties/min_valid_ledger.h"
#include "world/node_context.h"
#include "world/run_context.h"
#include "world/sync_source.h"

namespace wtsim::world {

struct RollbackResult {
  enum class Outcome { kDone, kRetry, kImpossible };
  Outcome outcome = Outcome::kDone;
  std::string why;  // kRetry: what failed (the primary did not answer); kImpossible: why (a resync is needed)
};

class Rollback {
 public:
  // More than this many divergent entries: too much to roll back (MongoDB has a size limit too).
  static constexpr size_t kEntriesMax = 10'000;
  static_assert(kEntriesMax <= SyncSource::kRefetchDocumentsMax);
  using CatalogMatcher = std::function<void(const std::map<std::string, engine::CollectionSpec>&)>;

  // `ledger` learns the point of each minValid the rollback makes durable (min_valid_kept).
  Rollback(RunContext& run, NodeContext& host, engine::DocumentEngine& engine, engine::OperationContext& op,
           SyncSource& source, properties::MinValidLedger& ledger, CatalogMatcher match_catalog)
      : run_(run), host_(host), engine_(engine), op_(op), source_(source), ledger_(ledger), match_catalog_(std::move(match_catalog)) {}

  RollbackResult run();

 private:
  // Sets common_ts_ and touched_; a result when the rollback cannot go on.
  std::optional<RollbackResult> find_common_point();
  // Walks this member's entries in [lo_ts, hi_ts] newest first against the primary's terms:
  // true once the common point is found.
  bool walk_window(uint64_t lo_ts, uint64_t hi_ts, const OplogTerms& theirs, std::optional<RollbackResult>* stop);
  void restore(const std::vector<DocumentKey>& keys, const Refetched& refetched);
  RollbackResult retry(std::string why) const { return {RollbackResult::Outcome::kRetry, std::move(why)}; }
  RollbackResult impossible(std::string why) const { return {RollbackResult::Outcome::kImpossible, std::move(why)}; }

  RunContext& run_;
  NodeContext& host_;
  engine::DocumentEngine& engine_;
  engine::OperationContext& op_;
  SyncSource& source_;
  properties::MinValidLedger& ledger_;
  CatalogMatcher match_catalog_;
  uint64_t common_ts_ = 0;
  size_t entries_ = 0;  // divergent entries walked
  std::map<std::pair<std::string, std::string>, engine::Document> touched_;  // (ns, _id as JSON) -> _id
};

}  // namespace wtsim::world
