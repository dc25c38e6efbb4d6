#pragma once
// One WiredTiger connection on a simulated file system. WiredTiger's own threads are fibers of
// the run's scheduler (sim/wt_threads.h), so its eviction, log and sweep servers run as they come,
// with default settings. The run drives checkpoints itself (no checkpoint server), no statistics
// log, no log archiving or pre-allocation, idle handles never closed. Commits write their log
// record synchronously (transaction_sync method "none": written, not synced); durable commits ask
// for "sync=on".
#include <wiredtiger.h>

#include <cstdint>
#include <string>
#include <vector>

#include "faults/sim_file_system.h"

namespace wtsim::engine {

struct WtConfig {
  uint64_t cache_mb = 256;  // 1 MB upwards: a full cache parks only the fiber that waits
  uint64_t log_file_max_kb = 0;  // 0: WiredTiger's default
  std::string extra;        // appended to wiredtiger_open's config
};

class WtConnection {
 public:
  WtConnection() = default;
  ~WtConnection();
  WtConnection(const WtConnection&) = delete;
  WtConnection& operator=(const WtConnection&) = delete;

  // Opens (and so recovers) the database on `fs`. Returns WiredTiger's code.
  int open(faults::SimFileSystem& fs, const WtConfig& config);
  // Clean close. After a crash use close_fenced(): the connection is closed with
  // leak_memory=true (its threads stopped, nothing of it reaches storage); a close still inside
  // WiredTiger after a virtual second is abandoned instead (sim::wt_threads::close_or_abandon),
  // and close_fenced() returns true.
  int close();
  bool close_fenced();
  bool is_open() const { return conn_ != nullptr; }
  WT_CONNECTION* get() const { return conn_; }

  WT_SESSION* open_session();

  // WiredTiger's messages and errors, normalised (no time/pid prefix, home alias replaced), in
  // the order they arrived. Drained by the caller into the trace.
  std::vector<std::string> take_messages();

 private:
  struct Handler {
    WT_EVENT_HANDLER iface;  // first member: WiredTiger hands this back
    WtConnection* owner;
  };
  static int on_error(WT_EVENT_HANDLER*, WT_SESSION*, int error, const char* message);
  static int on_message(WT_EVENT_HANDLER*, WT_SESSION*, const char* message);
  void record(const char* kind, std::string message);

  WT_CONNECTION* conn_ = nullptr;
  std::string home_;
  Handler handler_{};
  std::vector<std::string> messages_;
};

}  // namespace wtsim::engine
