#include "models/doc_reference.h"

namespace wtsim::models {

bool DocReference::insert(const std::string& ns, const Doc& doc) {
  return collections_[ns].emplace(doc.at("_id").dump(), doc).second;
}

int DocReference::inc(const std::string& ns, const Doc& id, const std::string& field, int64_t by, bool upsert,
                      bool* upserted) {
  *upserted = false;
  Collection& c = collections_[ns];
  auto it = c.find(id.dump());
  if (it == c.end()) {
    if (!upsert) return 0;
    c[id.dump()] = Doc{{"_id", id}, {field, by}};
    *upserted = true;
    return 0;
  }
  Doc& doc = it->second;
  doc[field] = doc.contains(field) ? doc[field].get<int64_t>() + by : by;
  return 1;
}

bool DocReference::remove(const std::string& ns, const Doc& id) { return collections_[ns].erase(id.dump()) == 1; }

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
