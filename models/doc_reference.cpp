#include "models/doc_reference.h"

#include <cassert>

namespace wtsim::models {
namespace {

// _id order for the integer and string _ids the tests use: numbers before strings, then by value.
bool less_id(const DocReference::Doc& a, const DocReference::Doc& b) {
  const DocReference::Doc& x = a.at("_id");
  const DocReference::Doc& y = b.at("_id");
  if (x.is_number() != y.is_number()) return x.is_number();
  return x < y;
}

}  // namespace

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

DocReference::Doc DocReference::find_and_modify(const std::string& ns, const std::string& field, const Doc& value, int direction,
                                                bool remove, int64_t by, bool return_new) {
  assert(direction == 1 || direction == -1);
  assert(!(remove && return_new));
  const std::vector<Doc> matching = find_eq(ns, field, value);  // in the map's order
  const Doc* first = nullptr;
  for (const Doc& d : matching) {
    const bool before = first == nullptr || (direction > 0 ? less_id(d, *first) : less_id(*first, d));
    if (before) first = &d;
  }
  if (first == nullptr) return nullptr;
  const Doc id = first->at("_id"), old = *first;
  if (remove) {
    this->remove(ns, id);
    return old;
  }
  bool upserted = false;
  [[maybe_unused]] const int matched = inc(ns, id, "n", by, false, &upserted);
  assert(matched == 1 && !upserted);
  return return_new ? collections_.at(ns).at(id.dump()) : old;
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
