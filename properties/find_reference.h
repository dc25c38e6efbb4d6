#pragma once
// finds_return_every_match: a find returns every document its snapshot must show, in its sort
// order, within its limit, each once. reads_see_committed judges the documents a find returned;
// this judges the ones it left out. The rules, from the MongoDB manual's pages on find, sort and
// limit:
// - without a limit, every document matching the filter is returned;
// - with a limit L, min(L, matches) documents are returned, never more than L;
// - with a sort, the documents come in its order (a missing field sorts as null, null before
//   numbers, numbers before strings), and a limited sorted find keeps the first L in that order;
// - a document is returned at most once (a multikey index's entries are deduplicated).
// A document "must" be returned only when every version the find's snapshot may see (the model's
// readable values, from the find's start to its end, since a find yields and resumes) exists and
// matches the filter by the write reference's matcher; a filter it does not model, a version in
// flight, a sort value of a type not ordered here, or a hinted find (a sparse index legally hides
// documents) leaves the find unjudged: never a false alarm.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "engine/document.h"
#include "engine/engine_types.h"
#include "models/kv_model.h"
#include "properties/violation.h"

namespace wtsim::properties {

namespace reference {
// MongoDB's sort order of two values (nullptr: missing, which sorts as null): <0, 0, >0, or
// nullopt for a pair of types not ordered here (arrays, objects, mixed others).
std::optional<int> sort_order(const engine::Document* a, const engine::Document* b);
}  // namespace reference

struct FindOutcome {
  const engine::FindRequest* request = nullptr;
  const std::vector<engine::Document>* docs = nullptr;  // what the find returned, _id in each
  uint64_t read_token = 0;                              // the model's read token from its start
  std::string key_prefix;                               // the model keys of its collection start so
};

std::optional<Finding> check_find_complete(const models::KvModel& model, const FindOutcome& find,
                                           const std::function<std::string(const engine::Document& id)>& key_of);

}  // namespace wtsim::properties
