#pragma once
// The oplog: one entry per document write, {ns, o, op, ts} as MongoDB's, written in the same
// WiredTiger transaction as the record, and trimmed from the oldest end past a bound.
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "engine/catalog.h"
#include "engine/document.h"
#include "engine/engine_types.h"
#include "engine/operation_context.h"
#include "engine/oplog_holes.h"

namespace wtsim::engine {

// One entry as read back: {ns, o, op, ts} as MongoDB's. op "u": o is the whole new document;
// "d": o is {_id}; "n": a no-op that changes no document.
struct OplogEntry {
  uint64_t ts = 0;
  uint64_t term = 0;  // 0: none (a single node)
  std::string ns;
  std::string op;
  Document o;
};

class Oplog {
 public:
  static constexpr const char* kUri = "table:oplog";

  explicit Oplog(const EngineConfig& config) : config_(config) {}
  // Creates the table if missing and learns the first and next timestamps. WiredTiger's code.
  int open(OperationContext& op);
  // In the caller's transaction. after_bson: the new image's bytes ("u": o is the whole new
  // document); nullptr for a delete of the document with `id` ("d": o is {_id}).
  int append(OperationContext& op, const CollectionSpec& coll, const Document* id, const std::vector<uint8_t>* after_bson);
  // The source's entry as it is, in its own transaction: a replica's apply that changed nothing
  // still records the entry, as MongoDB's secondaries copy every entry they apply.
  int append_copy(OperationContext& op, const OplogEntry& entry);
  // Drops the oldest entries past config.oplog_max_entries, in its own transaction.
  int trim(OperationContext& op);
  // Drops the entries above `ts` (a rollback's common point), in the caller's transaction;
  // truncated(ts) once it committed.
  int truncate_after(OperationContext& op, uint64_t ts);
  void truncated(uint64_t ts);
  // Up to `max` entries with ts above `after_ts` and below `below_ts`, oldest first, read in one
  // snapshot (its own transaction). WiredTiger's code.
  static int read_after(OperationContext& op, uint64_t after_ts, size_t max, std::vector<OplogEntry>* out,
                        uint64_t below_ts = std::numeric_limits<uint64_t>::max());
  // The ts the next entry takes: one above the newest written (1: none yet).
  uint64_t next_ts() const { return next_ts_; }
  // The oldest entry's ts (next_ts(): none).
  uint64_t first_ts() const { return first_ts_; }
  // Entries below this ts are committed or rolled back: what a syncing member may read.
  uint64_t visible_below() const { return holes_->visible_below(next_ts_); }

 private:
  // The ts of the entry being appended: the next one's, or the replicated entry's (op.oplog_ts);
  // held by the operation's transaction until it ends.
  uint64_t take_ts(OperationContext& op);

  const EngineConfig& config_;
  uint64_t next_ts_ = 1;
  uint64_t first_ts_ = 1;
  std::shared_ptr<OplogHoles> holes_ = std::make_shared<OplogHoles>();
};

}  // namespace wtsim::engine
