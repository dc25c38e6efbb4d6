#include "runs/planted_catalogue.h"

#include <cassert>

namespace wtsim::runs {

using planted::Bug;
using properties::Property;

const std::vector<BugInfo>& catalogue() {
  static const std::vector<BugInfo> bugs = {
      {Bug::kAckBeforeSync, "a durable commit is acknowledged before the log is forced to disk",
       "scenarios/smoke.json", Property::kRecoveredStateIsPrefix, {}},
      {Bug::kTtlWrongUnits, "the TTL bound reads expireAfterSeconds as milliseconds",
       "scenarios/ttl_vs_manual_delete.json", Property::kTtlSafety,
       {"duration_ms=90000", "workload.writers=1", "workload.batch_size=20", "ttl.expire_after_s=30", "ttl.monitor_sleep_s=10"}},
      {Bug::kMoveForgetsIndex, "a record move rewrites every index entry but the last index's",
       "scenarios/padding_upserts.json", Property::kIndexConsistency, {"workload.total_documents=300"}},
      {Bug::kLockTableWrongCell, "one cell of the lock compatibility table: S granted beside X",
       "scenarios/documents.json", Property::kLockSafety, {"node.lock_policy=collection", "duration_ms=3000"}},
      {Bug::kRetryUsesStaleDocument, "a write-conflict retry applies the update to the document it read before the conflict",
       "scenarios/documents.json", Property::kIncrementsCountedOnce, {"duration_ms=3000"}},
      {Bug::kReleaseBeforeCopy, "a table's backup checkpoint is released before its file is copied",
       "scenarios/backup_release.json", Property::kBackupRestoresSnapshot,
       {"duration_ms=60000", "backup.start_ms=20000", "backup.copy_mb_per_s=1", "node.checkpoint_interval_ms=500"}},
      {Bug::kSkipSentinelCheck, "startup ignores backup.in_progress, so a stale WiredTiger.backup stays",
       "scenarios/backup_release.json", Property::kSentinelRecovery,
       {"backup.mode=baseline", "duration_ms=60000", "backup.start_ms=20000", "backup.copy_mb_per_s=2", "fault_plan=null",
        R"(swarm={"crash_by_disk_op_chance": 0})"}},
      {Bug::kTruncateLongValues, "a value is copied through a 128-byte buffer, so longer values are cut",
       "scenarios/smoke.json", Property::kNoPhantomValues, {"duration_ms=3000"}},
      {Bug::kSkipCreateRepair, "create() of a table a crash cut short is taken for a whole table",
       "tests/regressions/crash_inside_create_table_seed36.json", Property::kRecoverySucceeds, {}},
      {Bug::kTtlPassStopsEarly, "a TTL pass deletes one batch of 100 per index and forgets to loop",
       "scenarios/ttl_vs_manual_delete.json", Property::kTtlBoundedAge,
       {"duration_ms=90000", "workload.writers=1", "workload.batch_size=50", "ttl.expire_after_s=30", "ttl.monitor_sleep_s=10"}},
      {Bug::kPaddingUnclamped, "the paddingFactor adjustment is not clamped at 2.0",
       "scenarios/padding_upserts.json", Property::kPaddingFactorInRange, {"workload.total_documents=5000", "duration_ms=20000"}},
      {Bug::kOplogNeverReleased, "a release-mode backup forgets the oplog's checkpoint (the oplog is not copied)",
       "scenarios/backup_release.json", Property::kBackupLeavesNoPin,
       {"duration_ms=60000", "backup.start_ms=20000", "backup.copy_mb_per_s=2", "fault_plan=null", R"(swarm={"crash_by_disk_op_chance": 0})"}},
      {Bug::kSReleaseWakesNoOne, "releasing a shared (S) lock wakes no waiter (\"readers block nobody\")",
       "scenarios/documents.json", Property::kLiveness, {"node.lock_policy=collection", "duration_ms=3000"}},
      {Bug::kIncReadsMissingField, "$inc looks its field up with at(), which throws for a missing field",
       "scenarios/documents.json", Property::kNoInternalError, {"duration_ms=3000"}},
      {Bug::kTtlDeleteSkipsOplog, "the TTL monitor's deletes write no oplog entry",
       "scenarios/ttl_vs_manual_delete.json", Property::kOplogMatchesData,
       {"duration_ms=90000", "workload.writers=1", "workload.batch_size=20", "ttl.expire_after_s=30", "ttl.monitor_sleep_s=10"}},
      {Bug::kTxnWritesFirstKeyOnly, "a multi-key transaction stops after its first write and commits",
       "scenarios/smoke.json", Property::kFinalStateMatches, {"duration_ms=2000", R"(swarm={"crashes_max": 0})"}},
      {Bug::kFreedRecordTooLong, "a freed MMAPv1 record goes on the free list with its header counted twice",
       "scenarios/padding_upserts.json", Property::kRecordLayout, {"workload.total_documents=300"}},
      {Bug::kTtlOnSecondary, "the TTL monitor ignores the node's role and deletes on a secondary",
       "scenarios/ttl_vs_manual_delete.json", Property::kTtlSafety,
       {"duration_ms=90000", "workload.writers=1", "workload.batch_size=20", "ttl.expire_after_s=30", "ttl.monitor_sleep_s=10", "ttl.role=secondary"}},
      {Bug::kDdlAckedBeforeDurable, "a catalog change (createIndex, dropIndex, collMod) is acknowledged before the journal is flushed",
       "scenarios/documents.json", Property::kRecoveredStateIsPrefix,
       {"duration_ms=4000", "workload.ddl_weight=5", "workload.durable_fraction=0", "node.journal_commit_interval_ms=1000"}},
      {Bug::kCollModTakesNoLock, "collMod writes its copy of the catalog entry back without the collection's exclusive lock",
       "scenarios/documents.json", Property::kIndexConsistency,
       {"duration_ms=3000", "workload.ddl_weight=3", "workload.writers=8"}},
      {Bug::kTtlDeleteSkipsRecheck, "a TTL delete trusts the pass's scan and does not re-check the date inside its own transaction",
       "scenarios/ttl_vs_manual_delete.json", Property::kTtlSafety,
       {"duration_ms=90000", "workload.writers=1", "workload.batch_size=20", "ttl.expire_after_s=30", "ttl.monitor_sleep_s=10",
        "ttl.touch_every_ms=5"}},
      {Bug::kCloseCursorsSkipsLast, "closing an operation's cursors stops one short, so the last cursor stays open on its table",
       "scenarios/documents.json", Property::kTablesVerify, {"duration_ms=3000"}},
      // A flip in the table file just after the first checkpoint (its pages are then live), then a
      // crash, so that recovery reads the damaged page from disk.
      {Bug::kChecksumsOff, "tables are created with checksum=off (\"checksums cost CPU\")",
       "scenarios/corruption.json", Property::kCorruptionDetectedOrHarmless,
       {"swarm=null", "node.checkpoint_interval_ms=500", "workload.value_bytes_min=1000", "workload.value_bytes_max=3000",
        R"(fault_plan=[{"kind": "bit_flip", "file": "kv.wt", "at_ms": 600, "offset": 200003, "bit": 5},
                      {"kind": "crash", "at_ms": 601, "mode": "drop_unsynced"}])"}},
      {Bug::kFindResultsCached, "find results are cached per query and never invalidated by a write",
       "scenarios/documents.json", Property::kReadsSeeCommitted, {"duration_ms=3000"}},
      {Bug::kUpdateCountsPerDocument, "opcounters.update counts every document a multi-update matched (MongoDB counts the statement)",
       "scenarios/script_counters.json", Property::kScriptExpectations, {}},
      {Bug::kApplySkipsDeletes, "a replica applying the primary's oplog takes a delete entry for a no-op",
       "scenarios/replica_set_members.json", Property::kReplicasConverge, {"swarm=null", "fault_plan=[]"}},
      // Many keys, so that a document the divergent entries touched is seldom written again.
      {Bug::kRollbackSkipsRefetch, "a rollback drops the divergent oplog entries but keeps the documents they wrote, without refetching the primary's versions",
       "scenarios/replica_set_members.json", Property::kReplicasConverge, {"workload.keys=100000"}},
      // Every member votes in term 1 for the initiator and at most once per term after, so such a
      // candidate never wins: a set that loses its primary has none again.
      {Bug::kCandidateKeepsTerm, "a member that stands for election asks for votes in its current term instead of the next one",
       "scenarios/swarm_replica_set.json", Property::kLiveness, {}},
      {Bug::kMajorityCountsPrimaryTwice, "a w:\"majority\" write counts the primary's own acknowledgement twice toward the majority",
       "scenarios/failover.json", Property::kMajorityWritesSurvive, {}},
      {Bug::kMajorityReadSkipsWait, "a find with readConcern \"majority\" returns what the primary has without waiting until a majority holds it",
       "scenarios/failover.json", Property::kMajorityReadsSurvive, {}},
      {Bug::kTtlRoleReadOnce, "the TTL monitor asks its member's role at its first pass only: a primary that steps down keeps deleting",
       "scenarios/failover.json", Property::kTtlSafety, {}},
      {Bug::kVoteForgotten, "a voter grants a vote in a term without looking at the vote it gave earlier in that term",
       "scenarios/swarm_replica_set.json", Property::kOnePrimaryPerTerm, {}},
      // The workload's update is {$inc: {n: 1}, $set: {g: ...}}: the $inc still counts once, the
      // index on g still matches the stored g, and the durability properties see what was stored.
      {Bug::kUpdateAppliesOneOperator, "an update applies its first operator and returns, skipping the others",
       "scenarios/documents.json", Property::kWritesFollowCommands, {"duration_ms=3000"}},
      // The workload's tags are two-element arrays on the index tags_1: the writes and validate
      // both use the engine's key generator, so they agree on the missing second keys.
      {Bug::kMultikeyFirstElementOnly, "a multikey index keys an array by its first element only",
       "scenarios/documents.json", Property::kIndexKeysFollowDocuments, {"duration_ms=3000"}},
      // A find's index scan loses the first entry of its range (and, resumed after a yield whose
      // saved entry is gone, the next one): what it returns is committed and matching, so
      // reads_see_committed holds. Few keys keep every group under the find's limit of 5.
      {Bug::kSeekStepsPastLanding, "an index scan's seek steps past the entry it lands on, treating it as the one before (an inclusive bound as exclusive)",
       "scenarios/documents.json", Property::kFindsReturnEveryMatch, {"duration_ms=3000", "workload.keys=40"}},
      // A document that grows into its record's last 16 bytes stays in place: the extents' bytes
      // still add up (record_layout holds) and the data reads back (WiredTiger holds the document),
      // but in MMAPv1 it would overwrite the next record's header. 2.6's rules keep paddingFactor
      // near 1.0, so records are sized close to their documents and an upsert's field lands there.
      {Bug::kUpdateFitsWithoutHeader, "an in-place update's fit test forgets the record's 16-byte header, so a grown document overruns its record",
       "scenarios/padding_upserts.json", Property::kRecordHoldsDocument,
       {"workload.total_documents=300", R"(workload.padding_heuristic="2.6")"}},
      // A member's vote record keeps the backup's named checkpoint: a check that asks the engine's
      // catalog which tables to look at never looks at it; backup_leaves_no_pin reads every file
      // WiredTiger's metadata lists.
      {Bug::kReleaseSkipsNodeTables, "a release-mode backup copies and releases only the tables the catalog names, so a member's own vote record keeps the backup's checkpoint",
       "scenarios/failover.json", Property::kBackupLeavesNoPin, {}},
      // The jstest drops a collection with two indexes; the run's clean reopen drops its table
      // but keeps the index tables. Every document, index entry and catalog row is right, so
      // only a check of WiredTiger's own table list sees the leak.
      {Bug::kOrphanIndexesKept, "startup drops a dropped collection's table but keeps its indexes' tables, which hold their disk space for good",
       "scenarios/jstests/drop.json", Property::kNoOrphanTables, {}},
      // Each secondary crashes ten disk operations into its first rollback: past the commit of
      // minValid, before the log flush of finish_rollback. The rollback is redone after the restart
      // whatever minValid says, and converges, so only a check of the raw minValid row sees the loss.
      {Bug::kMinValidUnflushed, "a rollback commits minValid without flushing the log before it puts back documents, so a crash mid-rollback loses it",
       "scenarios/replica_set_members.json", Property::kMinValidKept,
       {R"(replica_set.members=[{},{"priority":0.5,"fault_plan":[{"kind":"crash","after":{"event":"rollback","nth":1,"disk_ops":10}}]},)"
        R"({"priority":0,"hidden":true,"fault_plan":[{"kind":"crash","after":{"event":"rollback","nth":1,"disk_ops":10}}]}])"}},
      // One entry too many, every pass: the oplog still holds every document's newest entry, so
      // only its size shows the bug. A bound of 10 entries lets a handful of writes show it.
      {Bug::kOplogTrimOffByOne, "a trim pass computes its bound one ts too low and keeps one entry more than oplog_max_entries",
       "scenarios/documents.json", Property::kOplogWithinBound, {"duration_ms=4000", "node.oplog_max_entries=10"}},
  };
  return bugs;
}

const BugInfo& info_of(Bug bug) {
  for (const BugInfo& b : catalogue()) {
    if (b.bug == bug) return b;
  }
  assert(false && "every planted bug is in the catalogue");
  __builtin_unreachable();
}

}  // namespace wtsim::runs
