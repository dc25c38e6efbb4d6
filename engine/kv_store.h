#pragma once
// The key/value store on WiredTiger that the first end-to-end runs exercise: one table, string
// keys and values, one snapshot-isolation transaction per commit.
#include <wiredtiger.h>

#include <optional>
#include <string>
#include <vector>

#include "models/kv_model.h"

namespace wtsim::engine {

class KvSession {
 public:
  static constexpr const char* kUri = "table:kv";

  explicit KvSession(WT_CONNECTION* conn);
  ~KvSession();
  KvSession(const KvSession&) = delete;
  KvSession& operator=(const KvSession&) = delete;

  // Creates the table if it does not exist. Returns WiredTiger's code.
  int create_table();
  // Begins a transaction and applies `writes`. On failure the transaction is rolled back.
  int apply(const std::vector<models::KvWrite>& writes);
  // Commits the open transaction; `durable` syncs the log before returning.
  int commit(bool durable);
  // Forces the log to stable storage ("sync=on").
  int log_flush();
  int verify();
  // Reads every key. Returns WiredTiger's code; fills `out` on success.
  int read_all(models::KvState& out);

  WT_SESSION* session() const { return session_; }

 private:
  int open_cursor();

  WT_SESSION* session_ = nullptr;
  WT_CURSOR* cursor_ = nullptr;
};

}  // namespace wtsim::engine
