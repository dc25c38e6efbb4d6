#include "engine/wt_connection.h"

#include <cassert>
#include <cstdio>
#include <cstdlib>
#include <regex>

#include "engine/wt_error.h"
#include "sim/virtual_clock.h"
#include "sim/wt_threads.h"

namespace wtsim::engine {
namespace {

// A crashed node's close gets this much virtual time before its connection is abandoned: about
// ten times the longest seen (110 ms, a server's sleep).
constexpr int64_t kFencedCloseNsMax = sim::kNsPerSec;

}  // namespace

WtConnection::~WtConnection() {
  if (conn_ != nullptr) close_fenced();
}

int WtConnection::open(faults::SimFileSystem& fs, const WtConfig& config) {
  assert(conn_ == nullptr);
  home_ = fs.home();
  handler_.iface.handle_error = on_error;
  handler_.iface.handle_message = on_message;
  handler_.owner = this;
  assert(config.cache_mb >= 1);
  const std::string cfg =
      "create,cache_size=" + std::to_string(config.cache_mb) + "MB," +
      "log=(enabled=true,archive=false,prealloc=false" +
      (config.log_file_max_kb > 0 ? ",file_max=" + std::to_string(config.log_file_max_kb) + "KB" : std::string()) + ")," +
      // Log files are extended with zeros before use, as fallocate does under MongoDB, so that
      // no crash leaves one holding its header alone (docs/findings.md, finding 16). WiredTiger's smallest
      // extension, not its default (the whole 100 MB file), keeps the simulated disk's figures
      // about data rather than preallocated zeros.
      "file_extend=(log=100KB)," +
      "transaction_sync=(enabled=true,method=none)," +
      "file_manager=(close_idle_time=0)," +
      "statistics=(fast)," + fs.extension_config() +
      (config.extra.empty() ? "" : "," + config.extra);
  const int ret = wiredtiger_open(home_.c_str(), &handler_.iface, cfg.c_str(), &conn_);
  // Fail closed: a WiredTiger thread running as an OS thread would make the run a race.
  if (const std::string problem = sim::wt_threads::single_thread_problem(); !problem.empty()) {
    std::fprintf(stderr, "wtsim: refusing to run: %s\n", problem.c_str());
    std::exit(2);
  }
  return ret;
}

int WtConnection::close() {
  assert(conn_ != nullptr);
  const int ret = conn_->close(conn_, nullptr);
  sim::wt_threads::connection_closed(conn_);
  conn_ = nullptr;
  return ret;
}

bool WtConnection::close_fenced() {
  assert(conn_ != nullptr);
  // The ghost keeps the old connection self-consistent, so it may even write on its way out.
  const bool abandoned = sim::wt_threads::close_or_abandon(conn_, "leak_memory=true", kFencedCloseNsMax);
  conn_ = nullptr;
  return abandoned;
}

WT_SESSION* WtConnection::open_session() {
  WT_SESSION* session = nullptr;
  check_wt(conn_->open_session(conn_, nullptr, "isolation=snapshot", &session), "open_session");
  return session;
}

std::vector<std::string> WtConnection::take_messages() {
  std::vector<std::string> out;
  out.swap(messages_);
  return out;
}

void WtConnection::record(const char* kind, std::string message) {
  // "[1600000000:123456][1234:0x7f...], file:kv.wt, ...": the time prefix is virtual but the
  // process and thread ids are not, so both go.
  static const std::regex prefix(R"(^(\[[^\]]*\])+,?\s*)");
  message = std::regex_replace(message, prefix, "");
  for (size_t pos; (pos = message.find(home_)) != std::string::npos;) {
    message.replace(pos, home_.size(), "<home>");
  }
  if (messages_.size() < 10'000) messages_.push_back(kind + message);  // bounded
}

int WtConnection::on_error(WT_EVENT_HANDLER* h, WT_SESSION*, int, const char* message) {
  reinterpret_cast<Handler*>(h)->owner->record("error: ", message);
  return 0;
}

int WtConnection::on_message(WT_EVENT_HANDLER* h, WT_SESSION*, const char* message) {
  reinterpret_cast<Handler*>(h)->owner->record("message: ", message);
  return 0;
}

}  // namespace wtsim::engine
