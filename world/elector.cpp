#include "world/elector.h"

#include <algorithm>
#include <cassert>
#include <memory>

#include "sim/planted.h"
#include "world/replica_set.h"

namespace wtsim::world {
namespace {

// Whether oplog `a` is newer than `b`: by the term of its newest entry, then by its ts (the
// rule a vote and a priority takeover judge by).
bool newer(const OplogId& a, const OplogId& b) { return a.term != b.term ? a.term > b.term : a.ts > b.ts; }

// MongoDB's: the election timeout's random offset is up to 15 % of it.
constexpr double kOffsetFractionMax = 0.15;
// A heartbeat or vote request unanswered this long is lost.
constexpr sim::Nanos kRequestTimeoutNs = 2 * sim::kNsPerSec;

const char* role_name(Elector::Role role) {
  switch (role) {
    case Elector::Role::kSecondary: return "secondary";
    case Elector::Role::kDraining: return "draining";
    case Elector::Role::kPrimary: return "primary";
  }
  return "?";
}

}  // namespace

Elector::Elector(RunContext& run, NodeContext& host, ReplicaSet& set, Applied applied, MayStand may_stand)
    : run_(run),
      host_(host),
      set_(set),
      read_applied_(std::move(applied)),
      may_stand_(std::move(may_stand)),
      member_(host.member()),
      rng_(sim::stream(run.seed(), "elections.m" + std::to_string(host.member()))),
      heard_ns_(set.members(), -1),
      peer_applied_(set.members()) {}

int Elector::load(engine::OperationContext& op) {
  // A fiber of the last generation frozen inside WiredTiger may hold the old one for good.
  state_mutex_ = std::make_unique<sim::Mutex>("election-state" + host_.generation_suffix());
  role_ = Role::kSecondary;
  primary_known_.reset();
  standing_ = false;
  stepping_down_ = false;
  no_stand_until_ns_ = 0;
  std::fill(heard_ns_.begin(), heard_ns_.end(), -1);
  if (const int ret = engine::ElectionState::read(op, &record_); ret != 0) return ret;
  reset_election_deadline();
  if (record_.term != 0) return 0;
  // replSetInitiate: the first member wins term 1, and every member's first start records its
  // vote for it in term 1, so that no other member can win term 1 too (one stalled or cut off
  // before its first heartbeat would otherwise leave the others in term 0).
  record_ = {1, 0};
  if (const int ret = engine::ElectionState::write_durable(op, record_); ret != 0) return ret;
  if (member_ != 0) return 0;
  role_ = Role::kDraining;
  set_.note_elected(member_, 1, event("elected", {{"term", 1}, {"votes", 1}, {"why", "replSetInitiate"}}));
  return 0;
}

void Elector::closed() {
  if (role_ == Role::kPrimary && !stepping_down_) set_.note_not_writable(member_);
  role_ = Role::kSecondary;
  primary_known_.reset();
  standing_ = false;
  stepping_down_ = false;
  no_stand_until_ns_ = 0;
}

void Elector::spawn(const std::string& suffix) {
  run_.sim().spawn("elector" + suffix, host_.fiber_group(), [this] { loop(); });
}

void Elector::drained() {
  assert(role_ == Role::kDraining);
  role_ = Role::kPrimary;
  set_.note_writable(member_);
  primary_known_ = member_;
  set_.clear_positions(member_);
  std::fill(heard_ns_.begin(), heard_ns_.end(), run_.sim().now_ns());  // a new primary counts its voters as heard
  event("primary_writable", {{"term", record_.term}});
}

std::optional<size_t> Elector::primary_known() const { return writable() ? std::optional<size_t>(member_) : primary_known_; }

std::optional<size_t> Elector::sync_source() const {
  if (const std::optional<size_t> primary = primary_known()) return primary;
  const sim::Nanos since_ns = run_.sim().now_ns() - set_.spec().election_timeout_ns;
  std::optional<size_t> best;
  for (size_t m = 0; m < set_.members(); ++m) {
    if (m == member_ || heard_ns_[m] < since_ns || !newer(peer_applied_[m], applied_)) continue;
    if (!best || newer(peer_applied_[m], peer_applied_[*best])) best = m;
  }
  return best;
}

void Elector::loop() {
  sim::Simulator& sim = run_.sim();
  const sim::Nanos end_ns = run_.end_ns();
  next_heartbeat_ns_ = sim.now_ns();
  while (sim.now_ns() < end_ns) {
    if (sim.now_ns() >= next_heartbeat_ns_) {
      send_heartbeats();
      next_heartbeat_ns_ = sim.now_ns() + set_.spec().heartbeat_interval_ns;
    }
    if (role_ != Role::kSecondary) {
      check_majority();
    } else if (sim.now_ns() >= election_deadline_ns_) {
      primary_known_.reset();  // not heard from within the election timeout
      if (electable() && !standing_) stand("election timeout");
    }
    sim.sleep_for(kTickNs);
  }
}

bool Elector::electable() const {
  const MemberSpec& me = set_.spec().members[member_];
  return me.priority > 0 && me.votes > 0 && run_.sim().now_ns() >= no_stand_until_ns_ && may_stand_();
}

void Elector::step_down_command(sim::Nanos catch_up_deadline_ns, sim::Nanos no_stand_until_ns) {
  sim::Simulator& sim = run_.sim();
  if (!writable() || sim.now_ns() >= catch_up_deadline_ns) {
    event("step_down_failed", {{"term", record_.term}, {"why", writable() ? "ExceededTimeLimit: no time left" : "NotWritablePrimary: not primary"}});
    return;
  }
  const uint64_t term = record_.term;
  stepping_down_ = true;  // no new writes from here on (MongoDB blocks them, then fails them)
  event("stepping_down", {{"term", term}});
  set_.note_not_writable(member_);
  bool caught_up = false;
  while (!caught_up && sim.now_ns() < catch_up_deadline_ns && role_ == Role::kPrimary && record_.term == term) {
    caught_up = secondary_caught_up(applied_now());
    if (!caught_up) sim.sleep_for(kTickNs);
  }
  if (role_ != Role::kPrimary || record_.term != term) {  // it lost the role meanwhile (traced there)
    stepping_down_ = false;
    return;
  }
  if (caught_up) {
    no_stand_until_ns_ = no_stand_until_ns;
    run_.reached(properties::Marker::kPrimarySteppedDown);
    step_down("replSetStepDown");  // not writable since the command began: nothing more to record
    stepping_down_ = false;
    return;
  }
  stepping_down_ = false;
  set_.note_writable(member_);
  event("step_down_failed", {{"term", term}, {"why", "ExceededTimeLimit: no electable secondary caught up"}, {"writable_again", true}});
}

bool Elector::secondary_caught_up(OplogId applied) const {
  const sim::Nanos since_ns = run_.sim().now_ns() - set_.spec().election_timeout_ns;
  for (size_t m = 0; m < set_.members(); ++m) {
    const MemberSpec& peer = set_.spec().members[m];
    if (m == member_ || peer.priority <= 0 || peer.votes == 0 || heard_ns_[m] < since_ns) continue;
    if (!newer(applied, peer_applied_[m])) return true;
  }
  return false;
}

void Elector::send_heartbeats() {
  for (size_t to = 0; to < set_.members(); ++to) {
    if (to == member_) continue;
    run_.sim().spawn("heartbeat" + host_.generation_suffix() + ".to" + std::to_string(to), host_.fiber_group(), [this, to] { heartbeat(to); });
  }
}

void Elector::heartbeat(size_t to) {
  auto reply = std::make_shared<HeartbeatReply>();
  const Heartbeat hb{member_, record_.term};
  ReplicaSet& set = set_;
  const std::string why = set_.rpc().call(member_, to, "heartbeat-reply", kRequestTimeoutNs, [&set, to, hb, reply](bool* done) {
    *reply = set.elector(to).on_heartbeat(hb);
    *done = true;
  }, /*drop_on_crash=*/true);
  if (!why.empty()) return;
  heard_ns_[to] = run_.sim().now_ns();
  peer_applied_[to] = reply->applied;
  if (reply->term > record_.term) return adopt_term(reply->term, "a heartbeat's reply has a newer term");
  if (!reply->primary || reply->term < record_.term || role_ != Role::kSecondary) return;
  primary_known_ = to;
  reset_election_deadline();
  // Priority takeover: a caught-up member with a higher priority than the primary's stands.
  const auto& members = set_.spec().members;
  if (electable() && members[member_].priority > members[to].priority && !standing_) {
    if (!newer(reply->applied, applied_now())) stand("priority takeover");
  }
}

HeartbeatReply Elector::on_heartbeat(const Heartbeat& hb) {
  heard_ns_[hb.from] = run_.sim().now_ns();
  adopt_term(hb.term, "a heartbeat has a newer term");
  // A draining member is primary already (MongoDB's drain mode): it only takes no writes yet.
  return {record_.term, role_ != Role::kSecondary && host_.node().up(), applied_now()};
}

VoteReply Elector::on_vote_request(const VoteRequest& req) {
  const OplogId applied = applied_now();
  if (req.dry_run) return on_dry_run_vote_request(req, applied);
  const sim::MutexGuard guard(*state_mutex_);
  if (req.term > record_.term) adopt_term_locked(req.term, "a vote request has a newer term");
  const char* denied = nullptr;
  if (req.term < record_.term) {
    denied = "its term is older than ours";
  } else if (record_.voted_for && *record_.voted_for != req.candidate && !planted::active(planted::Bug::kVoteForgotten)) {
    denied = "we voted for another candidate in this term";
  } else if (newer(applied, req.applied)) {
    denied = "its oplog is behind ours";
  }
  const uint64_t e = event("vote", {{"candidate", req.candidate}, {"term", req.term}, {"granted", denied == nullptr},
                                    {"why", denied == nullptr ? "" : denied}});
  if (denied != nullptr) return {record_.term, false};
  persist_locked({req.term, req.candidate});
  set_.note_vote(member_, req.term, req.candidate, e);
  reset_election_deadline();  // a member that granted a vote gives the candidate time to win
  return {record_.term, true};
}

// As MongoDB's: the term must be newer than ours and the candidate's oplog not behind ours; a
// vote already given in that term does not count against it, and nothing is written.
VoteReply Elector::on_dry_run_vote_request(const VoteRequest& req, OplogId applied) {
  const char* denied = req.term <= record_.term ? "its term is not newer than ours" : newer(applied, req.applied) ? "its oplog is behind ours" : nullptr;
  event("vote", {{"candidate", req.candidate}, {"term", req.term}, {"granted", denied == nullptr},
                 {"why", denied == nullptr ? "" : denied}, {"dry_run", true}});
  return {record_.term, denied == nullptr};
}

void Elector::check_majority() {
  const sim::Nanos since_ns = run_.sim().now_ns() - set_.spec().election_timeout_ns;
  size_t heard = set_.spec().members[member_].votes;
  for (size_t m = 0; m < set_.members(); ++m) {
    if (m != member_ && heard_ns_[m] >= since_ns) heard += static_cast<size_t>(set_.spec().members[m].votes);
  }
  if (heard < set_.majority()) step_down("it has heard from " + std::to_string(heard) + " voting members within the election timeout");
}

void Elector::stand(const char* why) {
  standing_ = true;
  const OplogId applied = applied_now();
  const uint64_t proposed = record_.term + 1;
  const size_t dry_votes = collect_votes(proposed, applied, /*dry_run=*/true);
  if (dry_votes < set_.majority() || record_.term >= proposed || role_ != Role::kSecondary) {
    standing_ = false;
    event("election_lost", {{"term", proposed}, {"votes", dry_votes}, {"dry_run", true}});
    return reset_election_deadline();
  }
  uint64_t term = 0;
  {
    const sim::MutexGuard guard(*state_mutex_);
    term = planted::active(planted::Bug::kCandidateKeepsTerm) && record_.term > 0 ? record_.term : record_.term + 1;
    persist_locked({term, member_});
  }
  event("election_start", {{"term", term}, {"why", why}, {"applied_ts", applied.ts}, {"applied_term", applied.term}});
  const size_t granted = collect_votes(term, applied, /*dry_run=*/false);
  standing_ = false;
  if (record_.term != term || role_ != Role::kSecondary || granted < set_.majority()) {
    event("election_lost", {{"term", term}, {"votes", granted}});
    return reset_election_deadline();
  }
  role_ = Role::kDraining;
  set_.note_elected(member_, term, event("elected", {{"term", term}, {"votes", granted}, {"why", why}}));
  run_.reached(properties::Marker::kFailover);
}

size_t Elector::collect_votes(uint64_t term, OplogId applied, bool dry_run) {
  const uint64_t own_term = record_.term;
  auto granted = std::make_shared<size_t>(set_.spec().members[member_].votes);
  auto answered = std::make_shared<size_t>(0);
  size_t asked = 0;
  for (size_t to = 0; to < set_.members(); ++to) {
    if (to == member_ || set_.spec().members[to].votes == 0) continue;
    ++asked;
    const VoteRequest req{member_, term, applied, dry_run};
    ReplicaSet& set = set_;
    run_.sim().spawn("vote-request" + host_.generation_suffix() + ".to" + std::to_string(to), host_.fiber_group(),
                     [this, &set, to, req, granted, answered] {
                       auto reply = std::make_shared<VoteReply>();
                       const std::string why = set.rpc().call(member_, to, "vote-reply", kRequestTimeoutNs, [&set, to, req, reply](bool* done) {
                         *reply = set.elector(to).on_vote_request(req);
                         *done = true;
                       }, /*drop_on_crash=*/true);
                       ++*answered;
                       if (!why.empty()) return;
                       // A dry run's voter answers with its own term, which it did not raise.
                       if (reply->granted && (req.dry_run || reply->term == req.term)) ++*granted;
                       adopt_term(reply->term, "a vote reply has a newer term");
                     });
  }
  sim::Simulator& sim = run_.sim();
  while (*granted < set_.majority() && *answered < asked && record_.term == own_term) sim.sleep_for(MemberRpc::kPollNs);
  return *granted;
}

void Elector::adopt_term(uint64_t term, const char* why) {
  if (term <= record_.term) return;
  const sim::MutexGuard guard(*state_mutex_);
  adopt_term_locked(term, why);
}

void Elector::adopt_term_locked(uint64_t term, const char* why) {
  if (term <= record_.term) return;  // adopted meanwhile
  persist_locked({term, std::nullopt});
  if (role_ != Role::kSecondary) step_down(why);
  primary_known_.reset();
}

void Elector::step_down(const std::string& why) {
  event("stepped_down", {{"term", record_.term}, {"from", role_name(role_)}, {"why", why}});
  if (role_ == Role::kPrimary && !stepping_down_) set_.note_not_writable(member_);
  role_ = Role::kSecondary;
  primary_known_.reset();
  reset_election_deadline();
}

void Elector::persist_locked(const engine::ElectionRecord& record) {
  assert(record.term >= record_.term && "a term never goes back");
  const auto op = host_.open_operation("write_election_state");
  const CommitInFlight in_flight(host_);  // a backup releasing this table's pin waits for it
  host_.node_call("write_election_state", [&] { return engine::ElectionState::write_durable(*op, record); });
  record_ = record;
}

void Elector::reset_election_deadline() {
  const sim::Nanos timeout_ns = set_.spec().election_timeout_ns;
  const auto offset_ns = static_cast<sim::Nanos>(rng_.below(static_cast<uint64_t>(timeout_ns * kOffsetFractionMax) + 1));
  election_deadline_ns_ = run_.sim().now_ns() + timeout_ns + offset_ns;
}

OplogId Elector::applied_now() {
  const auto op = host_.open_operation("read_applied");
  applied_ = read_applied_(*op);
  return applied_;
}

uint64_t Elector::event(const char* kind, nlohmann::json details) {
  details["member"] = member_;
  return run_.trace().event(run_.sim().now_ns(), run_.sim().current_or_main().name, kind, std::move(details));
}

}  // namespace wtsim::world
