#include "properties/coverage.h"

#include <algorithm>

namespace wtsim::properties {

const std::vector<CoverageMarker>& coverage_catalogue() {
  static const std::vector<CoverageMarker> markers = {
      {"crash_during_recovery", "the node crashed again while recovering", {}, "crash"},
      {"crash_during_eviction", "the crashing disk operation was WiredTiger evicting a page", {}, "crash"},
      {"crash_during_checkpoint", "the crashing disk operation came while a checkpoint ran", {}, "crash"},
      {"crash_during_log_switch", "the crashing disk operation created a new log file or closed the old one", {}, "crash"},
      {"crash_during_padding_move", "a crash hit while a padded record was moving", {"padding"}, "crash"},
      {"crash_during_backup_copy", "a crash hit while a hot backup was copying", {"backup"}, "crash"},
      {"crash_during_ttl_pass", "a crash hit while the TTL monitor was deleting", {"time_series"}, "crash"},
      {"torn_log_tail_recovered", "a torn-write crash cut unsynced commits and recovery held", {}, "crash"},
      {"unsynced_commits_lost", "a crash lost acknowledged non-durable commits (legal) and recovery held", {}, "crash"},
      {"write_conflict_retried", "a write conflict was retried", {"documents"}, ""},
      {"lock_waited", "a lock request queued behind a conflicting one", {"documents", "padding", "backup", "time_series"}, ""},
      {"record_moved", "a padded record outgrew its slot and moved", {"padding"}, ""},
      {"ttl_deleted", "the TTL monitor deleted documents", {"time_series"}, ""},
      {"sentinel_recovery", "a restart found backup.in_progress and did a normal crash recovery", {"backup"}, "crash"},
      {"io_error_injected", "an injected EIO reached WiredTiger", {}, "io_error"},
      {"enospc_reached", "WiredTiger got ENOSPC from the disk", {}, "disk_full"},
  };
  return markers;
}

bool is_known_marker(const std::string& name) {
  const auto& all = coverage_catalogue();
  return std::any_of(all.begin(), all.end(), [&](const CoverageMarker& m) { return name == m.name; });
}

bool applies_to(const CoverageMarker& m, const std::string& workload_kind, const std::vector<std::string>& fault_kinds) {
  const bool kind_ok = m.kinds.empty() || std::find(m.kinds.begin(), m.kinds.end(), workload_kind) != m.kinds.end();
  const std::string need = m.needs_fault;
  return kind_ok && (need.empty() || std::find(fault_kinds.begin(), fault_kinds.end(), need) != fault_kinds.end());
}

}  // namespace wtsim::properties
