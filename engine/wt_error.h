#pragma once
// WiredTiger return codes as the engine sees them.
#include <wiredtiger.h>

#include <stdexcept>
#include <string>

namespace wtsim::engine {

// A WiredTiger call failed in a way the caller does not handle. `code` is WiredTiger's.
class WtError : public std::runtime_error {
 public:
  WtError(const std::string& what, int code)
      : std::runtime_error(what + ": " + wiredtiger_strerror(code) + " (" + std::to_string(code) + ")"),
        code_(code) {}
  int code() const { return code_; }
  bool is_panic() const { return code_ == WT_PANIC; }
  bool is_rollback() const { return code_ == WT_ROLLBACK; }

 private:
  int code_;
};

inline void check_wt(int ret, const char* what) {
  if (ret != 0) throw WtError(what, ret);
}

}  // namespace wtsim::engine
