#pragma once
// What a replica set with elections shares between its members and its clients in one run: the
// network's requests (world/member_rpc.h), each member's elector and client server, the members'
// replication progress as each primary saw it (a w:"majority" write's commit point), and the
// records its two properties are judged on:
//   one_primary_per_term    two members elected in one term, or one member voting for two
//                           candidates in one term;
//   majority_writes_survive a write acknowledged with w:"majority" whose oplog entry is not in
//                           the final primary's oplog;
//   majority_reads_survive  a readConcern "majority" find whose read point is not in the final
//                           primary's oplog (it saw a write later rolled back). A "local" find may
//                           see one: counted, never a violation.
// and when each member was a writable primary, which ttl_safety judges a TTL delete on.
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/engine_types.h"
#include "world/documents_ops.h"
#include "world/member_rpc.h"
#include "world/replica_set_spec.h"
#include "world/run_context.h"
#include "world/script_command.h"
#include "world/system.h"

namespace wtsim::world {

class Elector;

// A client's request to a member, and its answer (world/replica_clients.h).
struct ClientRequest {
  DocumentsOp op;
  // A write's w:"majority" (and j:true, MongoDB's default for it); a find's readConcern "majority".
  bool majority = false;
  sim::Nanos wtimeout_ns = 0;
};
struct ClientReply {
  enum class Fate { kOk, kNotPrimary, kFailed, kWriteConcernFailed };
  Fate fate = Fate::kFailed;
  engine::Status status;
  OplogId last_op;  // the newest oplog entry the command wrote (ts 0: none)
  // A find's: the newest entry of the primary's oplog once the find had read. Every write the
  // find saw is at or below it in that oplog; a majority read returns only once a majority holds it.
  OplogId read_point;
  std::string why;
};

class ClientServer {
 public:
  // In a fiber of the member's node: runs the request if the member is a writable primary.
  virtual ClientReply serve_client(const ClientRequest& request) = 0;
  // A script step's document command (world/script_clients.h): run if the member is a writable
  // primary, or on any member for a read that names it; else code "NotMaster".
  virtual ScriptReply serve_script(const ScriptRequest& request) = 0;
  // replSetStepDown (world/elector.h): "OK" once the member stepped down, else MongoDB's code
  // name for why not ("NotMaster", "ExceededTimeLimit").
  virtual std::string serve_step_down(sim::Nanos catch_up_deadline_ns, sim::Nanos no_stand_until_ns) = 0;

 protected:
  ~ClientServer() = default;
};

class ReplicaSet {
 public:
  ReplicaSet(RunContext& run, MemberRpc& rpc) : run_(run), rpc_(rpc), spec_(run.scenario().replica_set) {}

  const ReplicaSetSpec& spec() const { return spec_; }
  MemberRpc& rpc() { return rpc_; }
  size_t members() const { return spec_.size(); }
  // The votes a candidate, or a primary's connections, need: more than half the voting members.
  size_t majority() const;
  // Each member's system registers its parts when it is built; `backing_up`: whether the
  // member's hot backup is copying now.
  void add(size_t member, Elector& elector, ClientServer& server, std::function<bool()> backing_up);
  Elector& elector(size_t member) { return *electors_.at(member); }
  ClientServer& server(size_t member) { return *servers_.at(member); }

  // --- The commit point. ---
  void note_position(size_t primary, size_t member, OplogId applied);
  void clear_positions(size_t primary);
  // Whether entry `ts` of `primary` is durable on a majority of voting members: the primary
  // itself (the write was journaled) and those whose fetches said they hold it.
  bool majority_has(size_t primary, uint64_t ts) const;

  // --- Records for the properties (events are the subjects of violations). ---
  void note_elected(size_t member, uint64_t term, uint64_t event);
  void note_vote(size_t voter, uint64_t term, size_t candidate, uint64_t event);
  void note_majority_ack(OplogId entry, uint64_t event);
  void note_read(OplogId read_point, bool majority, uint64_t event);
  // A member became a writable primary, or stopped being one (stepped down or crashed).
  // Spans are kept in the trace's event order, not in time: two things at one virtual instant
  // (a TTL pass begins, its member steps down) keep the order they had.
  void note_writable(size_t member);
  void note_not_writable(size_t member);
  // Whether `member` was a writable primary when the trace's event `event` was written.
  bool primary_at_event(size_t member, uint64_t event) const;
  bool primary_now(size_t member) const;
  // The highest term a member was elected in (0 before any election).
  uint64_t newest_term() const { return elected_.empty() ? 0 : elected_.rbegin()->first; }
  // A TTL delete committed on `member`, a primary of `term` (the coverage of a TTL pass across a failover).
  void note_ttl_delete(size_t member, uint64_t term);

  // --- The end of the run. ---
  // The writable primary of the highest term, if any.
  std::optional<size_t> final_primary() const;
  // Every acknowledged w:"majority" write and every read's point against the final primary's
  // oplog. Returns how many "local" reads saw a write later rolled back.
  uint64_t check_against_final_oplog(const std::vector<OplogId>& final_oplog);

 private:
  RunContext& run_;
  MemberRpc& rpc_;
  const ReplicaSetSpec& spec_;
  std::vector<Elector*> electors_;
  std::vector<ClientServer*> servers_;
  std::vector<std::function<bool()>> backing_up_;
  std::map<size_t, std::map<size_t, OplogId>> positions_;  // primary -> member -> its durable newest entry
  std::map<uint64_t, size_t> elected_;                     // term -> member
  std::map<std::pair<size_t, uint64_t>, size_t> votes_;    // (voter, term) -> candidate
  std::vector<std::pair<OplogId, uint64_t>> majority_acks_;  // entry, its ack event
  struct Read {
    OplogId point;
    bool majority;
    uint64_t event;
  };
  std::vector<Read> reads_;
  struct Writable {
    size_t member;
    uint64_t from_event, until_event;  // trace event indices, [from, until); until: max while it lasts
  };
  static constexpr size_t kWritableSpansMax = 100'000;  // elections a run holds
  std::vector<Writable> writable_;
  std::optional<std::pair<size_t, uint64_t>> last_ttl_deleter_;  // member, term
};

}  // namespace wtsim::world
