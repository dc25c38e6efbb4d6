#include "properties/document_properties.h"

#include <algorithm>
#include <cassert>
#include <cmath>

namespace wtsim::properties {
namespace {

constexpr size_t kCandidatesShownMax = 3;

bool expired(const engine::Document* v, int64_t bound_ms) {
  if (v == nullptr) return false;
  if (engine::is_date(*v)) return engine::date_ms(*v) < bound_ms;
  if (!v->is_array()) return false;
  for (const engine::Document& e : *v) {
    if (engine::is_date(e) && engine::date_ms(e) < bound_ms) return true;
  }
  return false;
}

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
// equalities on top-level fields). A condition with operators ({"$lt": ...}, a script's) is not
// judged here; the version check still is.
std::string unmatched_field(const engine::Document& filter, const engine::Document& doc) {
  for (const auto& [field, wanted] : filter.items()) {
    const bool operators = wanted.is_object() && !wanted.empty() && wanted.begin().key().rfind('$', 0) == 0;
    if (operators) continue;
    if (!doc.contains(field) || doc[field] != wanted) return field;
  }
  return "";
}

// The first condition of a partial index's filter that `doc` fails, of those judged here
// (equality, and {$exists: true}; ranges are not), or "".
std::string outside_partial(const engine::Document& partial, const engine::Document& doc) {
  for (const auto& [field, wanted] : partial.items()) {
    const engine::Document* value = engine::get_path(doc, field);
    if (wanted == engine::Document{{"$exists", true}}) {
      if (value == nullptr) return field;
      continue;
    }
    const bool operators = wanted.is_object() && !wanted.empty() && wanted.begin().key().rfind('$', 0) == 0 && !engine::is_date(wanted);
    if (operators) continue;
    const bool held = value != nullptr && (*value == wanted || (value->is_array() && std::find(value->begin(), value->end(), wanted) != value->end()));
    if (!held) return field;
  }
  return "";
}

}  // namespace

std::optional<Finding> check_ttl_delete(const TtlDelete& d) {
  assert(d.id != nullptr && !d.field.empty());
  const std::string what = std::string(d.ns) + " " + d.id->dump();
  if (!d.on_primary) return Finding{Property::kTtlSafety, what + ": deleted by the TTL monitor of a secondary"};
  if (d.capped) return Finding{Property::kTtlSafety, what + ": deleted by the TTL monitor from a capped collection"};
  if (d.partial_filter != nullptr && d.pre_image != nullptr) {
    if (const std::string field = outside_partial(*d.partial_filter, *d.pre_image); !field.empty()) {
      return Finding{Property::kTtlSafety, what + ": deleted by the TTL monitor though outside its partial index (" + field + ")"};
    }
  }
  const int64_t bound_ms = d.now_ms - static_cast<int64_t>(std::trunc(d.expire_after_s)) * 1000;
  if (expired(d.indexed_value, bound_ms)) return std::nullopt;
  return Finding{Property::kTtlSafety, what + ": deleted with " + std::string(d.field) + " = " +
                                           (d.indexed_value != nullptr ? d.indexed_value->dump() : "missing") +
                                           ", bound " + std::to_string(bound_ms)};
}

std::optional<Finding> check_increment(const std::string& key, std::optional<int64_t> last,
                                       const engine::Document* n, int64_t inc_total) {
  if (inc_total == 0 || !last || n == nullptr || !n->is_number_integer()) return std::nullopt;
  if (n->get<int64_t>() == *last + inc_total) return std::nullopt;
  return Finding{Property::kIncrementsCountedOnce, key + ": counter went " + std::to_string(*last) + " -> " + n->dump() +
                                                       " for $inc " + std::to_string(inc_total)};
}

std::optional<Finding> check_find(const models::KvModel& model, const engine::Document& filter,
                                  const std::vector<engine::Document>& docs, uint64_t read_token,
                                  const std::function<std::string(const engine::Document& id)>& key_of) {
  assert(filter.is_object());
  for (const engine::Document& doc : docs) {
    assert(doc.contains("_id"));
    if (const std::string field = unmatched_field(filter, doc); !field.empty()) {
      return Finding{Property::kReadsSeeCommitted, "find " + filter.dump() + " returned " + brief(doc) + ", which does not match on " + field};
    }
    const std::vector<models::Value> allowed = model.readable_values(key_of(doc["_id"]), read_token);
    bool found = false;
    for (const models::Value& v : allowed) found = found || (v && decoded(*v) == doc);
    if (found) continue;
    std::string shown;
    for (size_t i = 0; i < allowed.size() && i < kCandidatesShownMax; ++i) shown += (i ? " or " : "") + brief(allowed[allowed.size() - 1 - i]);
    return Finding{Property::kReadsSeeCommitted, "find " + filter.dump() + " returned " + brief(doc) +
                                                     ", a version no commit visible to its snapshot wrote (newest first: " + shown + ")"};
  }
  return std::nullopt;
}

}  // namespace wtsim::properties
