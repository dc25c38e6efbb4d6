// validate(collection): every record has exactly its index entries, and every index entry points
// to a record that produces it.
//
// As MongoDB's validate does, the first pass only hashes: per index, the count and the sum of a
// 64-bit hash of every entry the records produce and of every entry the index holds (no set of
// millions of strings). Equal digests: valid. Otherwise a second pass over the same snapshot
// collects the entries themselves and names what differs.
#include <wiredtiger.h>

#include <set>

#include "engine/engine.h"
#include "engine/index_keys.h"
#include "engine/padded_store.h"
#include "sim/random.h"

namespace wtsim::engine {
namespace {

constexpr size_t kMaxErrorsReported = 8;

void report(ValidateResult& r, std::string error) {
  r.valid = false;
  if (r.errors.size() < kMaxErrorsReported) r.errors.push_back(std::move(error));
}

// An order-independent digest of a multiset of index entries.
struct EntryDigest {
  uint64_t count = 0;
  uint64_t hash_sum = 0;
  void add(const std::string& entry) {
    ++count;
    hash_sum += sim::fnv1a64(entry);
  }
  bool operator==(const EntryDigest&) const = default;
};

// The entries of one index, as digests (first pass) and, when asked, as a set (second pass).
struct IndexEntries {
  EntryDigest digest;
  std::set<std::string>* exact = nullptr;
  void add(std::string entry) {
    digest.add(entry);
    if (exact != nullptr) exact->insert(std::move(entry));
  }
};

// The entries the records produce, per index.
int scan_records(OperationContext& op, const CollectionSpec& coll, std::vector<IndexEntries>& expected,
                                 uint64_t* records) {
  const std::vector<std::string> fields = indexed_fields(coll);
  int ret = 0;
  WT_CURSOR* c = op.cursor(coll.table, &ret);
  while (c != nullptr && (ret = c->next(c)) == 0) {
    WT_ITEM key, value;
    c->get_key(c, &key);
    c->get_value(c, &value);
    const std::string rkey = string_of(key);
    const Document doc = record_view(coll, value.data, value.size, &fields);
    ++*records;
    for (size_t i = 0; i < coll.indexes.size(); ++i) {
      for (const std::string& k : index_keys(coll.indexes[i], doc)) {
        expected[i].add(index_entry_key(coll.indexes[i], k, rkey) + '\0' + rkey);
      }
    }
  }
  return ret;
}

// The entries an index holds; with `produced` (the second pass), each is checked against it.
int scan_index(OperationContext& op, const IndexSpec& spec, IndexEntries& found,
                               const std::set<std::string>* produced, ValidateResult& r) {
  int ret = 0;
  WT_CURSOR* ic = op.cursor(spec.table, &ret);
  while (ic != nullptr && (ret = ic->next(ic)) == 0) {
    WT_ITEM key, value;
    ic->get_key(ic, &key);
    ic->get_value(ic, &value);
    std::string entry = string_of(key) + '\0' + string_of(value);
    if (produced != nullptr && produced->count(entry) == 0) report(r, "index " + spec.name + " has an entry no record produces");
    found.add(std::move(entry));
  }
  return ret == WT_NOTFOUND ? 0 : ret;
}

}  // namespace

ValidateResult DocumentEngine::validate(OperationContext& op, const std::string& ns) {
  ValidateResult r;
  const CollectionSpec* coll = state_.catalog.find(ns);
  if (coll == nullptr) return r;
  HierarchicalLock lock(state_.locks, coll->db(), coll->name(), LockMode::kIS, LockPolicy::kCollection);  // S: a stable view
  if (op.begin() != 0) return report(r, "cannot begin a transaction"), r;
  const size_t n = coll->indexes.size();
  std::vector<IndexEntries> expected(n);
  int ret = scan_records(op, *coll, expected, &r.records);
  if (ret != WT_NOTFOUND) report(r, "record store scan failed: " + std::string(wiredtiger_strerror(ret)));
  if (static_cast<int64_t>(r.records) != state_.counts[ns].count) {
    report(r, "count is " + std::to_string(state_.counts[ns].count) + " but the record store holds " + std::to_string(r.records));
  }
  for (size_t i = 0; i < n; ++i) {
    const IndexSpec& spec = coll->indexes[i];
    IndexEntries found;
    if ((ret = scan_index(op, spec, found, nullptr, r)) != 0) report(r, "index " + spec.name + " scan failed");
    r.index_entries += found.digest.count;
    if (found.digest == expected[i].digest) continue;
    // Second pass, same snapshot: the entries themselves.
    std::set<std::string> produced, held;
    std::vector<IndexEntries> again(n);
    again[i].exact = &produced;
    uint64_t records = 0;
    scan_records(op, *coll, again, &records);
    IndexEntries exact{{}, &held};
    scan_index(op, spec, exact, &produced, r);
    if (held.size() != produced.size()) {
      report(r, "index " + spec.name + " has " + std::to_string(held.size()) + " entries, the records produce " +
                    std::to_string(produced.size()));
    }
    if (r.valid) report(r, "index " + spec.name + " holds other entries than the records produce");
  }
  op.rollback();
  return r;
}

}  // namespace wtsim::engine
