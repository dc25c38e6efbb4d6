#pragma once
// What the document engine's parts share: its configuration and environment, the catalog, the
// locks, the counters, and each collection's in-memory state (counts, a padded collection's
// allocator). One per engine, owned by the front (engine/engine.h); each part holds a reference.
#include <wiredtiger.h>

#include <cassert>
#include <map>
#include <string>

#include "engine/catalog.h"
#include "engine/key_string.h"
#include "engine/deleted_entries.h"
#include "engine/engine_types.h"
#include "engine/lock_manager.h"
#include "engine/metrics.h"
#include "engine/mmap_allocator.h"
#include "engine/operation_context.h"

namespace wtsim::engine {

struct CollectionCounts {
  int64_t count = 0;
  int64_t data_bytes = 0;
};

struct EngineState {
  EngineState(EngineConfig config_in, EngineEnv env_in, WT_CONNECTION* conn_in)
      : config(std::move(config_in)), env(std::move(env_in)), conn(conn_in), locks(*env.sim) {
    assert(env.sim != nullptr && env.cpu != nullptr);
    assert(conn != nullptr);
  }

  // MMAPv1 collections take collection locks whatever the node's policy.
  LockPolicy policy_for(const CollectionSpec& coll) const { return coll.padded ? LockPolicy::kCollection : config.policy; }
  MmapAllocator& allocator(const CollectionSpec& coll) {
    assert(coll.padded && allocators.count(coll.ns) == 1);
    return allocators.at(coll.ns);
  }
  // A new document's record key in a RecordId-keyed collection (neither padded nor clustered).
  // As MongoDB's, a RecordId of a transaction that rolled back is not handed out again.
  std::string next_record_key(const CollectionSpec& coll) {
    assert(!coll.padded && !coll.clustered && last_record_ids.count(coll.ns) == 1);
    return record_id_key(++last_record_ids[coll.ns]);
  }
  // The virtual CPU time of a scan that examined `keys` index entries and `docs` documents.
  void pay_scan_cost(uint64_t keys, uint64_t docs, uint64_t deleted_entries = 0) {
    env.cpu->use(config.cost.cpu_per_key_ns * static_cast<sim::Nanos>(keys) +
                 config.cost.cpu_per_doc_ns * static_cast<sim::Nanos>(docs) +
                 config.cost.deleted_entry_ns * static_cast<sim::Nanos>(deleted_entries));
  }
  // After a commit: the transaction's index edits enter the deleted-entry model.
  void index_edits_committed(OperationContext& op) {
    deleted_entries.committed(op.index_edits, env.sim->now_ns());
    op.index_edits.clear();
  }
  // Milliseconds since the epoch on the virtual clock (what new Date() returns).
  int64_t now_ms() const { return sim::kVirtualEpochSec * 1000 + env.sim->now_ns() / sim::kNsPerMs; }

  EngineConfig config;
  EngineEnv env;
  WT_CONNECTION* conn;
  Catalog catalog;
  LockManager locks;
  Metrics metrics;
  std::map<std::string, CollectionCounts> counts;
  std::map<std::string, MmapAllocator> allocators;  // padded collections
  std::map<std::string, uint64_t> last_record_ids;   // RecordId-keyed collections: the last one handed out
  DeletedEntries deleted_entries;                    // index tombstones still in WiredTiger's memory
  uint64_t next_object_id = 1;
};

}  // namespace wtsim::engine
