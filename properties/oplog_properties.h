#pragma once
// The oplog against the data it describes. Every committed write has exactly one oplog entry,
// committed in the same transaction, in commit order; so for every document, the newest entry
// the oplog still holds is its current image (or a delete, and the document is absent), and if
// the oplog was never trimmed every document has an entry. A capped collection's documents leave
// without an entry (every member trims its own): replaying the whole oplog with its maximum says
// which; from a trimmed oplog such an absence is not judged. Checked after every recovery and at
// the end of a run: a crash must never leave a write without its entry or an entry without its
// write. Both sides are read raw from their own tables, so this checks two independent writers
// of the same facts against each other.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "properties/violation.h"

#include "engine/document.h"

namespace wtsim::properties {

struct OplogEntry {
  uint64_t ts = 0;
  std::string key;                      // the document: "ns|<_id as JSON>"
  std::optional<engine::Document> image;  // nullopt: a delete
};

// `entries` in the oplog's order; `data` the collections' documents by the same keys; `capped`
// the capped collections' maximum document counts, by namespace. Findings: oplog_matches_data.
std::vector<Finding> check_oplog(const std::vector<OplogEntry>& entries, const std::map<std::string, engine::Document>& data,
                                 const std::map<std::string, uint64_t>& capped = {});

}  // namespace wtsim::properties
