#include "selftest/planted_bugs.h"

#include <cassert>

namespace wtsim::planted {
namespace {

std::optional<Bug> g_enabled;

}  // namespace

const std::vector<BugInfo>& catalogue() {
  static const std::vector<BugInfo> bugs = {
      {Bug::kAckBeforeSync, "ack_before_sync", "a durable commit is acknowledged before the log is forced to disk",
       "scenarios/smoke.json", "recovered_state_is_prefix", {}},
      {Bug::kTtlWrongUnits, "ttl_wrong_units", "the TTL bound reads expireAfterSeconds as milliseconds",
       "scenarios/ttl_vs_manual_delete.json", "ttl_safety",
       {"duration_ms=90000", "workload.writers=1", "workload.batch_size=20", "ttl.expire_after_s=30", "ttl.monitor_sleep_s=10"}},
      {Bug::kMoveForgetsIndex, "move_forgets_index", "a record move rewrites every index entry but the last index's",
       "scenarios/padding_upserts.json", "index_consistency", {"workload.total_documents=300"}},
      {Bug::kLockTableWrongCell, "lock_table_wrong_cell", "one cell of the lock compatibility table: S granted beside X",
       "scenarios/documents.json", "lock_safety", {"node.lock_policy=collection", "duration_ms=3000"}},
      {Bug::kRetryUsesStaleDocument, "retry_uses_stale_document",
       "a write-conflict retry applies the update to the document it read before the conflict",
       "scenarios/documents.json", "increments_counted_once", {"duration_ms=3000"}},
      {Bug::kReleaseBeforeCopy, "release_before_copy", "a table's backup checkpoint is released before its file is copied",
       "scenarios/backup_release.json", "backup_restores_snapshot",
       {"duration_ms=60000", "backup.start_ms=20000", "backup.copy_mb_per_s=1", "node.checkpoint_interval_ms=500"}},
      {Bug::kSkipSentinelCheck, "skip_sentinel_check", "startup ignores backup.in_progress, so a stale WiredTiger.backup stays",
       "scenarios/backup_release.json", "sentinel_recovery",
       {"backup.mode=baseline", "duration_ms=60000", "backup.start_ms=20000", "backup.copy_mb_per_s=2", "fault_plan=null",
        R"(swarm={"crash_by_disk_op_chance": 0})"}},
      {Bug::kTruncateLongValues, "truncate_long_values", "a value is copied through a 128-byte buffer, so longer values are cut",
       "scenarios/smoke.json", "no_phantom_values", {"duration_ms=3000"}},
      {Bug::kSkipCreateRepair, "skip_create_repair", "create() of a table a crash cut short is taken for a whole table",
       "tests/regressions/crash_inside_create_table_seed36.json", "recovery_succeeds", {}},
      {Bug::kTtlPassStopsEarly, "ttl_pass_stops_early", "a TTL pass deletes one batch of 100 per index and forgets to loop",
       "scenarios/ttl_vs_manual_delete.json", "ttl_bounded_age",
       {"duration_ms=90000", "workload.writers=1", "workload.batch_size=50", "ttl.expire_after_s=30", "ttl.monitor_sleep_s=10"}},
      {Bug::kPaddingUnclamped, "padding_unclamped", "the paddingFactor adjustment is not clamped at 2.0",
       "scenarios/padding_upserts.json", "padding_factor_in_range", {"workload.total_documents=5000", "duration_ms=20000"}},
      {Bug::kOplogNeverReleased, "oplog_never_released", "a release-mode backup forgets the oplog's checkpoint (the oplog is not copied)",
       "scenarios/backup_release.json", "backup_leaves_no_pin",
       {"duration_ms=60000", "backup.start_ms=20000", "backup.copy_mb_per_s=2", "fault_plan=null", R"(swarm={"crash_by_disk_op_chance": 0})"}},
      {Bug::kSReleaseWakesNoOne, "s_release_wakes_no_one", "releasing a shared (S) lock wakes no waiter (\"readers block nobody\")",
       "scenarios/documents.json", "liveness", {"node.lock_policy=collection", "duration_ms=3000"}},
      {Bug::kIncReadsMissingField, "inc_reads_missing_field", "$inc looks its field up with at(), which throws for a missing field",
       "scenarios/documents.json", "no_internal_error", {"duration_ms=3000"}},
      {Bug::kTtlDeleteSkipsOplog, "ttl_delete_skips_oplog", "the TTL monitor's deletes write no oplog entry",
       "scenarios/ttl_vs_manual_delete.json", "oplog_matches_data",
       {"duration_ms=90000", "workload.writers=1", "workload.batch_size=20", "ttl.expire_after_s=30", "ttl.monitor_sleep_s=10"}},
      {Bug::kTxnWritesFirstKeyOnly, "txn_writes_first_key_only", "a multi-key transaction stops after its first write and commits",
       "scenarios/smoke.json", "final_state_matches", {"duration_ms=2000", R"(swarm={"crashes_max": 0})"}},
      {Bug::kFreedRecordTooLong, "freed_record_too_long", "a freed MMAPv1 record goes on the free list with its header counted twice",
       "scenarios/padding_upserts.json", "record_layout", {"workload.total_documents=300"}},
      {Bug::kTtlOnSecondary, "ttl_on_secondary", "the TTL monitor ignores the node's role and deletes on a secondary",
       "scenarios/ttl_vs_manual_delete.json", "ttl_safety",
       {"duration_ms=90000", "workload.writers=1", "workload.batch_size=20", "ttl.expire_after_s=30", "ttl.monitor_sleep_s=10", "ttl.role=secondary"}},
      {Bug::kDdlAckedBeforeDurable, "ddl_acked_before_durable",
       "a catalog change (createIndex, dropIndex, collMod) is acknowledged before the journal is flushed",
       "scenarios/documents.json", "recovered_state_is_prefix",
       {"duration_ms=4000", "workload.ddl_weight=5", "workload.durable_fraction=0", "node.journal_commit_interval_ms=1000"}},
      {Bug::kCollModTakesNoLock, "coll_mod_takes_no_lock",
       "collMod writes its copy of the catalog entry back without the collection's exclusive lock",
       "scenarios/documents.json", "index_consistency",
       {"duration_ms=3000", "workload.ddl_weight=3", "workload.writers=8"}},
      {Bug::kTtlDeleteSkipsRecheck, "ttl_delete_skips_recheck",
       "a TTL delete trusts the pass's scan and does not re-check the date inside its own transaction",
       "scenarios/ttl_vs_manual_delete.json", "ttl_safety",
       {"duration_ms=90000", "workload.writers=1", "workload.batch_size=20", "ttl.expire_after_s=30", "ttl.monitor_sleep_s=10",
        "ttl.touch_every_ms=5"}},
      {Bug::kCloseCursorsSkipsLast, "close_cursors_skips_last",
       "closing an operation's cursors stops one short, so the last cursor stays open on its table",
       "scenarios/documents.json", "tables_verify", {"duration_ms=3000"}},
      // A flip in the table file just after the first checkpoint (its pages are then live), then a
      // crash, so that recovery reads the damaged page from disk.
      {Bug::kChecksumsOff, "checksums_off", "tables are created with checksum=off (\"checksums cost CPU\")",
       "scenarios/corruption.json", "corruption_detected_or_harmless",
       {"swarm=null", "node.checkpoint_interval_ms=500", "workload.value_bytes_min=1000", "workload.value_bytes_max=3000",
        R"(fault_plan=[{"kind": "bit_flip", "file": "kv.wt", "at_ms": 600, "offset": 200003, "bit": 5},
                      {"kind": "crash", "at_ms": 601, "mode": "drop_unsynced"}])"}},
      {Bug::kFindResultsCached, "find_results_cached", "find results are cached per query and never invalidated by a write",
       "scenarios/documents.json", "reads_see_committed", {"duration_ms=3000"}},
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
