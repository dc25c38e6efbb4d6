#pragma once
// ttl_bounded_age's reference: how many entries of a TTL index still hold a Date below a pass's
// bound, read from the index table's raw keys, not through the engine's planner and query code.
// An entry per Date (one per element of an array of Dates), only for the documents a partial
// index holds, so the index answers for a partial filter too (index_keys_follow_documents proves
// the index holds exactly its documents' keys).
//
// The key format (engine/key_string.h states it): a value's encoding opens with a type byte, 90
// for a Date, then the Date's milliseconds as 8 bytes big-endian with the sign bit flipped (so
// that byte order is time order); a descending index inverts every byte of the encoding. The
// entry's record key, if any, follows.
#include <wiredtiger.h>

#include <cstdint>
#include <string>

namespace wtsim::properties {

// Counts the entries of the single-field index table `uri` (`descending`: a -1 index) whose Date
// is strictly below `bound_ms`, in the session's current transaction. Returns WiredTiger's code.
int count_dates_below(WT_SESSION* session, const std::string& uri, bool descending, int64_t bound_ms, uint64_t* count);

}  // namespace wtsim::properties
