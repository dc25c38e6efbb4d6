// validate(collection): every record has exactly its index entries, and every index entry points
// to a record that produces it.
#include <wiredtiger.h>

#include <set>

#include "engine/engine.h"
#include "engine/index_keys.h"
#include "engine/padded_store.h"

namespace wtsim::engine {
namespace {

constexpr size_t kMaxErrorsReported = 8;

void report(ValidateResult& r, std::string error) {
  r.valid = false;
  if (r.errors.size() < kMaxErrorsReported) r.errors.push_back(std::move(error));
}

}  // namespace

ValidateResult DocumentEngine::validate(OperationContext& op, const std::string& ns) {
  ValidateResult r;
  const CollectionSpec* coll = catalog_.find(ns);
  if (coll == nullptr) return r;
  HierarchicalLock lock(locks_, coll->db(), coll->name(), LockMode::kIS, LockPolicy::kCollection);  // S: a stable view
  if (op.begin() != 0) return report(r, "cannot begin a transaction"), r;
  // Expected entries per index, from the records.
  std::vector<std::set<std::string>> expected(coll->indexes.size());
  const std::vector<std::string> fields = indexed_fields(*coll);
  int ret = 0;
  WT_CURSOR* c = op.cursor(coll->table, &ret);
  while (c != nullptr && (ret = c->next(c)) == 0) {
    WT_ITEM key, value;
    c->get_key(c, &key);
    c->get_value(c, &value);
    const std::string rkey = string_of(key);
    const Document doc = record_view(*coll, value.data, value.size, &fields);
    ++r.records;
    for (size_t i = 0; i < coll->indexes.size(); ++i) {
      for (const std::string& k : index_keys(coll->indexes[i], doc)) {
        expected[i].insert(index_entry_key(coll->indexes[i], k, rkey) + '\0' + rkey);
      }
    }
  }
  if (ret != WT_NOTFOUND) report(r, "record store scan failed: " + std::string(wiredtiger_strerror(ret)));
  if (static_cast<int64_t>(r.records) != counts_[ns].count) {
    report(r, "count is " + std::to_string(counts_[ns].count) + " but the record store holds " + std::to_string(r.records));
  }
  for (size_t i = 0; i < coll->indexes.size(); ++i) {
    const IndexSpec& spec = coll->indexes[i];
    WT_CURSOR* ic = op.cursor(spec.table, &ret);
    std::set<std::string> found;
    while (ic != nullptr && (ret = ic->next(ic)) == 0) {
      WT_ITEM key, value;
      ic->get_key(ic, &key);
      ic->get_value(ic, &value);
      ++r.index_entries;
      const std::string entry = string_of(key) + '\0' + string_of(value);
      if (expected[i].count(entry) == 0) report(r, "index " + spec.name + " has an entry no record produces");
      found.insert(entry);
    }
    if (found.size() != expected[i].size()) {
      report(r, "index " + spec.name + " has " + std::to_string(found.size()) + " entries, the records produce " +
                    std::to_string(expected[i].size()));
    }
  }
  op.rollback();
  return r;
}

}  // namespace wtsim::engine
