#pragma once
// The document engine: a small MongoDB on WiredTiger. Collections are clustered by _id (record
// store key = KeyString of _id, value = BSON); secondary indexes (single field, compound, unique,
// multikey) and the oplog are written in the same WiredTiger transaction as the record. Every
// update or delete of a document is one unit of work; insertMany groups up to 64 new documents
// per unit of work and falls back to one at a time when a group fails (as MongoDB 3.6+). Locks
// follow the node's policy and are held while the operation pays its virtual cost.
//
// DocumentEngine is the front: it runs the write commands (insert, update, delete) over its
// parts and answers the introspection commands; the parts do the rest.
//   engine/write_unit.h      one document's unit of work: locks, retries, record, indexes, cost
//   engine/query_executor.h  find, explain, and the scans writes and index builds use
//   engine/oplog.h           the oplog's entries and trimming
//   engine/ddl.h             collections, indexes, collMod, the catalog at open
//   engine/ttl_pass.h        one pass of the TTL monitor
//   engine/engine_state.h    what they share (catalog, locks, metrics, per-collection state)
#include <wiredtiger.h>

#include <optional>
#include <string>
#include <vector>

#include "engine/ddl.h"
#include "engine/engine_state.h"
#include "engine/engine_types.h"
#include "engine/min_valid.h"
#include "engine/oplog.h"
#include "engine/operation_context.h"
#include "engine/query_executor.h"
#include "engine/ttl_pass.h"
#include "engine/write_unit.h"

namespace wtsim::engine {

class DocumentEngine {
 public:
  static constexpr const char* kOplogUri = Oplog::kUri;
  static constexpr size_t kInsertGroupMax = 64;  // MongoDB's internalInsertMaxBatchSize

  DocumentEngine(EngineConfig config, EngineEnv env, WT_CONNECTION* conn);
  DocumentEngine(const DocumentEngine&) = delete;
  DocumentEngine& operator=(const DocumentEngine&) = delete;
  // Loads the catalog, creates the oplog, recounts collections, drops the tables no catalog row
  // names (engine/unnamed_tables.h). Returns WiredTiger's code.
  int open(OperationContext& op);
  // The tables open() dropped.
  const std::vector<std::string>& tables_dropped_at_open() const { return dropped_at_open_; }

  // --- DDL ---
  Status create_collection(OperationContext& op, const std::string& ns, CollectionOptions options = {}) {
    return ddl_.create_collection(op, ns, options);
  }
  Status create_index(OperationContext& op, const std::string& ns, IndexSpec spec) {
    return ddl_.create_index(op, ns, std::move(spec));
  }
  Status drop_index(OperationContext& op, const std::string& ns, const std::string& name) {
    return ddl_.drop_index(op, ns, name);
  }
  Status set_expire_after(OperationContext& op, const std::string& ns, const std::string& index,
                          std::optional<Document> expire_after_seconds) {
    return ddl_.set_expire_after(op, ns, index, std::move(expire_after_seconds));
  }
  // The collection, its indexes and documents in one durable transaction (engine/drop.cpp).
  Status drop_collection(OperationContext& op, const std::string& ns);
  CollModResult coll_mod(OperationContext& op, const std::string& ns, const CollModRequest& request) {
    return ddl_.coll_mod(op, ns, request);
  }

  // --- CRUD (engine/write_commands.cpp) ---
  WriteResult insert_many(OperationContext& op, const std::string& ns, std::vector<Document> docs,
                          WriteConcern wc, bool ordered = true);
  WriteResult update(OperationContext& op, const std::string& ns, const Document& filter,
                     const Document& update, bool upsert, bool multi, WriteConcern wc);
  WriteResult remove(OperationContext& op, const std::string& ns, const Document& filter, bool just_one,
                     WriteConcern wc, bool count_as_user_op = true);
  FindResult find(OperationContext& op, const std::string& ns, const FindRequest& request) {
    return queries_.find(op, ns, request);
  }
  // engine/find_and_modify.cpp
  FindAndModifyResult find_and_modify(OperationContext& op, const std::string& ns, const FindAndModifyRequest& request,
                                      WriteConcern wc);

  // --- Replication (engine/write_commands.cpp) ---
  // Applies an entry of another node's oplog: "u" replaces (or inserts) the document with its
  // _id, "d" deletes it, "n" changes nothing. Idempotent, as MongoDB's oplog application: an
  // entry applied twice leaves what once did. This node's own oplog entry for it takes the
  // entry's ts (an apply that changed nothing copies the entry as it is), so the highest ts of this
  // node's oplog is how far it has applied. Entries must come in ts order, above next_oplog_ts().
  Status apply_oplog_entry(OperationContext& op, const OplogEntry& entry);
  // Up to `max` entries of this node's oplog above `after_ts`.
  int read_oplog_after(OperationContext& op, uint64_t after_ts, size_t max, std::vector<OplogEntry>* out) {
    return Oplog::read_after(op, after_ts, max, out);
  }
  // The same, as a sync source serves them: only below the oldest entry whose transaction is
  // still open (engine/oplog_holes.h), so that a member never skips one.
  int read_oplog_visible(OperationContext& op, uint64_t after_ts, size_t max, std::vector<OplogEntry>* out) {
    return Oplog::read_after(op, after_ts, max, out, oplog_.visible_below());
  }
  uint64_t next_oplog_ts() const { return oplog_.next_ts(); }
  uint64_t first_oplog_ts() const { return oplog_.first_ts(); }

  // --- Rollback (engine/rollback.cpp), as MongoDB's rollback via refetch ---
  // The documents with these (ns, _id), read in one snapshot (nullopt: absent), as a sync source
  // answers a rolling-back member. No metrics, no locks: a checker's read.
  int documents_by_id(OperationContext& op, const std::vector<std::pair<std::string, Document>>& keys,
                      std::vector<std::optional<Document>>* out);
  // A rollback's steps, in order (world/secondary_rollback.cpp):
  //  1. begin_rollback: minValid (engine/min_valid.h) set to the sync source's newest entry,
  //     durable before any document is put back;
  //  2. restore_document for every document a divergent entry touched: the sync source's version
  //     (nullopt: it has none, delete it), with no oplog entry (MongoDB's unreplicated writes);
  //  3. finish_rollback: the entries above the common point dropped and minValid marked truncated,
  //     in one transaction, durable.
  // A crash before step 3 leaves the divergent entries: the member diverges again and redoes the
  // rollback from the start (each step is idempotent). Once the applier has reached minValid,
  // note_applied clears it.
  Status begin_rollback(OperationContext& op, uint64_t min_valid_ts);
  Status restore_document(OperationContext& op, const std::string& ns, const Document& id, const std::optional<Document>& image);
  Status finish_rollback(OperationContext& op, uint64_t common_ts);
  Status note_applied(OperationContext& op);
  // Set from a rollback's start until the applier reaches it: the data is not yet consistent.
  const std::optional<MinValidPoint>& min_valid() const { return min_valid_.point(); }

  // --- Introspection ---
  ValidateResult validate(OperationContext& op, const std::string& ns);
  Document server_status(OperationContext& op);
  Document coll_stats(const std::string& ns) const;
  // For checkers: the allocator's memory of a padded collection (the memory_* fields of `out`;
  // its tables are read by the checker itself, properties/padded_tables.h).
  Status padded_memory(const std::string& ns, PaddedLayout* out) const;

  // --- Background work ---
  TtlPassResult ttl_pass(OperationContext& op, bool primary) { return ttl_.run(op, primary); }
  int trim_oplog(OperationContext& op) { return oplog_.trim(op); }
  // Milliseconds since the epoch on the virtual clock (what new Date() returns).
  int64_t now_ms() const { return state_.now_ms(); }

  const Catalog& catalog() const { return state_.catalog; }
  Metrics& metrics() { return state_.metrics; }
  LockManager& locks() { return state_.locks; }
  // A padded record is between its old and new slot (a crash now is a crash mid-move).
  bool moving() const { return writes_.moving(); }
  const EngineConfig& config() const { return state_.config; }
  // A replica set member that becomes primary: its oplog entries carry its new term from now on.
  void set_oplog_term(uint64_t term) { state_.config.oplog_term = term; }

 private:
  // The collection a write goes to, created implicitly as MongoDB does; nullptr (and the reason
  // in *result) when it cannot be.
  const CollectionSpec* collection_for_write(OperationContext& op, const std::string& ns, WriteResult* result);
  // insert_many's two paths: a group in one unit of work, or one document at a time.
  void insert_in_groups(OperationContext& op, const CollectionSpec& coll, std::vector<Document>& docs, bool ordered,
                        CommitTickets& tickets, WriteResult* result);
  // Inserts docs[start, stop) one at a time; false when an ordered insert must stop.
  bool insert_one_by_one(OperationContext& op, const CollectionSpec& coll, std::vector<Document>& docs, size_t start,
                         size_t stop, bool ordered, CommitTickets& tickets, WriteResult* result);
  WriteOutcome insert_one(OperationContext& op, const CollectionSpec& coll, Document& doc, CommitTickets& tickets);
  // `inserted`, if given, receives the document the upsert inserted.
  void upsert(OperationContext& op, const CollectionSpec& coll, const Document& filter, const Document& update,
              CommitTickets& tickets, WriteResult* result, Document* inserted = nullptr);
  // findAndModify's one document: the record key of the first match of `query` in `sort` order
  // ("" when none), and the query narrowed to it.
  Status pick_one(OperationContext& op, const CollectionSpec& coll, const FindAndModifyRequest& request, std::string* rkey);
  // Ends a write command: the journal flush a j:true command waits for.
  void finish(OperationContext& op, const CommitTickets& tickets, WriteResult* result);

  EngineState state_;
  Oplog oplog_;
  MinValid min_valid_;
  WriteUnit writes_;
  QueryExecutor queries_;
  Ddl ddl_;
  TtlPass ttl_;
  std::vector<std::string> dropped_at_open_;
};

}  // namespace wtsim::engine
