#pragma once
// Update operators ($set, $inc, $unset) and filter matching, MongoDB style.
#include <string>

#include "engine/document.h"

namespace wtsim::engine {

struct WriteError;  // engine/engine_types.h

// Applies `update` to `doc`. A document without operators replaces the whole document (keeping
// _id). Returns "" or an error message.
std::string apply_update(Document& doc, const Document& update);

// The document an upsert inserts: the filter's equality fields, then the update applied.
Document upsert_seed(const Document& filter);

// Equality and range ($eq, $gt, $gte, $lt, $lte, $ne, $in, $exists) filters over dotted paths;
// an array field matches if the array or any element does.
bool matches(const Document& doc, const Document& filter);

// MongoDB 3.2 refuses any change of a capped collection's document's size (SERVER-20529;
// 2.6 and 3.0's MMAPv1 refused only growth beyond the record): a CannotGrowCapped answer in
// *error when `after`'s size differs from `before`'s.
void capped_size_kept(const Document& before, const Document& after, WriteError* error);

}  // namespace wtsim::engine
