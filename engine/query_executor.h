#pragma once
// Reads: find with IDHACK / IXSCAN+FETCH / COLLSCAN plans, yielding every 128 works or 10 virtual
// ms (locks released, snapshot abandoned, cursor repositioned), explain("executionStats"), and
// the scans that updates, deletes and index builds use.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "engine/engine_state.h"
#include "engine/operation_context.h"

namespace wtsim::engine {

class QueryExecutor {
 public:
  explicit QueryExecutor(EngineState& state) : state_(state) {}

  FindResult find(OperationContext& op, const std::string& ns, const FindRequest& request);
  // Every document matching `filter`, up to `limit` (0: all), as (record key, document), in the
  // caller's transaction. No locks, no yields, no metrics: an index build's scan.
  int matching_records(OperationContext& op, const CollectionSpec& coll, const Document& filter, uint64_t limit,
                       std::vector<std::pair<std::string, Document>>* out);
  // The record keys an update or delete will visit, in a snapshot of their own, under an
  // intent lock and yielding as a find does. `user_op` false: a TTL scan (not in the query
  // executor's metrics, which MongoDB counts apart).
  TargetKeys target_keys(OperationContext& op, const CollectionSpec& coll, const Document& filter, bool just_one,
                         bool user_op = true);

 private:
  EngineState& state_;
};

}  // namespace wtsim::engine
