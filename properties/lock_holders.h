#pragma once
// lock_safety's reference: which client holds which mode on which resource, kept here from what
// each lock() call returned and each unlock() call gave back (the lock manager tells its observer
// of both), not from the lock manager's own list of grants. Each new hold is judged against the
// other clients' holds with MongoDB's matrix (properties/lock_matrix.h), so a lock manager whose
// bookkeeping loses a holder, and then grants a conflicting mode beside it, is caught though its
// own list agrees with itself.
#include <cstdint>
#include <map>
#include <string>
#include <utility>

#include "engine/lock_manager.h"

namespace wtsim::properties {

class LockHolders {
 public:
  static constexpr size_t kHoldsMax = 1'000'000;  // distinct (resource, client, mode) holds at once

  // Client `fiber` got `mode` on `resource` (a re-entrant call holds it once more). Returns false,
  // and counts a conflicting grant, if another client holds a mode incompatible with it.
  bool acquired(const std::string& resource, uint64_t fiber, engine::LockMode mode);
  // Client `fiber` gave back one hold of `mode` on `resource`.
  void released(const std::string& resource, uint64_t fiber, engine::LockMode mode);
  uint64_t conflicting_grants() const { return conflicting_grants_; }
  size_t holds() const { return holds_; }

 private:
  using Holds = std::map<std::pair<uint64_t, engine::LockMode>, uint32_t>;  // (client, mode) -> count
  std::map<std::string, Holds> by_resource_;  // ordered: nothing here depends on addresses
  uint64_t conflicting_grants_ = 0;
  size_t holds_ = 0;
};

}  // namespace wtsim::properties
