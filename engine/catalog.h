#pragma once
// The catalog: databases, collections and their indexes, persisted in WiredTiger (table
// "_catalog", one JSON row per namespace) so that it recovers with the data.
#include <wiredtiger.h>

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/document.h"
#include "engine/mmap_allocator.h"

namespace wtsim::engine {

struct IndexSpec {
  std::string name;                               // e.g. "created_at_1"
  std::vector<std::pair<std::string, int>> fields;  // (path, 1 or -1)
  bool unique = false;
  std::optional<Document> expire_after_seconds;   // TTL: a number (or a non-numeric mistake)
  std::string table;                              // WiredTiger URI of the index table
  // partialFilterExpression: only documents matching it have entries (engine/partial_filter.h).
  std::optional<Document> partial_filter = std::nullopt;

  bool is_id() const { return name == "_id_"; }
};

struct CollectionSpec {
  std::string ns;     // "db.coll"
  std::string table;  // WiredTiger URI of the record store
  uint64_t capped_max_docs = 0;  // 0: not capped
  // The MMAPv1-style padded record store (records keyed by RecordId, an _id index, moves).
  bool padded = false;
  // Records keyed by _id (MongoDB 5.3's clustered collection: natural order is _id order, no _id
  // index). Otherwise keyed by RecordId, in insertion order, with a unique _id index.
  bool clustered = false;
  bool power_of_2_sizes = false;  // userFlags 1
  bool no_padding = false;        // userFlags 2
  MmapAllocator::PaddingRules padding_rules = MmapAllocator::PaddingRules::kV26;
  MmapAllocator::Options allocator_options() const { return {power_of_2_sizes, no_padding, padding_rules}; }
  std::vector<IndexSpec> indexes;  // the _id index first, unless clustered

  std::string db() const { return ns.substr(0, ns.find('.')); }
  std::string name() const { return ns.substr(ns.find('.') + 1); }
  const IndexSpec* index(const std::string& name) const;
};

Document to_json(const IndexSpec& spec);
IndexSpec index_from_json(const Document& j);
Document to_json(const CollectionSpec& spec);
CollectionSpec collection_from_json(const Document& j);

// Index name MongoDB would give a key pattern: {a: 1, b: -1} -> "a_1_b_-1".
std::string default_index_name(const std::vector<std::pair<std::string, int>>& fields);

class Catalog {
 public:
  static constexpr const char* kUri = "table:_catalog";

  // Creates the catalog table if needed and loads every collection. Returns WiredTiger's code.
  int load(WT_SESSION* session);
  // One collection's row as stored (JSON text).
  static std::string row_of(const CollectionSpec& spec) { return to_json(spec).dump(); }
  // Writes one collection's row in the caller's transaction.
  int save(WT_SESSION* session, const std::string& ns, const std::string& row);
  int remove(WT_SESSION* session, const std::string& ns);

  const CollectionSpec* find(const std::string& ns) const;
  CollectionSpec* find_mutable(const std::string& ns);
  void put(CollectionSpec spec) { collections_[spec.ns] = std::move(spec); }
  // A dropped collection's spec leaves the catalog but stays where it is: an operation that
  // yielded holding it finds it dropped (WriteUnit::dropped) instead of reading freed memory.
  void erase(const std::string& ns) {
    auto node = collections_.extract(ns);
    if (!node.empty()) dropped_.push_back(std::move(node));
  }
  const std::map<std::string, CollectionSpec>& collections() const { return collections_; }
  uint64_t next_ident() { return ++last_ident_; }
  // The engine's tables ("table:c<N>...", "table:i<N>") WiredTiger's metadata held at load(), in
  // its order: what the start compares with the rows (engine/unnamed_tables.h).
  const std::vector<std::string>& stored_tables() const { return stored_tables_; }

 private:
  int bump_past_existing_tables(WT_SESSION* session);

  std::map<std::string, CollectionSpec> collections_;  // sorted: deterministic iteration
  std::vector<std::map<std::string, CollectionSpec>::node_type> dropped_;  // one per drop since open
  uint64_t last_ident_ = 0;
  std::vector<std::string> stored_tables_;
};

}  // namespace wtsim::engine
