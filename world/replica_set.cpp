#include "world/replica_set.h"

#include <algorithm>
#include <cassert>
#include <limits>

#include "sim/planted.h"
#include "world/elector.h"

namespace wtsim::world {

size_t ReplicaSet::majority() const {
  size_t voting = 0;
  for (const MemberSpec& m : spec_.members) voting += static_cast<size_t>(m.votes);
  return voting / 2 + 1;
}

void ReplicaSet::add(size_t member, Elector& elector, ClientServer& server, std::function<bool()> backing_up) {
  assert(member == electors_.size() && "members register in order");
  electors_.push_back(&elector);
  servers_.push_back(&server);
  backing_up_.push_back(std::move(backing_up));
}

void ReplicaSet::note_position(size_t primary, size_t member, OplogId applied) {
  OplogId& known = positions_[primary][member];
  known = std::max(known, applied);
}

void ReplicaSet::clear_positions(size_t primary) { positions_.erase(primary); }

bool ReplicaSet::majority_has(size_t primary, uint64_t ts) const {
  size_t holders = spec_.members[primary].votes;  // the primary journaled the write itself
  if (planted::active(planted::Bug::kMajorityCountsPrimaryTwice)) holders *= 2;
  if (auto it = positions_.find(primary); it != positions_.end()) {
    for (const auto& [member, applied] : it->second) {
      if (member != primary && applied.ts >= ts) holders += static_cast<size_t>(spec_.members[member].votes);
    }
  }
  return holders >= majority();
}

void ReplicaSet::note_elected(size_t member, uint64_t term, uint64_t event) {
  if (std::any_of(backing_up_.begin(), backing_up_.end(), [](const auto& copying) { return copying(); })) {
    run_.reached(properties::Marker::kFailoverDuringBackup);
  }
  const auto [it, first] = elected_.emplace(term, member);
  if (first || it->second == member) return;
  run_.violation(properties::Property::kOnePrimaryPerTerm, "members " + std::to_string(it->second) + " and " + std::to_string(member) +
                                                               " were both elected primary in term " + std::to_string(term), event);
}

void ReplicaSet::note_vote(size_t voter, uint64_t term, size_t candidate, uint64_t event) {
  const auto [it, first] = votes_.emplace(std::pair{voter, term}, candidate);
  if (first || it->second == candidate) return;
  run_.violation(properties::Property::kOnePrimaryPerTerm, "member " + std::to_string(voter) + " voted for members " +
                                                               std::to_string(it->second) + " and " + std::to_string(candidate) +
                                                               " in term " + std::to_string(term), event);
}

void ReplicaSet::note_majority_ack(OplogId entry, uint64_t event) { majority_acks_.emplace_back(entry, event); }

std::optional<size_t> ReplicaSet::final_primary() const {
  std::optional<size_t> best;
  for (size_t m = 0; m < electors_.size(); ++m) {
    if (!electors_[m]->writable()) continue;
    if (!best || electors_[m]->term() > electors_[*best]->term()) best = m;
  }
  return best;
}

void ReplicaSet::note_read(OplogId read_point, bool majority, uint64_t event) { reads_.push_back({read_point, majority, event}); }

void ReplicaSet::note_writable(size_t member) {
  assert(!primary_now(member) && "writable once at a time");
  assert(writable_.size() < kWritableSpansMax);
  writable_.push_back({member, run_.trace().event_count(), std::numeric_limits<uint64_t>::max()});
}

void ReplicaSet::note_not_writable(size_t member) {
  for (Writable& w : writable_) {
    if (w.member == member && w.until_event == std::numeric_limits<uint64_t>::max()) w.until_event = run_.trace().event_count();
  }
  assert(!primary_now(member));
}

bool ReplicaSet::primary_at_event(size_t member, uint64_t event) const {
  return std::any_of(writable_.begin(), writable_.end(),
                     [&](const Writable& w) { return w.member == member && w.from_event <= event && event < w.until_event; });
}

bool ReplicaSet::primary_now(size_t member) const {
  return std::any_of(writable_.begin(), writable_.end(),
                     [&](const Writable& w) { return w.member == member && w.until_event == std::numeric_limits<uint64_t>::max(); });
}

void ReplicaSet::note_ttl_delete(size_t member, uint64_t term) {
  if (last_ttl_deleter_ && term < last_ttl_deleter_->second) return;  // a stale primary's
  if (last_ttl_deleter_ && last_ttl_deleter_->first != member) run_.reached(properties::Marker::kTtlPassAcrossFailover);
  last_ttl_deleter_ = {member, term};
}

namespace {

// Whether the oplog holds `entry`, or trimmed its ts (nothing to judge then: a later entry kept
// vouches for it).
bool holds_or_trimmed(const std::vector<OplogId>& oplog, OplogId entry) {
  if (oplog.empty() || entry.ts < oplog.front().ts) return !oplog.empty();
  const auto it = std::lower_bound(oplog.begin(), oplog.end(), OplogId{entry.ts, 0});
  return it != oplog.end() && it->ts == entry.ts && it->term == entry.term;
}

std::string found_at(const std::vector<OplogId>& oplog, uint64_t ts) {
  const auto it = std::lower_bound(oplog.begin(), oplog.end(), OplogId{ts, 0});
  return it != oplog.end() && it->ts == ts ? "an entry of term " + std::to_string(it->term) : "no entry";
}

}  // namespace

uint64_t ReplicaSet::check_against_final_oplog(const std::vector<OplogId>& final_oplog) {
  for (const auto& [entry, event] : majority_acks_) {
    if (holds_or_trimmed(final_oplog, entry)) continue;
    run_.violation(properties::Property::kMajorityWritesSurvive,
                   "a write acknowledged with w:\"majority\" at ts " + std::to_string(entry.ts) + " (term " + std::to_string(entry.term) +
                       ") is lost: the final primary's oplog has " + found_at(final_oplog, entry.ts) + " there", event);
  }
  uint64_t local_rolled_back = 0;
  for (const Read& r : reads_) {
    if (r.point.ts == 0 || holds_or_trimmed(final_oplog, r.point)) continue;
    if (!r.majority) {
      ++local_rolled_back;  // allowed: readConcern "local" may see what is rolled back
      continue;
    }
    run_.violation(properties::Property::kMajorityReadsSurvive,
                   "a readConcern \"majority\" find read up to ts " + std::to_string(r.point.ts) + " (term " + std::to_string(r.point.term) +
                       "), which was rolled back: the final primary's oplog has " + found_at(final_oplog, r.point.ts) + " there", r.event);
  }
  return local_rolled_back;
}

}  // namespace wtsim::world
