#pragma once
// oplog_within_bound's reference: the oplog keeps at most `oplog_max_entries` ts behind its newest
// entry once a trim pass has run (MongoDB's capped oplog, trimmed from its oldest end). Judged on
// the oplog table's raw keys around each pass of the trimmer: the newest key before the pass and
// the oldest after it, not on the engine's own first and next ts. A pass may leave entries past
// the bound without breaking the promise (its transaction lost a conflict, or a rollback cut the
// newest entries while it ran): the next pass trims them, so only two passes in a row that leave
// entries past their bounds are a violation.
#include <wiredtiger.h>

#include <cstdint>
#include <optional>
#include <string>

#include "properties/violation.h"

namespace wtsim::properties {

class OplogBoundJudge {
 public:
  explicit OplogBoundJudge(uint64_t max_entries) : max_entries_(max_entries) {}

  // One trim pass: the newest key before it and the oldest after it (nullopt: the oplog was empty).
  std::optional<Finding> pass(std::optional<uint64_t> newest_before_ts, std::optional<uint64_t> oldest_after_ts);
  // A new generation of the node: what the last pass left is no longer this one's.
  void restarted() { last_excess_.reset(); }

 private:
  uint64_t max_entries_;
  std::optional<std::string> last_excess_;  // what the previous pass left past its bound
};

// The oplog table's oldest or newest key ("table:oplog", key_format q), read raw; nullopt when the
// table is empty or missing. Returns WiredTiger's code.
int read_oplog_end(WT_SESSION* session, bool newest, std::optional<uint64_t>* ts);

}  // namespace wtsim::properties
