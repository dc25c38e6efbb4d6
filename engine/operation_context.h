#pragma once
// One client's connection to the engine: a WiredTiger session and its cached cursors. Owned by
// one fiber; closing it (destruction) closes the session and every cursor.
#include <wiredtiger.h>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/deleted_entries.h"
#include "engine/oplog_holes.h"

namespace wtsim::engine {

class OperationContext {
 public:
  explicit OperationContext(WT_CONNECTION* conn);
  ~OperationContext();
  OperationContext(const OperationContext&) = delete;
  OperationContext& operator=(const OperationContext&) = delete;

  WT_SESSION* session() const { return session_; }
  // A cursor on `uri`, opened once and kept; reset before it is handed out. nullptr on error
  // (the WiredTiger code is in *ret).
  WT_CURSOR* cursor(const std::string& uri, int* ret);
  // Drops cached cursors (needed before verify, drop, or when a table goes away).
  void close_cursors();

  int begin() {
    index_edits.clear();
    // No configuration: the session's own isolation (snapshot, set at open_session) applies, and
    // WiredTiger parses a configuration string at every begin.
    return session_->begin_transaction(session_, nullptr);
  }
  int commit() {
    const int ret = session_->commit_transaction(session_, nullptr);
    release_oplog_holds();
    return ret;
  }
  void rollback() {
    index_edits.clear();
    session_->rollback_transaction(session_, nullptr);
    release_oplog_holds();
  }
  int flush_log() { return session_->log_flush(session_, "sync=on"); }

  // Set while this operation runs the TTL monitor's deletes: the index's field and
  // expireAfterSeconds tag its writes. Per operation, not per engine: while a pass yields, other
  // clients write, and an engine-wide tag made their updates look like TTL deletes.
  struct TtlTag {
    std::string field;
    double expire_after_s = 0;
    std::string index;     // the TTL index's name
    int64_t bound_ms = 0;  // the pass's bound: documents whose Date is below it expire
  };
  std::optional<TtlTag> ttl_tag;

  // Set while this operation applies a replicated oplog entry: the write's own oplog entry
  // takes the primary's ts, so the replica's oplog says how far it has applied.
  std::optional<uint64_t> oplog_ts;
  uint64_t oplog_term = 0;  // with oplog_ts: the replicated entry's term
  // Set while a rollback puts back the sync source's version of a document: the write has no
  // oplog entry (MongoDB's unreplicated writes); the rollback truncates the oplog itself.
  bool unreplicated = false;

  // The open transaction took oplog entry `ts`: readers of the oplog stop below it until the
  // transaction commits or rolls back (engine/oplog_holes.h).
  void hold_oplog_ts(const std::shared_ptr<OplogHoles>& holes, uint64_t ts);
  // The newest oplog entry this operation's transactions took (MongoDB's client lastOp): a
  // w:"majority" write waits for it to reach a majority. The caller resets it per command.
  uint64_t last_op_ts = 0;

  // The index entries this transaction wrote and removed, for the engine's model of deleted
  // entries still in memory (engine/deleted_entries.h). Cleared by begin() and rollback().
  std::vector<IndexEdit> index_edits;

 private:
  void release_oplog_holds();

  WT_SESSION* session_ = nullptr;
  std::map<std::string, WT_CURSOR*> cursors_;
  std::shared_ptr<OplogHoles> holes_;  // shared: a connection's engine may go before its sessions
  std::vector<uint64_t> held_ts_;
};

// WT_ITEM helpers for the raw (key_format=u, value_format=u) tables.
inline WT_ITEM item_of(const std::string& bytes) {
  WT_ITEM item{};
  item.data = bytes.data();
  item.size = bytes.size();
  return item;
}
inline std::string string_of(const WT_ITEM& item) {
  return std::string(static_cast<const char*>(item.data), item.size);
}

}  // namespace wtsim::engine
