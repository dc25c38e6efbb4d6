#pragma once
// The oplog: one entry per document write, {ns, o, op, ts} as MongoDB's, written in the same
// WiredTiger transaction as the record, and trimmed from the oldest end past a bound.
#include <cstdint>
#include <vector>

#include "engine/catalog.h"
#include "engine/document.h"
#include "engine/engine_types.h"
#include "engine/operation_context.h"

namespace wtsim::engine {

class Oplog {
 public:
  static constexpr const char* kUri = "table:oplog";

  explicit Oplog(const EngineConfig& config) : config_(config) {}
  // Creates the table if missing and learns the first and next timestamps. WiredTiger's code.
  int open(OperationContext& op);
  // In the caller's transaction. after_bson: the new image's bytes ("u": o is the whole new
  // document); nullptr for a delete of the document with `id` ("d": o is {_id}).
  int append(OperationContext& op, const CollectionSpec& coll, const Document* id, const std::vector<uint8_t>* after_bson);
  // Drops the oldest entries past config.oplog_max_entries, in its own transaction.
  int trim(OperationContext& op);

 private:
  const EngineConfig& config_;
  uint64_t next_ts_ = 1;
  uint64_t first_ts_ = 1;
};

}  // namespace wtsim::engine
