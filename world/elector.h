#pragma once
// A replica set member's part in elections, as MongoDB's protocol version 1 gives it: terms,
// heartbeats, an election timeout with a seeded random offset, one vote per term (kept durably:
// engine/election_state.h), the most up-to-date oplog wins a vote, a higher-priority member that
// has caught up takes over, and a primary that cannot reach a majority steps down. A candidate
// first runs a dry run (pv1's): it asks for votes in the next term without raising its own, and
// stands only if a majority would grant them, so one that cannot win unseats no primary. There is
// no catch-up period for a new primary.
//
// Roles: a secondary applies the oplog; a member that won an election is draining until its
// applier has stopped (SecondarySystem::fetcher calls drained()), and only then a writable
// primary, whose oplog entries carry its term. A crash makes it a secondary; at its next start
// it reads its term and vote back. The first member's first start initiates the set: it becomes
// primary of term 1, as replSetInitiate's member wins the first election; every other member's
// first start records its vote for it in term 1.
//
// Fibers (group of the node: they die with it): "elector" ticks, sends heartbeats, watches the
// timeouts and stands for election; each heartbeat and vote request is a fiber of its own; a
// peer answers in a fiber of its node (world/member_rpc.h).
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/election_state.h"
#include "engine/operation_context.h"
#include "sim/random.h"
#include "sim/sync.h"
#include "world/node_context.h"
#include "world/run_context.h"
#include "world/system.h"

namespace wtsim::world {

class ReplicaSet;

struct Heartbeat {
  size_t from = 0;
  uint64_t term = 0;
};
struct HeartbeatReply {
  uint64_t term = 0;
  bool primary = false;  // primary in `term` (writable, or draining)
  OplogId applied;       // the newest entry of its oplog
};
struct VoteRequest {
  size_t candidate = 0;
  uint64_t term = 0;
  OplogId applied;       // the candidate's newest entry
  bool dry_run = false;  // answered as a real request would be, with nothing recorded or adopted
};
struct VoteReply {
  uint64_t term = 0;
  bool granted = false;
};

class Elector {
 public:
  enum class Role { kSecondary, kDraining, kPrimary };
  static constexpr sim::Nanos kTickNs = 100 * sim::kNsPerMs;

  // `applied` reads the node's newest oplog entry (through a node call).
  using Applied = std::function<OplogId(engine::OperationContext&)>;
  // Whether the member may stand at all (one that needs a resync may not).
  using MayStand = std::function<bool()>;
  Elector(RunContext& run, NodeContext& host, ReplicaSet& set, Applied applied, MayStand may_stand);

  // At every open of the node, before any actor: reads the durable record (the first member's
  // first start writes term 1 and its own vote, and drains to primary; another's first start writes
  // term 1 and its vote for the first). WiredTiger's code.
  int load(engine::OperationContext& op);
  // The node crashed or closed: no longer primary.
  void closed();
  void spawn(const std::string& suffix);

  Role role() const { return role_; }
  uint64_t term() const { return record_.term; }
  bool writable() const { return role_ == Role::kPrimary && !stepping_down_ && host_.node().up(); }
  bool draining() const { return role_ == Role::kDraining; }
  // The applier has stopped: a drained member becomes a writable primary.
  void drained();
  // The member this one believes to be primary now (itself when it is).
  std::optional<size_t> primary_known() const;
  // Whom to fetch from: the primary it knows of; without one, the member heard from within the
  // election timeout whose oplog is newest and newer than its own (MongoDB's chaining), so that
  // a secondary left behind catches up and may win the next election.
  std::optional<size_t> sync_source() const;

  // replSetStepDown, in a fiber of this member's node: a writable primary takes no writes while
  // it waits, until `catch_up_deadline_ns` (secondaryCatchUpPeriodSecs), for an electable
  // secondary heard from within the election timeout to hold its newest entry; then it steps
  // down and stands for no election before `no_stand_until_ns` (stepDownSecs). Otherwise it
  // stays primary; `step_down_failed` says why.
  void step_down_command(sim::Nanos catch_up_deadline_ns, sim::Nanos no_stand_until_ns);

  // A peer's requests, answered in a fiber of this member's node.
  HeartbeatReply on_heartbeat(const Heartbeat& hb);
  VoteReply on_vote_request(const VoteRequest& req);

 private:
  void loop();
  void send_heartbeats();
  void heartbeat(size_t to);
  void check_majority();
  void stand(const char* why);
  // Asks every other voting member for its vote in `term`; the votes granted, its own included.
  // Stops early once a majority granted, or when its own term changes meanwhile.
  size_t collect_votes(uint64_t term, OplogId applied, bool dry_run);
  VoteReply on_dry_run_vote_request(const VoteRequest& req, OplogId applied);
  // A term newer than ours: adopted durably; a primary steps down. Older or equal: nothing.
  void adopt_term(uint64_t term, const char* why);
  void adopt_term_locked(uint64_t term, const char* why);
  void step_down(const std::string& why);
  // Writes the record durably, then takes it; the caller holds state_mutex_ (one write at a time,
  // so a term never goes back).
  void persist_locked(const engine::ElectionRecord& record);
  void reset_election_deadline();
  bool electable() const;
  bool secondary_caught_up(OplogId applied) const;
  OplogId applied_now();
  uint64_t event(const char* kind, nlohmann::json details);

  RunContext& run_;
  NodeContext& host_;
  ReplicaSet& set_;
  Applied read_applied_;
  MayStand may_stand_;
  const size_t member_;
  sim::Rng rng_;  // the election timeout's random offset
  engine::ElectionRecord record_;
  std::unique_ptr<sim::Mutex> state_mutex_;  // per generation
  Role role_ = Role::kSecondary;
  std::optional<size_t> primary_known_;
  sim::Nanos election_deadline_ns_ = 0;
  sim::Nanos next_heartbeat_ns_ = 0;
  std::vector<sim::Nanos> heard_ns_;  // per member: the last heartbeat exchanged with it (-1: never)
  std::vector<OplogId> peer_applied_;  // per member: its newest entry, as its last heartbeat said
  OplogId applied_;                    // its own newest entry, as last read
  bool standing_ = false;             // an election of ours is under way
  bool stepping_down_ = false;        // replSetStepDown waits for a secondary to catch up
  sim::Nanos no_stand_until_ns_ = 0;  // after replSetStepDown (in memory only, as MongoDB's)
};

}  // namespace wtsim::world
