// finds_return_every_match (properties/find_reference.h).
#include "properties/find_reference.h"

#include <cassert>
#include <set>

#include "properties/write_reference.h"

namespace wtsim::properties {
namespace reference {
namespace {

// MongoDB's order of BSON types, for the ones ordered here: null (and missing), numbers, strings.
std::optional<int> type_rank(const engine::Document* v) {
  if (v == nullptr || v->is_null()) return 0;
  if (v->is_number()) return 1;
  if (v->is_string()) return 2;
  return std::nullopt;
}

int sign(double d) { return (d > 0) - (d < 0); }

}  // namespace

std::optional<int> sort_order(const engine::Document* a, const engine::Document* b) {
  const std::optional<int> ra = type_rank(a), rb = type_rank(b);
  if (!ra || !rb) return std::nullopt;
  if (*ra != *rb) return *ra < *rb ? -1 : 1;
  if (*ra == 1) return sign(a->get<double>() - b->get<double>());
  if (*ra == 2) return sign(a->get_ref<const std::string&>().compare(b->get_ref<const std::string&>()));
  return 0;
}

}  // namespace reference

namespace {

using engine::Document;

Finding finding(const engine::FindRequest& req, const std::string& what) {
  std::string query = "find " + req.filter.dump();
  if (req.sort) query += " sort {" + req.sort->first + ": " + std::to_string(req.sort->second) + "}";
  if (req.limit > 0) query += " limit " + std::to_string(req.limit);
  return Finding{Property::kFindsReturnEveryMatch, query + " " + what};
}

// The value `doc` sorts by: nullopt when the path is not modelled (it runs through an array).
std::optional<const Document*> sort_value(const Document& doc, const std::string& field) {
  const reference::PathValue v = reference::value_at(doc, field);
  if (!v.modelled || (v.value != nullptr && v.value->is_array())) return std::nullopt;
  return v.value;
}

// <0 when `a` comes before `b` in the find's sort, >0 after, 0 tied; nullopt: not ordered here.
std::optional<int> in_sort(const engine::FindRequest& req, const Document& a, const Document& b) {
  assert(req.sort);
  const std::optional<const Document*> va = sort_value(a, req.sort->first), vb = sort_value(b, req.sort->first);
  if (!va || !vb) return std::nullopt;
  const std::optional<int> order = reference::sort_order(*va, *vb);
  if (!order) return std::nullopt;
  return req.sort->second < 0 ? -*order : *order;
}

// What the find returned, on its own: within the limit, each document once, in sort order.
std::optional<Finding> check_returned(const FindOutcome& f, const std::set<std::string>& keys) {
  const engine::FindRequest& req = *f.request;
  const std::vector<Document>& docs = *f.docs;
  if (req.limit > 0 && docs.size() > req.limit) return finding(req, "returned " + std::to_string(docs.size()) + " documents");
  if (keys.size() < docs.size()) return finding(req, "returned a document twice");
  for (size_t i = 1; req.sort && i < docs.size(); ++i) {
    const std::optional<int> order = in_sort(req, docs[i - 1], docs[i]);
    if (order && *order > 0) return finding(req, "returned " + shown_briefly(docs[i - 1]) + " before " + shown_briefly(docs[i]));
  }
  return std::nullopt;
}

// Every version the find may see of one key, when each exists and matches the filter; else empty.
std::vector<Document> matching_in_every_version(const std::vector<models::Value>& versions, const Document& filter) {
  std::vector<Document> out;
  for (const models::Value& v : versions) {
    if (!v) return {};
    Document doc = engine::from_bson(reinterpret_cast<const uint8_t*>(v->data()), v->size());
    const std::optional<bool> matched = reference::matches(doc, filter);
    if (!matched || !*matched) return {};
    out.push_back(std::move(doc));
  }
  return out;
}

// Whether a limited sorted find that returned a full page had to keep `versions` (every one of
// them sorting strictly before its last document).
bool sorts_before_last(const engine::FindRequest& req, const std::vector<Document>& versions, const Document& last) {
  for (const Document& v : versions) {
    const std::optional<int> order = in_sort(req, v, last);
    if (!order || *order >= 0) return false;
  }
  return true;
}

}  // namespace

std::optional<Finding> check_find_complete(const models::KvModel& model, const FindOutcome& f,
                                           const std::function<std::string(const Document& id)>& key_of) {
  assert(f.request != nullptr && f.docs != nullptr && f.request->filter.is_object());
  const engine::FindRequest& req = *f.request;
  std::set<std::string> returned;
  for (const Document& doc : *f.docs) returned.insert(key_of(doc.at("_id")));
  if (std::optional<Finding> wrong = check_returned(f, returned)) return wrong;
  const bool full_page = req.limit > 0 && f.docs->size() == req.limit;
  if (!req.hint.empty() || (full_page && !req.sort)) return std::nullopt;  // nothing left to judge
  for (const std::string& key : model.keys_with_prefix(f.key_prefix)) {
    if (returned.count(key) > 0) continue;
    const std::vector<Document> versions = matching_in_every_version(model.readable_values(key, f.read_token), req.filter);
    if (versions.empty()) continue;
    if (!full_page) {
      return finding(req, "returned " + std::to_string(f.docs->size()) + " documents, leaving out " + shown_briefly(versions.back()) +
                              ", which every version its snapshot may see matches");
    }
    if (sorts_before_last(req, versions, f.docs->back())) {
      return finding(req, "kept " + shown_briefly(f.docs->back()) + " but left out " + shown_briefly(versions.back()) + ", which sorts before it");
    }
  }
  return std::nullopt;
}

}  // namespace wtsim::properties
