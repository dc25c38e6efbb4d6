#pragma once
// Planted bugs, the switch: small, realistic mistakes compiled into the engine and the world only
// in the self-test build (`wtsim-planted`, CMake option WTSIM_BUILD_SELFTEST). Like BUGGIFY, a
// runtime switch every layer may read: one bug is switched on by name for one run
// (`wtsim-planted run ... --plant NAME`). What each bug is for (its scenario, the property that
// must catch it) is the self-test's catalogue, runs/planted_catalogue.h.
//
// In the normal build `active()` is constexpr false, so no planted code reaches `wtsim`.
#include <optional>
#include <string>

namespace wtsim::planted {

enum class Bug {
  kAckBeforeSync,          // a durable commit is acknowledged without forcing the log
  kTtlWrongUnits,          // expireAfterSeconds read as milliseconds
  kMoveForgetsIndex,       // a padded-record move skips rewriting the last secondary index
  kLockTableWrongCell,     // the lock table lets S be granted beside X
  kRetryUsesStaleDocument, // a write-conflict retry applies $inc to the document read before it
  kReleaseBeforeCopy,      // a table's backup checkpoint is released before its file is copied
  kSkipSentinelCheck,      // startup ignores backup.in_progress (a stale WiredTiger.backup stays)
  kTruncateLongValues,     // values are copied through a 128-byte buffer
  kSkipCreateRepair,       // a cut-short create() is taken for a whole table
  kTtlPassStopsEarly,      // a TTL pass deletes one batch per index and forgets to loop
  kPaddingUnclamped,       // paddingFactor grows past 2.0
  kOplogNeverReleased,     // a release-mode backup forgets the oplog's checkpoint (it is not copied)
  kSReleaseWakesNoOne,     // releasing an S lock skips waking the queue
  kIncReadsMissingField,   // $inc looks its field up with at(): a missing field throws
  kTtlDeleteSkipsOplog,    // the TTL monitor's deletes write no oplog entry
  kTxnWritesFirstKeyOnly,  // a multi-key transaction stops after its first write
  kFreedRecordTooLong,     // a freed record goes on the free list with its header counted twice
  kTtlOnSecondary,         // the TTL monitor deletes on a secondary too
  kDdlAckedBeforeDurable,  // a catalog change (createIndex, dropIndex, collMod) is acknowledged unflushed
  kCollModTakesNoLock,     // collMod changes the catalog without the collection's exclusive lock
  kTtlDeleteSkipsRecheck,  // a TTL delete trusts its scan and skips re-checking the date in its own transaction
  kCloseCursorsSkipsLast,  // closing an operation's cursors stops before the last one (it stays open)
  kChecksumsOff,           // tables are created with checksum=off: a damaged page reads back as data
  kFindResultsCached,      // find results are cached per query and never invalidated by writes
  kUpdateCountsPerDocument,  // opcounters.update counts each document a multi-update matched, not the statement
  kApplySkipsDeletes,      // a replica applying the oplog takes a delete entry for a no-op
  kRollbackSkipsRefetch,   // a rollback truncates the oplog but keeps the divergent documents
  kCandidateKeepsTerm,     // a candidate stands for election in its current term instead of the next
  kMajorityCountsPrimaryTwice,  // a w:"majority" write counts the primary's own acknowledgement twice
  kMajorityReadSkipsWait,  // a readConcern "majority" find returns without waiting for the commit point
  kTtlRoleReadOnce,        // the TTL monitor asks its member's role at its first pass only, and keeps it
  kVoteForgotten,          // a voter grants its vote without looking at the vote it gave earlier in the term
  kUpdateAppliesOneOperator,  // an update applies its first operator ($inc) and skips the rest ($set)
  kMultikeyFirstElementOnly,  // a multikey index keys an array by its first element only
  kSeekStepsPastLanding,      // an index scan's seek steps past the entry it lands on, as if it were the one before
  kUpdateFitsWithoutHeader,   // an in-place update's fit test forgets the record's 16-byte header
  kReleaseSkipsNodeTables,    // a release-mode backup copies and releases only the catalog's tables
  kOrphanIndexesKept,         // startup drops a dropped collection's table but keeps its indexes' tables
  kMinValidUnflushed,         // a rollback commits minValid without flushing the log before it puts documents back
  kOplogTrimOffByOne,         // a trim pass keeps one entry more than the oplog's bound
};

inline constexpr size_t kBugCount = 40;

const char* name_of(Bug bug);
std::optional<Bug> find(const std::string& name);

// The one bug switched on for this process (none by default).
void enable(Bug bug);
std::optional<Bug> enabled();

// While one lives, the enabled bug is off: the shrinker re-runs a candidate without it, to keep
// only candidates that the bug itself makes fail.
class Suspension {
 public:
  Suspension();
  ~Suspension();
  Suspension(const Suspension&) = delete;
  Suspension& operator=(const Suspension&) = delete;

 private:
  std::optional<Bug> bug_;
};

#ifdef WTSIM_PLANTED_BUGS
inline bool active(Bug bug) { return enabled() == bug; }
#else
constexpr bool active(Bug) { return false; }
#endif

}  // namespace wtsim::planted
