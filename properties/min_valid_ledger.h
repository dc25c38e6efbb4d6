#pragma once
// min_valid_kept's reference: what a replica set member owes its minValid, kept from what its
// rollbacks and its applier did, not from the engine's minValid (engine/min_valid.h). MongoDB's
// rollback writes minValid, durably, before it puts back any document: from then until its oplog
// holds an entry at or above that point, the member's data mixes versions no primary ever had at
// one time (the primary's newer versions of the documents it put back over an older oplog). So
// until then the member must not become primary nor answer a read (MongoDB keeps it RECOVERING),
// and no crash may lose the point (the next start would take the mixed data for consistent).
#include <wiredtiger.h>

#include <cstdint>
#include <optional>
#include <string>

#include "properties/violation.h"

namespace wtsim::properties {

class MinValidLedger {
 public:
  // A rollback's first step returned: its point is durable from here.
  void rollback_began(uint64_t min_valid_ts);
  // The member's oplog now holds the entry at `ts` (its applier applied it).
  void applied(uint64_t ts);
  // The point the member owes (nullopt: none: no rollback, or its oplog reached the point).
  std::optional<uint64_t> owed_ts() const { return owed_ts_; }

  // At a start of the member: the point its minValid table holds, read raw (read_min_valid_ts).
  std::optional<Finding> check_start(std::optional<uint64_t> stored_ts) const;
  // The member is about to do `what` ("become primary", "answer a read").
  std::optional<Finding> check_serving(const std::string& what) const;

 private:
  std::optional<uint64_t> owed_ts_;
};

// The minValid table's point as stored: one row, key 1, value (ts: uint64, truncated: int32), in
// "table:minvalid". Nullopt when the table or the row is not there. Returns WiredTiger's code.
int read_min_valid_ts(WT_SESSION* session, std::optional<uint64_t>* ts);

}  // namespace wtsim::properties
