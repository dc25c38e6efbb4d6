#pragma once
// What the document engine's commands take and return, and how it is configured. Shared by the
// engine's parts (engine/engine_state.h) and its front (engine/engine.h).
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/commit_observer.h"
#include "engine/cost_model.h"
#include "engine/document.h"
#include "engine/lock_manager.h"
#include "engine/mmap_allocator.h"
#include "engine/status.h"
#include "sim/buggify.h"
#include "sim/scheduler.h"
#include "sim/sync.h"

namespace wtsim::engine {

struct WriteConcern {
  bool durable = false;  // j:true
};

struct WriteError {
  size_t index = 0;
  ErrorCode code = ErrorCode::kOk;
  std::string message;
};

struct WriteResult {
  uint64_t n = 0;         // inserted, matched or deleted
  uint64_t modified = 0;  // updates that changed a document
  std::vector<Document> upserted_ids;
  std::vector<WriteError> errors;  // per document, as MongoDB's writeErrors
  Status status;  // the command's own: a WiredTiger failure that ended it (I/O error, panic)
  bool ok() const { return errors.empty() && status.ok(); }
};

struct FindRequest {
  Document filter = Document::object();
  std::optional<std::pair<std::string, int>> sort;  // field, direction
  uint64_t limit = 0;                               // 0: none
  std::string hint;                                 // index name, or "" to let the planner pick
  bool user_query = true;  // false: a command's own read (findAndModify's), not counted as a query
  // showRecordId: each document gets "$recordId", its place in the record store (a padded
  // collection's extent << 32 | offset, MMAPv1's DiskLoc; a clustered one's record key, in hex;
  // else its RecordId, a number counting up from 1 in insertion order).
  bool show_record_id = false;
};

// findAndModify as MongoDB 3.2 takes it: the first document matching `query` (in `sort` order,
// if any) updated or removed, in one unit of work.
struct FindAndModifyRequest {
  Document query = Document::object();
  std::optional<std::pair<std::string, int>> sort;  // field, direction
  std::optional<Document> update;                   // the update or replacement; none: no update field
  bool remove = false;
  bool return_new = false;  // `new`: the document after the update, not before
  bool upsert = false;
  Document fields = Document::object();  // the projection of the returned document (engine/projection.h)
};

struct FindAndModifyResult : WriteResult {  // n is 0 or 1
  std::optional<Document> value;  // the document before (or, with new, after); none: null
  bool updated_existing = false;  // lastErrorObject.updatedExisting
  std::string message;            // a refusal's errmsg
};

struct FindResult {
  std::vector<Document> docs;
  Document explain;  // explain("executionStats") form
  uint64_t deleted_entries_stepped = 0;  // inside WiredTiger, unseen by explain (engine/deleted_entries.h)
  Status status;
  std::string error;  // the engine error's message
};

struct ValidateResult {
  bool valid = true;
  uint64_t records = 0;
  uint64_t index_entries = 0;
  std::vector<std::string> errors;  // first few
};

// The record keys an update or delete will visit (QueryExecutor::target_keys).
struct TargetKeys {
  std::vector<std::string> keys;
  Status status;
};

struct TtlPassResult {
  uint64_t indexes = 0;  // TTL indexes visited
  uint64_t deleted = 0;
  Status status;
};

struct CollectionOptions {
  uint64_t capped_max_docs = 0;
  bool padded = false;  // the MMAPv1-style record store (collection-level locking, moves)
  bool clustered = false;  // records keyed by _id, no _id index (never padded)
  bool power_of_2_sizes = false;
  bool no_padding = false;
  MmapAllocator::PaddingRules padding_rules = MmapAllocator::PaddingRules::kV26;
};

// A padded collection's layout as persisted in its tables, and as the allocator holds it in memory.
struct PaddedLayout {
  std::vector<uint64_t> extents;
  std::vector<Region> records, free;
  std::vector<uint32_t> record_stored_bytes;  // by record: the document's BSON bytes its value holds
  double padding_factor = 1.0;
  std::vector<Region> memory_free;  // the allocator's in-memory free list
  std::vector<uint64_t> memory_extents;
  double memory_padding_factor = 1.0;
};

struct EngineConfig {
  LockPolicy policy = LockPolicy::kDocument;
  CostModel cost;
  uint64_t oplog_max_entries = 100'000;
  bool oplog = true;
  // > 0 in a replica set: the primary's term, which its oplog entries carry ("t"), so that a
  // replica can tell an entry the primary lost in a crash from the one that took its ts after.
  uint64_t oplog_term = 0;
};

struct EngineEnv {
  sim::Simulator* sim = nullptr;
  sim::Resource* cpu = nullptr;
  // Disk time is paid inside WiredTiger's file-system calls (faults/sim_file_system.h), not here.
  std::function<uint64_t(const std::string& file)> file_bytes;  // real sizes on the simulated disk
  CommitObserver* observer = nullptr;
  sim::Buggify* buggify = nullptr;  // rare-but-legal switches (sim/buggify.h); null outside simulation
};

}  // namespace wtsim::engine
