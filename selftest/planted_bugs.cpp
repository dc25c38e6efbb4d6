#include "selftest/planted_bugs.h"

#include <cassert>

namespace wtsim::planted {
namespace {

std::optional<Bug> g_enabled;

}  // namespace

const std::vector<BugInfo>& catalogue() {
  static const std::vector<BugInfo> bugs = {
      {Bug::kAckBeforeSync, "ack_before_sync", "a durable commit is acknowledged before the log is forced to disk",
       "scenarios/smoke.json", {}},
      {Bug::kIgnoreFsyncError, "ignore_fsync_error", "a failed log flush is logged and the node carries on",
       "scenarios/fault_mix.json", {}},
      {Bug::kTtlWrongUnits, "ttl_wrong_units", "the TTL bound reads expireAfterSeconds as milliseconds",
       "scenarios/ttl_vs_manual_delete.json",
       {"duration_ms=90000", "workload.writers=1", "workload.batch_size=20", "ttl.expire_after_s=30", "ttl.monitor_sleep_s=10"}},
      {Bug::kMoveForgetsIndex, "move_forgets_index", "a record move rewrites every index entry but the last index's",
       "scenarios/padding_upserts.json", {"workload.total_documents=300"}},
      {Bug::kLockTableWrongCell, "lock_table_wrong_cell", "one cell of the lock compatibility table: S granted beside X",
       "scenarios/documents.json", {"node.lock_policy=collection", "duration_ms=3000"}},
      {Bug::kRetryUsesStaleDocument, "retry_uses_stale_document",
       "a write-conflict retry applies the update to the document it read before the conflict",
       "scenarios/documents.json", {"duration_ms=3000"}},
      {Bug::kReleaseBeforeCopy, "release_before_copy", "a table's backup checkpoint is released before its file is copied",
       "scenarios/backup_release.json",
       {"duration_ms=60000", "backup.start_ms=20000", "backup.copy_mb_per_s=1", "node.checkpoint_interval_ms=500"}},
      {Bug::kSkipSentinelCheck, "skip_sentinel_check", "startup ignores backup.in_progress, so a stale WiredTiger.backup stays",
       "scenarios/backup_release.json",
       {"backup.mode=baseline", "duration_ms=60000", "backup.start_ms=20000", "backup.copy_mb_per_s=2", "fault_plan=null",
        R"(swarm={"crash_by_disk_op_chance": 0})"}},
  };
  return bugs;
}

std::optional<Bug> find(const std::string& name) {
  for (const BugInfo& b : catalogue()) {
    if (name == b.name) return b.bug;
  }
  return std::nullopt;
}

const char* name_of(Bug bug) {
  for (const BugInfo& b : catalogue()) {
    if (b.bug == bug) return b.name;
  }
  assert(false && "every bug is in the catalogue");
  return "?";
}

void enable(Bug bug) {
  assert(!g_enabled && "one planted bug per process");
  g_enabled = bug;
}

std::optional<Bug> enabled() { return g_enabled; }

}  // namespace wtsim::planted
