#include "engine/catalog.h"

#include <cassert>

#include "engine/wt_schema.h"

#include <algorithm>

namespace wtsim::engine {

const IndexSpec* CollectionSpec::index(const std::string& name) const {
  for (const IndexSpec& i : indexes) {
    if (i.name == name) return &i;
  }
  return nullptr;
}

std::string default_index_name(const std::vector<std::pair<std::string, int>>& fields) {
  std::string name;
  for (const auto& [path, dir] : fields) name += (name.empty() ? "" : "_") + path + "_" + std::to_string(dir);
  return name;
}

Document to_json(const IndexSpec& s) {
  Document order = Document::array();
  for (const auto& [path, dir] : s.fields) order.push_back({path, dir});
  Document j = {{"name", s.name}, {"key", order}, {"unique", s.unique}, {"table", s.table}};
  if (s.expire_after_seconds) j["expireAfterSeconds"] = *s.expire_after_seconds;
  if (s.partial_filter) j["partialFilterExpression"] = *s.partial_filter;
  return j;
}

IndexSpec index_from_json(const Document& j) {
  IndexSpec s;
  s.name = j.at("name").get<std::string>();
  for (const auto& f : j.at("key")) s.fields.emplace_back(f.at(0).get<std::string>(), f.at(1).get<int>());
  s.unique = j.at("unique").get<bool>();
  s.table = j.at("table").get<std::string>();
  if (j.contains("expireAfterSeconds")) s.expire_after_seconds = j["expireAfterSeconds"];
  if (j.contains("partialFilterExpression")) s.partial_filter = j["partialFilterExpression"];
  return s;
}

Document to_json(const CollectionSpec& s) {
  Document indexes = Document::array();
  for (const IndexSpec& i : s.indexes) indexes.push_back(to_json(i));
  Document j = {{"ns", s.ns}, {"table", s.table}, {"capped_max_docs", s.capped_max_docs}, {"indexes", indexes},
                {"padded", s.padded}, {"power_of_2_sizes", s.power_of_2_sizes}, {"no_padding", s.no_padding},
                {"padding_rules", s.padding_rules == MmapAllocator::PaddingRules::kV1x ? "1.x" : "2.6"}};
  if (s.clustered) j["clustered"] = true;
  return j;
}

CollectionSpec collection_from_json(const Document& j) {
  CollectionSpec s;
  s.ns = j.at("ns").get<std::string>();
  s.table = j.at("table").get<std::string>();
  s.capped_max_docs = j.at("capped_max_docs").get<uint64_t>();
  for (const auto& i : j.at("indexes")) s.indexes.push_back(index_from_json(i));
  s.padded = j.value("padded", false);
  s.power_of_2_sizes = j.value("power_of_2_sizes", false);
  s.no_padding = j.value("no_padding", false);
  s.clustered = j.value("clustered", false);
  s.padding_rules = j.value("padding_rules", "2.6") == "1.x" ? MmapAllocator::PaddingRules::kV1x : MmapAllocator::PaddingRules::kV26;
  return s;
}

int Catalog::load(WT_SESSION* session) {
  int ret = create_table(session, kUri, "key_format=S,value_format=S");
  if (ret != 0) return ret;
  WT_CURSOR* c = nullptr;
  if ((ret = session->open_cursor(session, kUri, nullptr, nullptr, &c)) != 0) return ret;
  collections_.clear();
  while ((ret = c->next(c)) == 0) {
    const char* value = nullptr;
    if ((ret = c->get_value(c, &value)) != 0) break;
    CollectionSpec spec = collection_from_json(Document::parse(value));
    // Idents are "table:c<N>" / "table:i<N>": never reuse a number after a restart.
    auto bump = [&](const std::string& uri) {
      const size_t digits = uri.find_first_of("0123456789");
      if (digits != std::string::npos) last_ident_ = std::max<uint64_t>(last_ident_, std::stoull(uri.substr(digits)));
    };
    bump(spec.table);
    for (const IndexSpec& i : spec.indexes) bump(i.table);
    collections_[spec.ns] = std::move(spec);
  }
  c->close(c);
  if (ret != WT_NOTFOUND) return ret;
  return bump_past_existing_tables(session);
}

// A DDL cut by a crash may leave its table behind without a catalog row naming it; a new ident
// must not land on those remains (and their entries), so the count also covers every table
// WiredTiger's metadata holds. (MongoDB's idents carry a random part for the same reason.) The
// same walk lists them for the start's drop of the unnamed ones.
int Catalog::bump_past_existing_tables(WT_SESSION* session) {
  stored_tables_.clear();
  WT_CURSOR* c = nullptr;
  int ret = session->open_cursor(session, "metadata:", nullptr, nullptr, &c);
  if (ret != 0) return ret;
  while ((ret = c->next(c)) == 0) {
    const char* key = nullptr;
    if ((ret = c->get_key(c, &key)) != 0) break;
    const std::string uri = key;
    if (uri.rfind("table:c", 0) != 0 && uri.rfind("table:i", 0) != 0) continue;
    stored_tables_.push_back(uri);
    const std::string digits = uri.substr(7);
    if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos) continue;
    last_ident_ = std::max<uint64_t>(last_ident_, std::stoull(digits));
  }
  c->close(c);
  return ret == WT_NOTFOUND ? 0 : ret;
}

int Catalog::save(WT_SESSION* session, const std::string& ns, const std::string& row) {
  assert(!ns.empty() && !row.empty());
  WT_CURSOR* c = nullptr;
  int ret = session->open_cursor(session, kUri, nullptr, nullptr, &c);
  if (ret != 0) return ret;
  c->set_key(c, ns.c_str());
  c->set_value(c, row.c_str());
  ret = c->insert(c);
  c->close(c);
  return ret;
}

int Catalog::remove(WT_SESSION* session, const std::string& ns) {
  WT_CURSOR* c = nullptr;
  int ret = session->open_cursor(session, kUri, nullptr, nullptr, &c);
  if (ret != 0) return ret;
  c->set_key(c, ns.c_str());
  ret = c->remove(c);
  c->close(c);
  return ret == WT_NOTFOUND ? 0 : ret;
}

const CollectionSpec* Catalog::find(const std::string& ns) const {
  auto it = collections_.find(ns);
  return it == collections_.end() ? nullptr : &it->second;
}

CollectionSpec* Catalog::find_mutable(const std::string& ns) {
  auto it = collections_.find(ns);
  return it == collections_.end() ? nullptr : &it->second;
}

}  // namespace wtsim::engine
