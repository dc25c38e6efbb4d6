#pragma once
// The document engine: a small MongoDB on WiredTiger. Collections are clustered by _id (record
// store key = KeyString of _id, value = BSON); secondary indexes (single field, compound, unique,
// multikey) and the oplog are written in the same WiredTiger transaction as the record. Every
// update or delete of a document is one unit of work; insertMany groups up to 64 new documents
// per unit of work and falls back to one at a time when a group fails (as MongoDB 3.6+). Locks follow the node's policy and
// are held while the operation pays its virtual cost.
#include <wiredtiger.h>

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/buggify.h"
#include "engine/catalog.h"
#include "engine/commit_observer.h"
#include "engine/cost_model.h"
#include "engine/document.h"
#include "engine/lock_manager.h"
#include "engine/metrics.h"
#include "engine/mmap_allocator.h"
#include "engine/operation_context.h"
#include "engine/status.h"
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
  std::vector<WriteError> errors;
  int wt_code = 0;  // a WiredTiger failure that ended the operation (I/O error, panic)
  bool ok() const { return errors.empty() && wt_code == 0; }
};

struct FindRequest {
  Document filter = Document::object();
  std::optional<std::pair<std::string, int>> sort;  // field, direction
  uint64_t limit = 0;                               // 0: none
  std::string hint;                                 // index name, or "" to let the planner pick
};

struct FindResult {
  std::vector<Document> docs;
  Document explain;  // explain("executionStats") form
  int wt_code = 0;
  ErrorCode code = ErrorCode::kOk;
  std::string error;
};

struct ValidateResult {
  bool valid = true;
  uint64_t records = 0;
  uint64_t index_entries = 0;
  std::vector<std::string> errors;  // first few
};

struct TtlPassResult {
  uint64_t indexes = 0;  // TTL indexes visited
  uint64_t deleted = 0;
  int wt_code = 0;
};

struct CollectionOptions {
  uint64_t capped_max_docs = 0;
  bool padded = false;  // the MMAPv1-style record store (collection-level locking, moves)
  bool power_of_2_sizes = false;
  bool no_padding = false;
};

// A padded collection's layout as persisted in its tables, and as the allocator holds it in memory.
struct PaddedLayout {
  std::vector<uint64_t> extents;
  std::vector<Region> records, free;
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
};

struct EngineEnv {
  sim::Simulator* sim = nullptr;
  sim::Resource* cpu = nullptr;
  // Disk time is paid inside WiredTiger's file-system calls (faults/sim_file_system.h), not here.
  std::function<uint64_t(const std::string& file)> file_bytes;  // real sizes on the simulated disk
  CommitObserver* observer = nullptr;
  sim::Buggify* buggify = nullptr;  // rare-but-legal switches (sim/buggify.h); null outside simulation
};

class DocumentEngine {
 public:
  static constexpr const char* kOplogUri = "table:oplog";
  static constexpr int kMaxConflictRetries = 1'000'000;  // MongoDB has no limit; we bound it
  static constexpr size_t kInsertGroupMax = 64;          // MongoDB's internalInsertMaxBatchSize

  DocumentEngine(EngineConfig config, EngineEnv env, WT_CONNECTION* conn);
  // Loads the catalog, creates the oplog, recounts collections. Returns WiredTiger's code.
  int open(OperationContext& op);

  // --- DDL ---
  Status create_collection(OperationContext& op, const std::string& ns, CollectionOptions options = {});
  Status create_index(OperationContext& op, const std::string& ns, IndexSpec spec);
  Status drop_index(OperationContext& op, const std::string& ns, const std::string& name);
  Status set_expire_after(OperationContext& op, const std::string& ns, const std::string& index,
                       std::optional<Document> expire_after_seconds);

  // --- CRUD ---
  WriteResult insert_many(OperationContext& op, const std::string& ns, std::vector<Document> docs,
                          WriteConcern wc, bool ordered = true);
  WriteResult update(OperationContext& op, const std::string& ns, const Document& filter,
                     const Document& update, bool upsert, bool multi, WriteConcern wc);
  WriteResult remove(OperationContext& op, const std::string& ns, const Document& filter, bool just_one,
                     WriteConcern wc, bool count_as_user_op = true);
  FindResult find(OperationContext& op, const std::string& ns, const FindRequest& request);

  // --- Introspection ---
  ValidateResult validate(OperationContext& op, const std::string& ns);
  Document server_status(OperationContext& op);
  Document coll_stats(const std::string& ns) const;
  int flush_journal(OperationContext& op) { return op.flush_log(); }

  // One pass of MongoDB's TTL monitor (3.0 TTLMonitor::doTTLPass): every index with a numeric
  // expireAfterSeconds and a single-field key, collections in sorted order, deletes documents
  // whose indexed Date is below now - expireAfterSeconds, in index order. On a secondary the pass
  // is counted and nothing is deleted.
  TtlPassResult ttl_pass(OperationContext& op, bool primary);
  // Documents matching `filter`, for checkers: no metrics, no locks beyond a read.
  uint64_t count_internal(OperationContext& op, const std::string& ns, const Document& filter, int* ret);
  // Milliseconds since the epoch on the virtual clock (what new Date() returns).
  int64_t now_ms() const;
  int trim_oplog(OperationContext& op);

  // For checkers: a padded collection's persisted layout beside the allocator's memory.
  Status padded_layout(OperationContext& op, const std::string& ns, PaddedLayout* out);

  const Catalog& catalog() const { return catalog_; }
  Metrics& metrics() { return metrics_; }
  LockManager& locks() { return locks_; }
  // A padded record is between its old and new slot (a crash now is a crash mid-move).
  bool moving() const { return moving_; }
  const EngineConfig& config() const { return config_; }

 private:
  struct CollectionCounts {
    int64_t count = 0;
    int64_t data_bytes = 0;
  };

  // Write internals (write_ops.cpp).
  // Inside one unit of work: sees the current document (nullopt if absent), decides the next.
  using Mutation = std::function<int(const std::optional<Document>& current, std::optional<Document>* next,
                                     int64_t* inc_total, WriteError* error)>;
  // One document's unit of work with locks, write-conflict retries and cost. Returns WiredTiger's
  // code; engine errors (duplicate key, ...) come back in *error with 0.
  // `view_fields`: a delete whose mutation reads only these top-level fields (and whose indexes
  // need no others) passes them, and the current document is decoded only that far.
  int write_one(OperationContext& op, const CollectionSpec& coll, const std::string& rkey, const Mutation& mutate,
                bool durable, std::vector<uint64_t>& tickets, WriteError* error, bool* changed,
                const std::vector<std::string>* view_fields = nullptr);
  int write_attempt(OperationContext& op, const CollectionSpec& coll, const std::string& rkey,
                    const Mutation& mutate, bool durable, std::vector<uint64_t>& tickets, WriteError* error,
                    bool* changed, const std::vector<std::string>* view_fields);
  // A write's record bytes, encoded once: the next image's BSON (record, oplog, model and cost
  // all use it) and the current record's stored size.
  struct RecordBytes {
    std::vector<uint8_t> next;
    size_t current_stored = 0;
  };
  // Writes (or removes) the record; for a padded collection the record may move: *new_rkey.
  // Documents by pointer (nullptr: absent), never copied.
  int apply_record(OperationContext& op, const CollectionSpec& coll, const std::string& rkey,
                   const Document* current, const Document* next, const RecordBytes& bytes,
                   std::string* new_rkey, int64_t* size_delta);
  // Index maintenance: only the keys that change, or, when the record moved, every key.
  int apply_indexes(OperationContext& op, const CollectionSpec& coll, const std::string& old_rkey,
                    const std::string& new_rkey, const Document* before, const Document* after,
                    WriteError* error, size_t* keys_written = nullptr);
  LockPolicy policy_for(const CollectionSpec& coll) const {
    return coll.padded ? LockPolicy::kCollection : config_.policy;  // MMAPv1 collections: collection locks
  }
  // after_bson: the new image's bytes ("u": o is the whole new document); nullptr for a delete of
  // the document with `id` ("d": o is {_id}), as MongoDB's oplog has them.
  int write_oplog(OperationContext& op, const CollectionSpec& coll, const Document* id,
                  const std::vector<uint8_t>* after_bson);
  void pay_write_cost(size_t bytes, size_t documents);
  void backoff_after_conflict(int attempt);
  void reuse_first_read(std::optional<Document>* current);  // a planted bug (sim/planted.h)
  int finish_durable(OperationContext& op, bool durable, const std::vector<uint64_t>& tickets);
  int insert_one(OperationContext& op, const CollectionSpec& coll, Document& doc, bool durable,
                 std::vector<uint64_t>& tickets, WriteError* error);
  // A group of new documents in one unit of work; *fallback when one of them cannot go in
  // (duplicate key): the caller then inserts them one at a time.
  int insert_group(OperationContext& op, const CollectionSpec& coll, const std::vector<Document*>& group,
                   bool durable, std::vector<uint64_t>& tickets, bool* fallback);
  int insert_group_attempt(OperationContext& op, const CollectionSpec& coll, const std::vector<Document*>& group,
                           bool durable, std::vector<uint64_t>& tickets, bool* fallback);
  const CollectionSpec* collection_for_write(OperationContext& op, const std::string& ns, WriteResult* result);

  // Read internals (query.cpp).
  int read_record(OperationContext& op, const CollectionSpec& coll, const std::string& rkey, Document* out);
  // Every document matching `filter` (in the caller's transaction, or its own snapshot).
  int matching_records(OperationContext& op, const CollectionSpec& coll, const Document& filter,
                       uint64_t limit, std::vector<std::pair<std::string, Document>>* out);  // (record key, doc)
  std::vector<std::string> target_keys(OperationContext& op, const CollectionSpec& coll, const Document& filter,
                                       bool just_one, int* ret, bool user_op = true);
  uint64_t delete_expired(OperationContext& op, const CollectionSpec& coll, const IndexSpec& index, int64_t bound_ms,
                          int* ret);

  int recount(OperationContext& op, const CollectionSpec& coll);
  // One catalog row in its own transaction, then a log sync.
  int save_catalog_durably(OperationContext& op, const CollectionSpec& coll);
  int commit_catalog_row(OperationContext& op, const CollectionSpec& coll);

  EngineConfig config_;
  EngineEnv env_;
  WT_CONNECTION* conn_;
  Catalog catalog_;
  LockManager locks_;
  Metrics metrics_;
  std::map<std::string, CollectionCounts> counts_;
  std::map<std::string, MmapAllocator> allocators_;  // padded collections
  uint64_t oplog_next_ts_ = 1;
  uint64_t oplog_first_ts_ = 1;
  uint64_t next_object_id_ = 1;
  std::optional<std::optional<Document>> planted_first_read_;
  bool moving_ = false;  // kRetryUsesStaleDocument only
};

}  // namespace wtsim::engine
