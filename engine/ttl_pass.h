#pragma once
// The TTL monitor's pass (MongoDB 3.0 ttl.cpp): which indexes qualify, the bound, and the
// deletes, which go through the ordinary delete path (oplog entries, locks, write-conflict
// retries, yields) but count in metrics.ttl instead of opcounters and metrics.document. The
// monitor that runs a pass every ttlMonitorSleepSecs is the world's (world/ttl_monitor.h).
#include <cstdint>

#include "engine/engine_state.h"
#include "engine/operation_context.h"
#include "engine/query_executor.h"
#include "engine/write_unit.h"

namespace wtsim::engine {

class TtlPass {
 public:
  TtlPass(EngineState& state, QueryExecutor& queries, WriteUnit& writes) : state_(state), queries_(queries), writes_(writes) {}

  // Every index with a numeric expireAfterSeconds and a single-field key, collections in sorted
  // order, deletes documents whose indexed Date is below now - expireAfterSeconds, in index
  // order. On a secondary the pass is counted and nothing is deleted.
  TtlPassResult run(OperationContext& op, bool primary);

 private:
  // Deletes the index's expired documents; adds them to `deleted`.
  Status delete_expired(OperationContext& op, const CollectionSpec& coll, const IndexSpec& index, int64_t bound_ms,
                        uint64_t* deleted);

  EngineState& state_;
  QueryExecutor& queries_;
  WriteUnit& writes_;
};

}  // namespace wtsim::engine
