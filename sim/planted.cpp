#include "sim/planted.h"

#include <array>
#include <cassert>
#include <utility>

namespace wtsim::planted {
namespace {

constexpr std::array<std::pair<Bug, const char*>, kBugCount> kNames = {{
    {Bug::kAckBeforeSync, "ack_before_sync"},
    {Bug::kTtlWrongUnits, "ttl_wrong_units"},
    {Bug::kMoveForgetsIndex, "move_forgets_index"},
    {Bug::kLockTableWrongCell, "lock_table_wrong_cell"},
    {Bug::kRetryUsesStaleDocument, "retry_uses_stale_document"},
    {Bug::kReleaseBeforeCopy, "release_before_copy"},
    {Bug::kSkipSentinelCheck, "skip_sentinel_check"},
    {Bug::kTruncateLongValues, "truncate_long_values"},
    {Bug::kSkipCreateRepair, "skip_create_repair"},
    {Bug::kTtlPassStopsEarly, "ttl_pass_stops_early"},
    {Bug::kPaddingUnclamped, "padding_unclamped"},
    {Bug::kOplogNeverReleased, "oplog_never_released"},
    {Bug::kSReleaseWakesNoOne, "s_release_wakes_no_one"},
    {Bug::kIncReadsMissingField, "inc_reads_missing_field"},
    {Bug::kTtlDeleteSkipsOplog, "ttl_delete_skips_oplog"},
    {Bug::kTxnWritesFirstKeyOnly, "txn_writes_first_key_only"},
    {Bug::kFreedRecordTooLong, "freed_record_too_long"},
    {Bug::kTtlOnSecondary, "ttl_on_secondary"},
    {Bug::kDdlAckedBeforeDurable, "ddl_acked_before_durable"},
    {Bug::kCollModTakesNoLock, "coll_mod_takes_no_lock"},
    {Bug::kTtlDeleteSkipsRecheck, "ttl_delete_skips_recheck"},
    {Bug::kCloseCursorsSkipsLast, "close_cursors_skips_last"},
    {Bug::kChecksumsOff, "checksums_off"},
    {Bug::kFindResultsCached, "find_results_cached"},
    {Bug::kUpdateCountsPerDocument, "update_counts_per_document"},
    {Bug::kApplySkipsDeletes, "apply_skips_deletes"},
    {Bug::kRollbackSkipsRefetch, "rollback_skips_refetch"},
    {Bug::kCandidateKeepsTerm, "candidate_keeps_term"},
    {Bug::kMajorityCountsPrimaryTwice, "majority_counts_primary_twice"},
    {Bug::kMajorityReadSkipsWait, "majority_read_skips_wait"},
    {Bug::kTtlRoleReadOnce, "ttl_role_read_once"},
    {Bug::kVoteForgotten, "vote_forgotten"},
    {Bug::kUpdateAppliesOneOperator, "update_applies_one_operator"},
    {Bug::kMultikeyFirstElementOnly, "multikey_first_element_only"},
    {Bug::kSeekStepsPastLanding, "seek_steps_past_landing"},
    {Bug::kUpdateFitsWithoutHeader, "update_fits_without_header"},
    {Bug::kReleaseSkipsNodeTables, "release_skips_node_tables"},
    {Bug::kOrphanIndexesKept, "orphan_indexes_kept"},
    {Bug::kMinValidUnflushed, "min_valid_unflushed"},
    {Bug::kOplogTrimOffByOne, "oplog_trim_off_by_one"},
}};

std::optional<Bug> g_enabled;

}  // namespace

const char* name_of(Bug bug) {
  const size_t i = static_cast<size_t>(bug);
  assert(i < kNames.size());
  assert(kNames[i].first == bug && "kNames is in the enum's order");
  return kNames[i].second;
}

std::optional<Bug> find(const std::string& name) {
  for (const auto& [bug, bug_name] : kNames) {
    if (name == bug_name) return bug;
  }
  return std::nullopt;
}

void enable(Bug bug) {
  assert(!g_enabled && "one planted bug per process");
  assert(static_cast<size_t>(bug) < kBugCount);
  g_enabled = bug;
}

std::optional<Bug> enabled() { return g_enabled; }

Suspension::Suspension() : bug_(g_enabled) { g_enabled.reset(); }

Suspension::~Suspension() {
  assert(!g_enabled && "no bug is enabled while another is suspended");
  g_enabled = bug_;
}

}  // namespace wtsim::planted
