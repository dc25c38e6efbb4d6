// reads_see_committed: what a live node's reads return, judged against the model. A find runs in
// one snapshot, so each document it returns must match the query and be a version that some
// commit wrote and that was not yet overwritten by a commit acknowledged before the find began
// (models::KvModel::readable_values). A dirty read (a write that never committed, or a rolled
// back one) and a stale read both fail it.
#include <cassert>

#include "world/doc_system.h"

namespace wtsim::world {
namespace {

constexpr size_t kCandidatesShownMax = 3;

std::string brief(const engine::Document& doc) {
  engine::Document shown = doc;
  shown.erase("pad");  // filler: long and the same in every version
  return shown.dump();
}

engine::Document decoded(const std::string& bson) {
  return engine::from_bson(reinterpret_cast<const uint8_t*>(bson.data()), bson.size());
}

std::string brief(const models::Value& v) { return v ? brief(decoded(*v)) : "absent"; }

// The query's equality fields that the document does not match (the workload's finds are
// equalities on top-level fields).
std::string unmatched_field(const engine::Document& filter, const engine::Document& doc) {
  for (const auto& [field, wanted] : filter.items()) {
    if (!doc.contains(field) || doc[field] != wanted) return field;
  }
  return "";
}

}  // namespace

void DocSystem::check_find(std::string_view ns, const engine::Document& filter, const std::vector<engine::Document>& docs,
                           uint64_t read_token) {
  assert(filter.is_object());
  for (const engine::Document& doc : docs) {
    assert(doc.contains("_id"));
    if (const std::string field = unmatched_field(filter, doc); !field.empty()) {
      return finding(properties::Property::kReadsSeeCommitted, "find " + filter.dump() + " returned " + brief(doc) + ", which does not match on " + field);
    }
    const std::vector<models::Value> allowed = world_.model().readable_values(model_key(ns, doc["_id"]), read_token);
    bool found = false;
    for (const models::Value& v : allowed) found = found || (v && decoded(*v) == doc);
    if (found) continue;
    std::string shown;
    for (size_t i = 0; i < allowed.size() && i < kCandidatesShownMax; ++i) shown += (i ? " or " : "") + brief(allowed[allowed.size() - 1 - i]);
    return finding(properties::Property::kReadsSeeCommitted, "find " + filter.dump() + " returned " + brief(doc) +
                                              ", a version no commit visible to its snapshot wrote (newest first: " + shown + ")");
  }
}

}  // namespace wtsim::world
