#pragma once
// Partial indexes (MongoDB 3.2's partialFilterExpression): which filters an index may take, and
// which queries it may answer. Which documents it holds is index_keys' (engine/index_keys.h).
#include <string>

#include "engine/document.h"

namespace wtsim::engine {

// "" when MongoDB 3.2 takes `filter` for an index, else its refusal (CannotCreateIndex): a
// document of field conditions, each a value (equality) or operators among $eq, $gt, $gte, $lt,
// $lte and $exists: true. ($and and $type, which MongoDB also takes, are refused here: the
// engine's matcher has neither.)
std::string partial_filter_error(const Document& filter);

// Whether every document matching `query` matches `partial`: here when each of partial's
// conditions is in the query as it is. Sound, not complete (MongoDB also sees that {a: {$gt: 5}}
// implies {a: {$gt: 1}}): a query it misses is answered without the index.
bool query_implies(const Document& query, const Document& partial);

}  // namespace wtsim::engine
