#include "properties/coverage.h"

#include <algorithm>
#include <cassert>

namespace wtsim::properties {

const std::vector<CoverageMarker>& coverage_catalogue() {
  static const std::vector<CoverageMarker> markers = {
      {Marker::kCrashDuringRecovery, "crash_during_recovery", "the node crashed again while recovering", {}, "crash"},
      {Marker::kCrashDuringEviction, "crash_during_eviction", "the crashing disk operation was WiredTiger evicting a page", {}, "crash"},
      {Marker::kCrashDuringCheckpoint, "crash_during_checkpoint", "the crashing disk operation came while a checkpoint ran", {}, "crash"},
      {Marker::kCrashDuringLogSwitch, "crash_during_log_switch", "the crash came while the log switched files: from the new file's creation to the sync that closes the old one", {}, "crash"},
      {Marker::kCrashDuringPaddingMove, "crash_during_padding_move", "a crash hit while a padded record was moving", {"padding"}, "crash"},
      {Marker::kCrashDuringBackupCopy, "crash_during_backup_copy", "a crash hit while a hot backup was copying", {"backup"}, "crash"},
      {Marker::kCrashDuringTtlPass, "crash_during_ttl_pass", "a crash hit while the TTL monitor was deleting", {"time_series"}, "crash"},
      {Marker::kTornLogTailRecovered, "torn_log_tail_recovered", "a torn-write crash cut unsynced commits and recovery held", {}, "crash"},
      {Marker::kUnsyncedCommitsLost, "unsynced_commits_lost", "a crash lost acknowledged non-durable commits (legal) and recovery held", {}, "crash"},
      {Marker::kWriteConflictRetried, "write_conflict_retried", "a write conflict was retried", {"documents"}, ""},
      {Marker::kLockWaited, "lock_waited", "a lock request queued behind a conflicting one", {"documents", "padding", "backup", "time_series"}, ""},
      {Marker::kRecordMoved, "record_moved", "a padded record outgrew its slot and moved", {"padding"}, ""},
      {Marker::kTtlDeleted, "ttl_deleted", "the TTL monitor deleted documents", {"time_series"}, ""},
      {Marker::kSentinelRecovery, "sentinel_recovery", "a restart found backup.in_progress and did a normal crash recovery", {"backup"}, "crash"},
      {Marker::kIoErrorInjected, "io_error_injected", "an injected EIO reached WiredTiger", {}, "io_error"},
      {Marker::kEnospcReached, "enospc_reached", "WiredTiger got ENOSPC from the disk", {}, "disk_full"},
      {Marker::kRollback, "rollback", "a replica set member rolled back entries the primary had lost in a crash", {}, "replica_set"},
      {Marker::kNetworkHealed, "network_healed", "a window of cut network links ended (a partition healed)", {}, "network"},
      {Marker::kFailover, "failover", "with elections, a member won an election (a primary crashed, stepped down or was cut off)", {}, "elections"},
      {Marker::kFailoverDuringBackup, "failover_during_backup", "with elections, a member won an election while a member's hot backup was copying", {"documents"}, "elections"},
      {Marker::kTtlPassAcrossFailover, "ttl_pass_across_failover", "with elections, a primary's TTL monitor deleted documents after another member's had, as the primary of an older term", {"documents"}, "elections"},
      {Marker::kPausedPrimaryReplaced, "paused_primary_replaced", "with elections, a primary stalled by a pause resumed after another member was elected in a newer term", {}, "pause"},
      {Marker::kPrimarySteppedDown, "primary_stepped_down", "with elections, a primary stepped down on replSetStepDown once a secondary had caught up", {}, "step_down"},
  };
  assert(markers.size() == kMarkerCount);
  return markers;
}

const char* name_of(Marker marker) {
  const size_t i = static_cast<size_t>(marker);
  assert(i < coverage_catalogue().size());
  assert(coverage_catalogue()[i].marker == marker && "the catalogue is in the enum's order");
  return coverage_catalogue()[i].name;
}

std::optional<Marker> find_marker(const std::string& name) {
  for (const CoverageMarker& m : coverage_catalogue()) {
    if (name == m.name) return m.marker;
  }
  return std::nullopt;
}

bool applies_to(const CoverageMarker& m, const std::string& workload_kind, const std::vector<std::string>& fault_kinds) {
  const bool kind_ok = m.kinds.empty() || std::find(m.kinds.begin(), m.kinds.end(), workload_kind) != m.kinds.end();
  const std::string need = m.needs_fault;
  return kind_ok && (need.empty() || std::find(fault_kinds.begin(), fault_kinds.end(), need) != fault_kinds.end());
}

}  // namespace wtsim::properties
