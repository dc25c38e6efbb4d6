#pragma once
// Coverage of interesting states: named "sometimes" markers. A run counts how often it reached
// each (its verdict's "coverage"); `wtsim explore` counts the seeds that reached each and flags
// the markers a scenario could reach but no seed did - a sign the swarm or the workload no
// longer drives the engine where the bugs live.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace wtsim::properties {

enum class Marker {
  kCrashDuringRecovery,
  kCrashDuringEviction,
  kCrashDuringCheckpoint,
  kCrashDuringLogSwitch,
  kCrashDuringPaddingMove,
  kCrashDuringBackupCopy,
  kCrashDuringTtlPass,
  kTornLogTailRecovered,
  kUnsyncedCommitsLost,
  kWriteConflictRetried,
  kLockWaited,
  kRecordMoved,
  kTtlDeleted,
  kSentinelRecovery,
  kIoErrorInjected,
  kEnospcReached,
  kRollback,
  kNetworkHealed,
  kFailover,
  kFailoverDuringBackup,
  kTtlPassAcrossFailover,
  kPausedPrimaryReplaced,
  kPrimarySteppedDown,
};
inline constexpr size_t kMarkerCount = 23;

struct CoverageMarker {
  Marker marker;
  const char* name;
  const char* meaning;
  std::vector<std::string> kinds;  // workload kinds that can reach it; empty: every kind
  // A fault kind the scenario must be able to draw ("network": network windows; "pause": paused
  // members; "step_down": replSetStepDown commands; "replica_set":
  // more than one member, the primary's crashes make members diverge), or "".
  const char* needs_fault;
};

// Every marker, in the enum's order.
const std::vector<CoverageMarker>& coverage_catalogue();
const char* name_of(Marker marker);
std::optional<Marker> find_marker(const std::string& name);
// Whether a scenario of `workload_kind`, able to draw `fault_kinds`, can reach `m` at all.
bool applies_to(const CoverageMarker& m, const std::string& workload_kind, const std::vector<std::string>& fault_kinds);

}  // namespace wtsim::properties
