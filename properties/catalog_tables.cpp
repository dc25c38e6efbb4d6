#include "properties/catalog_tables.h"

#include <nlohmann/json.hpp>

#include <cassert>
#include <cstring>
#include <set>

namespace wtsim::properties {
namespace {

constexpr const char* kCatalogUri = "table:_catalog";
constexpr size_t kFindingsMax = 20;  // a run that loses every drop says so once per table, up to this

// The engine's bookkeeping: the catalog itself, the oplog, minValid, a member's vote record, and
// the key/value store of the first runs.
const std::set<std::string>& own_tables() {
  static const std::set<std::string> kOwn = {kCatalogUri, "table:oplog", "table:minvalid", "table:replset_election", "table:kv"};
  return kOwn;
}

// The tables one row names; false if the row is not a collection's catalog entry.
bool add_named(const std::string& row, std::set<std::string>* named) {
  const nlohmann::json j = nlohmann::json::parse(row, nullptr, false);
  if (!j.is_object() || !j.contains("table") || !j["table"].is_string()) return false;
  const std::string table = j["table"];
  named->insert(table);
  if (j.value("padded", false)) named->insert(table + "-free"), named->insert(table + "-extents");
  if (!j.contains("indexes") || !j["indexes"].is_array()) return false;
  for (const nlohmann::json& index : j["indexes"]) {
    if (!index.is_object() || !index.contains("table") || !index["table"].is_string()) return false;
    named->insert(index["table"].get<std::string>());
  }
  return true;
}

}  // namespace

int read_tables_and_catalog(WT_SESSION* session, std::vector<std::string>* tables, std::vector<std::string>* catalog_rows) {
  tables->clear();
  catalog_rows->clear();
  WT_CURSOR* c = nullptr;
  int ret = session->open_cursor(session, "metadata:", nullptr, nullptr, &c);
  if (ret != 0) return ret;
  bool has_catalog = false;
  while ((ret = c->next(c)) == 0) {
    const char* key = nullptr;
    if ((ret = c->get_key(c, &key)) != 0) break;
    if (std::strncmp(key, "table:", 6) == 0) tables->push_back(key);
    has_catalog = has_catalog || std::strcmp(key, kCatalogUri) == 0;
  }
  c->close(c);
  if (ret != WT_NOTFOUND) return ret;
  if (!has_catalog) return 0;
  if ((ret = session->open_cursor(session, kCatalogUri, nullptr, nullptr, &c)) != 0) return ret;
  while ((ret = c->next(c)) == 0) {
    const char* row = nullptr;
    if ((ret = c->get_value(c, &row)) != 0) break;
    catalog_rows->push_back(row);
  }
  c->close(c);
  return ret == WT_NOTFOUND ? 0 : ret;
}

std::vector<Finding> check_tables_named(const std::vector<std::string>& tables, const std::vector<std::string>& catalog_rows) {
  std::set<std::string> named = own_tables();
  for (const std::string& row : catalog_rows) {
    if (!add_named(row, &named)) return {};
  }
  std::vector<Finding> findings;
  size_t orphans = 0;
  for (const std::string& table : tables) {
    assert(table.rfind("table:", 0) == 0);
    if (named.count(table) > 0) continue;
    if (++orphans <= kFindingsMax) findings.emplace_back(Property::kNoOrphanTables, table + " is named by no catalog row");
  }
  if (orphans > kFindingsMax) findings.emplace_back(Property::kNoOrphanTables, std::to_string(orphans) + " tables in all are named by no catalog row");
  return findings;
}

}  // namespace wtsim::properties
