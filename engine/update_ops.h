#pragma once
// Update operators ($set, $inc, $unset) and filter matching, MongoDB style.
#include <string>

#include "engine/document.h"

namespace wtsim::engine {

// Applies `update` to `doc`. A document without operators replaces the whole document (keeping
// _id). Returns "" or an error message. `inc_on_n` receives the $inc amount applied to field "n"
// (the workload's counter, for the exactly-once ledger).
std::string apply_update(Document& doc, const Document& update, int64_t* inc_on_n);

// The document an upsert inserts: the filter's equality fields, then the update applied.
Document upsert_seed(const Document& filter);

// Equality and range ($eq, $gt, $gte, $lt, $lte, $ne, $in, $exists) filters over dotted paths;
// an array field matches if the array or any element does.
bool matches(const Document& doc, const Document& filter);

}  // namespace wtsim::engine
