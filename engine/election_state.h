#pragma once
// A replica set member's election state, as MongoDB's local.replset.election: the newest term it
// knows and the member it voted for in that term. Written durably before the member acts on it
// (a vote is granted, a candidacy starts): a member that crashes and restarts never votes twice
// in one term, which is what keeps a term to one primary. Kept in a table of its own, created on
// the first write.
#include <cstdint>
#include <optional>

#include "engine/operation_context.h"

namespace wtsim::engine {

struct ElectionRecord {
  uint64_t term = 0;
  std::optional<uint64_t> voted_for;  // a member index; none: no vote in `term` yet
  auto operator<=>(const ElectionRecord&) const = default;
};

class ElectionState {
 public:
  static constexpr const char* kUri = "table:replset_election";

  // Reads the record; a node that never wrote one has term 0 and no vote. WiredTiger's code.
  static int read(OperationContext& op, ElectionRecord* out);
  // Creates the table if needed and writes the record in a transaction of its own, committed
  // with the log forced to disk. WiredTiger's code.
  static int write_durable(OperationContext& op, const ElectionRecord& record);
};

}  // namespace wtsim::engine
