#include "world/secondary_rollback.h"

#include <algorithm>
#include <cassert>

namespace wtsim::world {

RollbackResult Rollback::run() {
  if (engine_.min_valid() && engine_.min_valid()->truncated) {
    return impossible("it diverged again before reaching minValid (ts " + std::to_string(engine_.min_valid()->ts) +
                      ") of its last rollback, so it cannot tell which documents that rollback put back: it needs a resync");
  }
  if (std::optional<RollbackResult> stop = find_common_point()) return *stop;
  std::vector<DocumentKey> keys;
  for (const auto& [key, id] : touched_) keys.emplace_back(key.first, id);
  const Refetched refetched = source_.refetch(host_.member(), keys);
  if (!refetched.answered) return retry("refetching " + std::to_string(keys.size()) + " documents: " + refetched.why);
  {
    const CommitInFlight in_flight(host_);  // minValid's write: a backup releasing its pin waits
    host_.note_crash_anchor(faults::CrashAnchor::kRollback);
    const uint64_t point_ts = std::max<uint64_t>(refetched.top_ts, 1);
    const engine::Status s = host_.node_call("rollback_begin", [&] { return engine_.begin_rollback(op_, point_ts); });
    if (!s.ok()) return retry("writing minValid failed");
    ledger_.rollback_began(point_ts);
  }
  match_catalog_(refetched.catalog);
  restore(keys, refetched);
  {
    const CommitInFlight in_flight(host_);
    host_.node_call("rollback_finish", [&] { return engine_.finish_rollback(op_, common_ts_); });
  }
  run_.reached(properties::Marker::kRollback);
  const size_t deleted = std::count(refetched.documents.begin(), refetched.documents.end(), std::nullopt);
  run_.trace().event(run_.sim().now_ns(), run_.sim().current_or_main().name, "rollback",
                     {{"member", host_.member()}, {"common_ts", common_ts_}, {"entries", entries_}, {"documents", keys.size()},
                      {"deleted", deleted}, {"min_valid_ts", engine_.min_valid()->ts}});
  return {};
}

std::optional<RollbackResult> Rollback::find_common_point() {
  const uint64_t own_first = engine_.first_oplog_ts();
  constexpr uint64_t kWindow = SyncSource::kBatchEntriesMax;
  for (uint64_t hi = engine_.next_oplog_ts() - 1; hi >= own_first && hi > 0;) {
    const uint64_t lo = std::max(own_first, hi >= kWindow ? hi - kWindow + 1 : 1);
    const OplogTerms theirs = source_.terms(host_.member(), lo, hi);
    if (!theirs.answered) return retry("asking for the primary's terms: " + theirs.why);
    std::optional<RollbackResult> stop;
    if (walk_window(lo, hi, theirs, &stop)) return std::nullopt;
    if (stop) return stop;
    if (lo <= theirs.first_ts && theirs.first_ts > 1) {
      return impossible("the primary's oplog (oldest entry at ts " + std::to_string(theirs.first_ts) + ") no longer reaches a common point");
    }
    hi = lo - 1;
  }
  if (own_first > 1) {
    return impossible("this member's oplog (oldest entry at ts " + std::to_string(own_first) + ") no longer holds a common point");
  }
  common_ts_ = 0;  // nothing in common: every entry goes
  return std::nullopt;
}

bool Rollback::walk_window(uint64_t lo_ts, uint64_t hi_ts, const OplogTerms& theirs, std::optional<RollbackResult>* stop) {
  std::vector<engine::OplogEntry> own;
  host_.node_call("rollback_read_oplog", [&] { return engine_.read_oplog_after(op_, lo_ts - 1, hi_ts - lo_ts + 1, &own); });
  for (auto e = own.rbegin(); e != own.rend(); ++e) {
    if (e->ts > hi_ts) continue;  // past a hole: the next window's
    const auto t = theirs.term_at.find(e->ts);
    if (t != theirs.term_at.end() && t->second == e->term) {
      common_ts_ = e->ts;
      return true;
    }
    if (e->op != "n") touched_.emplace(std::make_pair(e->ns, e->o.at("_id").dump()), e->o.at("_id"));
    if (++entries_ > kEntriesMax) {
      *stop = impossible("more than " + std::to_string(kEntriesMax) + " divergent entries");
      return false;
    }
  }
  return false;
}

// Deletes every touched document first, then puts back the primary's versions: the versions
// come from one snapshot of the primary, so they cannot collide on a unique index among
// themselves, whatever order the divergent entries left them in.
void Rollback::restore(const std::vector<DocumentKey>& keys, const Refetched& refetched) {
  assert(keys.size() == refetched.documents.size());
  auto put = [&](const DocumentKey& key, const std::optional<engine::Document>& image) {
    const engine::Status s = host_.node_call("rollback_restore", [&] { return engine_.restore_document(op_, key.first, key.second, image); });
    if (s.ok()) return;
    run_.trace().event(run_.sim().now_ns(), run_.sim().current_or_main().name, "rollback_restore_failed",
                       {{"member", host_.member()}, {"ns", key.first}, {"_id", key.second}, {"code", s.trace_code()}});
  };
  for (const DocumentKey& key : keys) put(key, std::nullopt);
  for (size_t i = 0; i < keys.size(); ++i) {
    if (refetched.documents[i]) put(keys[i], refetched.documents[i]);
  }
}

}  // namespace wtsim::world
