#include "models/doc_reference.h"

#include <cassert>

namespace wtsim::models {

bool DocReference::insert(const std::string& ns, const Doc& doc) {
  Collection& c = collections_[ns];
  [[maybe_unused]] const size_t before = c.size();
  const bool inserted = c.emplace(doc.at("_id").dump(), doc).second;
  // One more document, or none and the existing one kept: _id is unique.
  assert(c.size() == before + (inserted ? 1 : 0));
  assert(c.at(doc.at("_id").dump()).at("_id") == doc.at("_id"));
  return inserted;
}

int DocReference::inc(const std::string& ns, const Doc& id, const std::string& field, int64_t by, bool upsert,
                      bool* upserted) {
  assert(upserted != nullptr);
  *upserted = false;
  Collection& c = collections_[ns];
  [[maybe_unused]] const size_t before = c.size();
  auto it = c.find(id.dump());
  if (it == c.end()) {
    if (!upsert) return 0;
    c[id.dump()] = Doc{{"_id", id}, {field, by}};
    *upserted = true;
    assert(c.size() == before + 1 && c.count(id.dump()) == 1);  // upserted: one new document
    return 0;
  }
  Doc& doc = it->second;
  doc[field] = doc.contains(field) ? doc[field].get<int64_t>() + by : by;
  assert(c.size() == before && doc.at(field).is_number_integer());  // matched: updated in place
  return 1;
}

bool DocReference::remove(const std::string& ns, const Doc& id) {
  Collection& c = collections_[ns];
  const bool removed = c.erase(id.dump()) == 1;
  assert(c.count(id.dump()) == 0);
  return removed;
}

std::vector<DocReference::Doc> DocReference::find_eq(const std::string& ns, const std::string& field,
                                                     const Doc& value) const {
  std::vector<Doc> out;
  for (const auto& [key, doc] : collection(ns)) {
    if (!doc.contains(field)) continue;
    const Doc& v = doc[field];
    bool hit = v == value;
    if (v.is_array()) {
      for (const Doc& e : v) hit = hit || e == value;
    }
    if (hit) out.push_back(doc);
  }
  return out;
}

const DocReference::Collection& DocReference::collection(const std::string& ns) const {
  static const Collection kEmpty;
  auto it = collections_.find(ns);
  return it == collections_.end() ? kEmpty : it->second;
}

}  // namespace wtsim::models
