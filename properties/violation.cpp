#include "properties/violation.h"

#include <cassert>

namespace wtsim::properties {

const std::vector<PropertyInfo>& catalogue() {
  static const std::vector<PropertyInfo> kProperties = {
      {Property::kRecoveredStateIsPrefix, "recovered_state_is_prefix",
       "after a crash the data equals the state after some prefix of the commit order that "
       "includes every acknowledged durable commit; in-doubt commits wholly present or absent"},
      {Property::kNoPhantomValues, "no_phantom_values", "no recovered value that no commit ever wrote"},
      {Property::kRecoverySucceeds, "recovery_succeeds",
       "the node reopens after a crash (absent corruption faults, which must be detected "
       "instead)"},
      {Property::kCorruptionDetectedOrHarmless, "corruption_detected_or_harmless",
       "after a bit flip or misdirected write, WiredTiger refuses to open or the data is intact"},
      {Property::kTablesVerify, "tables_verify", "WiredTiger's verify passes on every table after recovery"},
      {Property::kIndexConsistency, "index_consistency",
       "validate: every record has exactly its index entries and every entry points to a record "
       "that produces it; the collection's count matches"},
      {Property::kTtlSafety, "ttl_safety",
       "the TTL monitor deletes only documents whose indexed field holds a Date (or an array with "
       "one) below now - expireAfterSeconds at the time of its pass, and deletes only on a member that was the writable "
       "primary when the pass began (nothing on a secondary)"},
      {Property::kTtlBoundedAge, "ttl_bounded_age",
       "absent faults, when a TTL pass finishes nothing older than its bound remains (so no "
       "document outlives expireAfterSeconds + ttlMonitorSleepSecs + one pass); counted on the TTL index's raw "
       "entries, not through the engine's queries"},
      {Property::kRecordLayout, "record_layout",
       "MMAPv1 layout: every byte of every extent is in exactly one record or free region, nothing "
       "overlaps an extent header, and the allocator's memory equals its tables (read and decoded by the property "
       "itself, not by the record store's loader)"},
      {Property::kPaddingFactorInRange, "padding_factor_in_range", "paddingFactor stays within [1.0, 2.0]"},
      {Property::kBackupRestoresSnapshot, "backup_restores_snapshot",
       "a completed hot backup opens as a node holding exactly the data at the backup's point in "
       "time, survives its own checkpoint, WiredTiger verify and a reopen"},
      {Property::kBackupLeavesNoPin, "backup_leaves_no_pin",
       "after a backup, finished or abandoned (sentinel), no table keeps the backup's checkpoint"},
      {Property::kOplogMatchesData, "oplog_matches_data",
       "every document's newest oplog entry is its current image (or a delete and it is absent); "
       "with an untrimmed oplog every document has one: no write without its entry, no entry "
       "without its write, after any crash"},
      {Property::kReadsSeeCommitted, "reads_see_committed",
       "a find returns only documents that match it, each a version its snapshot may see: written "
       "by a commit, not rolled back, and not older than the newest acknowledged before the find began"},
      {Property::kLockSafety, "lock_safety",
       "no two clients held conflicting modes on one resource: every lock() that returned is judged against the "
       "holds of the other clients, from a list of holders and MongoDB's matrix of the property's own, not the lock "
       "manager's"},
      {Property::kSentinelRecovery, "sentinel_recovery", "a node that crashed mid-backup restarts with crash recovery, never a restore from a stale WiredTiger.backup"},
      {Property::kIncrementsCountedOnce, "increments_counted_once",
       "each committed image's $inc counter equals the previous image's plus the increment "
       "(no lost or doubled update)"},
      {Property::kFinalStateMatches, "final_state_matches", "at the end of a run without a crash, the data equals the model"},
      {Property::kLiveness, "liveness", "the run finishes: no deadlock, no fiber running past the time limit"},
      {Property::kNoInternalError, "no_internal_error", "no unexpected exception escaped a simulated fiber"},
      {Property::kScriptExpectations, "script_expectations",
       "every expectation a script's step states holds: its result, error code, explain fields, metrics and disk size"},
      {Property::kReplicasConverge, "replicas_converge",
       "at the end of a replica set's run, every member that applied the primary's oplog holds exactly the "
       "primary's documents, and its oplog is the primary's over the ts both hold (no divergent entry survives "
       "a rollback); every entry applies"},
      {Property::kOnePrimaryPerTerm, "one_primary_per_term",
       "a replica set with elections never has two members elected primary in the same term, and no member "
       "votes for two candidates in one term, crashes included"},
      {Property::kMajorityWritesSurvive, "majority_writes_survive",
       "a write acknowledged with w:\"majority\" is never lost: its oplog entry (ts and term) is in the final "
       "primary's oplog, through any crash, partition, failover and rollback"},
      {Property::kMajorityReadsSurvive, "majority_reads_survive",
       "a find with readConcern \"majority\" never returns a write that is later rolled back: the newest entry of "
       "the oplog it read from is in the final primary's oplog (a \"local\" read may, and is counted)"},
      {Property::kWritesFollowCommands, "writes_follow_commands",
       "every document a client's write command changed is what the command asked for, judged by a reference of "
       "MongoDB's write semantics written apart from the engine: the old version matched the filter, the new one is "
       "what $set, $unset, $inc or the replacement makes of it (an upsert's, of the filter's equality fields), an "
       "insert stores the document sent, and a command for one document changes at most one"},
      {Property::kIndexKeysFollowDocuments, "index_keys_follow_documents",
       "after any crash and at the end, every index holds exactly the entries MongoDB's indexing rules give the stored "
       "documents (a missing field as null, one key per distinct array element, only what a partial index's filter "
       "matches), by a key generator of the property's own rather than the engine's, which validate also uses"},
      {Property::kFindsReturnEveryMatch, "finds_return_every_match",
       "every find returns each document that matches its filter in every version its snapshot may see (all of them "
       "without a limit, as many as the limit allows with one), in its sort order, within its limit and each once; "
       "judged with the write reference's matcher and a sort order of the property's own"},
      {Property::kRecordHoldsDocument, "record_holds_document",
       "MMAPv1: every record's allocated length holds its 16-byte header and the document it stores (no document "
       "runs past its record's end into the next record), after any crash and at the end"},
      {Property::kNoOrphanTables, "no_orphan_tables",
       "after every start, WiredTiger's metadata holds no table but the engine's own (catalog, oplog, minValid, "
       "vote record) and those a catalog row names: a dropped collection's or index's table, or the remains of a "
       "DDL a crash cut short, is gone; judged from the raw metadata and catalog rows"},
      {Property::kMinValidKept, "min_valid_kept",
       "a replica set member that began a rollback keeps its minValid until its oplog reaches it: every start "
       "finds the point in the raw minValid table, and until then the member neither becomes primary nor answers "
       "a read; judged on what its rollbacks and applier did, not on the engine's minValid"},
      {Property::kOplogWithinBound, "oplog_within_bound",
       "the oplog keeps at most oplog_max_entries ts behind its newest entry once a trim pass ran (MongoDB's capped "
       "oplog): judged on the oplog table's raw keys around each pass (the newest before it, the oldest after it); "
       "two passes in a row that leave older entries are a violation"},
  };
  assert(kProperties.size() == kPropertyCount);
  return kProperties;
}

const char* name_of(Property property) {
  const size_t i = static_cast<size_t>(property);
  assert(i < catalogue().size());
  assert(catalogue()[i].property == property && "the catalogue is in the enum's order");
  return catalogue()[i].name;
}

std::optional<Property> find_property(const std::string& name) {
  for (const PropertyInfo& p : catalogue()) {
    if (name == p.name) return p.property;
  }
  return std::nullopt;
}

const char* Violation::name() const { return name_of(property); }

nlohmann::json to_json(const Violation& v) {
  return {{"property", name_of(v.property)}, {"at_ms", v.at_ns / sim::kNsPerMs},
          {"event", v.event_index}, {"detail", v.detail}};
}

}  // namespace wtsim::properties
