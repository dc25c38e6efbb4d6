#include "engine/unnamed_tables.h"

#include <cassert>
#include <set>

#include "engine/padded_store.h"
#include "sim/planted.h"

namespace wtsim::engine {
namespace {

constexpr size_t kUnnamedTablesMax = 100'000;  // far above any run's DDL count

std::set<std::string> named_tables(const Catalog& catalog) {
  std::set<std::string> named;
  for (const auto& [ns, coll] : catalog.collections()) {
    named.insert(coll.table);
    if (coll.padded) named.insert(padded::free_table(coll)), named.insert(padded::extent_table(coll));
    for (const IndexSpec& i : coll.indexes) named.insert(i.table);
  }
  return named;
}

void unnamed_tables(const Catalog& catalog, std::vector<std::string>* out) {
  out->clear();
  const std::set<std::string> named = named_tables(catalog);
  for (const std::string& uri : catalog.stored_tables()) {
    if (named.count(uri) > 0) continue;
    if (uri.rfind("table:i", 0) == 0 && planted::active(planted::Bug::kOrphanIndexesKept)) continue;
    assert(out->size() < kUnnamedTablesMax);
    out->push_back(uri);
  }
}

}  // namespace

int drop_unnamed_tables(WT_SESSION* session, const Catalog& catalog, std::vector<std::string>* dropped) {
  std::vector<std::string> unnamed;
  unnamed_tables(catalog, &unnamed);
  dropped->clear();
  int ret = 0;
  for (size_t i = 0; ret == 0 && i < unnamed.size(); ++i) {
    // force: the remains of a cut-short create may lack their column group or file.
    ret = session->drop(session, unnamed[i].c_str(), "force=true");
    if (ret == 0) dropped->push_back(unnamed[i]);
  }
  return ret;
}

}  // namespace wtsim::engine
