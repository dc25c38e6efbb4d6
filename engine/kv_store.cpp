#include "engine/kv_store.h"

#include "engine/wt_schema.h"
#include "sim/planted.h"

#include <cassert>

#include "engine/wt_error.h"

namespace wtsim::engine {

KvSession::KvSession(WT_CONNECTION* conn) {
  // Every transaction takes the session's isolation: begin_transaction passes no configuration
  // (WiredTiger would parse it at each begin).
  check_wt(conn->open_session(conn, nullptr, "isolation=snapshot", &session_), "open_session");
}

KvSession::~KvSession() {
  if (session_ != nullptr) session_->close(session_, nullptr);  // closes the cursor too
}

int KvSession::create_table() {
  const int ret = engine::create_table(session_, kUri, "key_format=S,value_format=S");  // repairs a cut-short create
  return ret != 0 ? ret : open_cursor();
}

int KvSession::open_cursor() {
  if (cursor_ != nullptr) return 0;
  return session_->open_cursor(session_, kUri, nullptr, nullptr, &cursor_);
}

int KvSession::apply(const std::vector<models::KvWrite>& writes) {
  int ret = open_cursor();
  if (ret != 0) return ret;
  ret = session_->begin_transaction(session_, nullptr);
  if (ret != 0) return ret;
  for (const models::KvWrite& w : writes) {
    cursor_->set_key(cursor_, w.key.c_str());
    if (w.value) {
      const std::string cut = planted::active(planted::Bug::kTruncateLongValues) ? w.value->substr(0, 128) : std::string();
      cursor_->set_value(cursor_, cut.empty() ? w.value->c_str() : cut.c_str());
      ret = cursor_->insert(cursor_);
    } else {
      ret = cursor_->remove(cursor_);
      if (ret == WT_NOTFOUND) ret = 0;  // deleting an absent key is a no-op
    }
    if (ret != 0 || planted::active(planted::Bug::kTxnWritesFirstKeyOnly)) break;
  }
  cursor_->reset(cursor_);
  if (ret != 0) session_->rollback_transaction(session_, nullptr);
  return ret;
}

int KvSession::commit(bool durable) {
  // The connection's transaction_sync method is "none" (the log record is written by the
  // committing thread, deterministically, but not synced), and a commit's "sync=on" only
  // inherits that method. A durable commit therefore forces the log to stable storage itself.
  const int ret = session_->commit_transaction(session_, nullptr);
  if (ret != 0 || !durable) return ret;
  if (planted::active(planted::Bug::kAckBeforeSync)) return 0;  // the journal flusher will sync it
  return log_flush();
}

int KvSession::log_flush() { return session_->log_flush(session_, "sync=on"); }

int KvSession::verify() {
  if (cursor_ != nullptr) {
    cursor_->close(cursor_);
    cursor_ = nullptr;
  }
  return session_->verify(session_, kUri, nullptr);
}

int KvSession::read_all(models::KvState& out) {
  out.clear();
  int ret = open_cursor();
  if (ret != 0) return ret;
  ret = session_->begin_transaction(session_, nullptr);
  if (ret != 0) return ret;
  while ((ret = cursor_->next(cursor_)) == 0) {
    const char* key = nullptr;
    const char* value = nullptr;
    if ((ret = cursor_->get_key(cursor_, &key)) != 0) break;
    if ((ret = cursor_->get_value(cursor_, &value)) != 0) break;
    out.emplace(key, value);
  }
  cursor_->reset(cursor_);
  session_->rollback_transaction(session_, nullptr);
  return ret == WT_NOTFOUND ? 0 : ret;
}

}  // namespace wtsim::engine
