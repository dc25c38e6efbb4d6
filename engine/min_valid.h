#pragma once
// MongoDB's minValid, for a member that rolls back (engine.h: the rollback's steps): while it is
// set, the member's data is not a state the primary ever had (it holds the sync source's newer
// versions of the documents it put back), and it is consistent again only once its oplog reaches
// `ts`. Kept in a table of its own, created by the first rollback (a node that never rolls back
// has none). `truncated` says the rollback finished (its divergent entries are gone): a member
// that diverges again before reaching `ts` cannot tell which documents that rollback put back,
// and needs a resync, as MongoDB refuses that rollback too.
#include <cstdint>
#include <optional>

#include "engine/operation_context.h"

namespace wtsim::engine {

struct MinValidPoint {
  uint64_t ts = 0;
  bool truncated = false;
};

class MinValid {
 public:
  static constexpr const char* kUri = "table:minvalid";

  // Reads the point if the table exists. WiredTiger's code.
  int open(OperationContext& op);
  const std::optional<MinValidPoint>& point() const { return point_; }
  // Creates the table (outside a transaction: WiredTiger's schema calls are not transactional).
  int create(OperationContext& op);
  // In the caller's transaction; takes effect in memory once the caller commits (committed()).
  int write(OperationContext& op, const MinValidPoint& point);
  int clear(OperationContext& op);
  void committed(std::optional<MinValidPoint> point) { point_ = point; }

 private:
  std::optional<MinValidPoint> point_;
};

}  // namespace wtsim::engine
