// A member of a replica set with elections (world/elector.h): a secondary (world/secondary_system.h)
// that may win an election and become the primary, which then serves the "documents" workload's
// clients (world/replica_clients.h) and fetches nothing. A new primary first stops its applier
// (draining), creates the workload's schema if it is missing (the first primary's first start),
// and only then takes writes, whose oplog entries carry its term. A w:"majority" write is
// journaled and waits until a majority of voting members hold its entry (the commit point:
// world/replica_set.h), the primary steps down, or its wtimeout passes. A find with readConcern
// "majority" waits the same way for the newest entry of the oplog it read from; a "local" find
// answers at once. A script's steps (world/script_clients.h) are served the same way: document
// commands on the writable primary (a find that names a member, on any, but one below a rollback's
// minValid: NotMasterOrSecondary), and replSetStepDown. A member below minValid stands for no election.
#include "sim/planted.h"
#include "world/elector.h"
#include "world/replica_set.h"
#include "world/secondary_system.h"

namespace wtsim::world {
namespace {

constexpr sim::Nanos kCommitPollNs = 5 * sim::kNsPerMs;  // how often a w:"majority" write looks

// Counts a client's write while it runs (a crash cancels its fiber, which unwinds this).
class InFlight {
 public:
  InFlight(uint64_t& count, bool counts) : count_(counts ? &count : nullptr) {
    if (count_ != nullptr) ++*count_;
  }
  ~InFlight() {
    if (count_ != nullptr) --*count_;
  }
  InFlight(const InFlight&) = delete;
  InFlight& operator=(const InFlight&) = delete;

 private:
  uint64_t* count_;
};

class ElectableSystem final : public SecondarySystem, public ClientServer {
 public:
  ElectableSystem(RunContext& run, NodeContext& host, SyncSource& source, ReplicaSet& set)
      : SecondarySystem(run, host, source),
        set_(set),
        elector_(run, host, set, [this](engine::OperationContext& op) { return newest_committed(op); }, [this] { return !stopped() && !recovering(); }) {
    set.add(host.member(), elector_, *this, [this] { return backup_copying(); });
  }

  void spawn_actors(const std::string& suffix) override {
    SecondarySystem::spawn_actors(suffix);
    elector_.spawn(suffix);
  }

  void close() override {
    elector_.closed();
    SecondarySystem::close();
  }

  std::string liveness_pending(int64_t since_ns) const override {
    if (!elector_.writable()) return SecondarySystem::liveness_pending(since_ns);
    return backup_pending();
  }

  bool catch_up() override { return elector_.writable() || SecondarySystem::catch_up(); }

  // A TTL delete's term, for the coverage of a pass across a failover.
  uint64_t before_commit(const std::vector<engine::DocWrite>& writes, bool durable) override {
    if (!writes.empty() && !writes.front().ttl_field.empty()) set_.note_ttl_delete(host_.member(), elector_.term());
    return SecondarySystem::before_commit(writes, durable);
  }

  ClientReply serve_client(const ClientRequest& request) override {
    ClientReply reply;
    if (!elector_.writable()) {
      reply.fate = ClientReply::Fate::kNotPrimary;
      reply.why = "not primary";
      return reply;
    }
    const uint64_t term = elector_.term();
    const InFlight in_flight(writes_in_flight_, request.op.is_write());
    const auto op = host_.open_operation("client_session");
    DocumentsOp d = request.op;
    if (d.is_write()) d.durable = d.durable || request.majority;  // MongoDB journals a w:"majority" write
    reply.status = run_documents_op(*op, d);
    reply.last_op = {op->last_op_ts, term};
    if (reply.status.wt_code != 0) {
      reply.fate = ClientReply::Fate::kFailed;
      reply.why = "WiredTiger failed";
      return reply;
    }
    reply.fate = ClientReply::Fate::kOk;
    if (!d.is_write()) return read_concern(*op, request, term, reply);
    if (request.majority && op->last_op_ts > 0) wait_for_majority(op->last_op_ts, term, request.wtimeout_ns, &reply);
    return reply;
  }

  ScriptReply serve_script(const ScriptRequest& request) override {
    if (!request.any_member && !elector_.writable()) return reply_code("NotMaster");
    if (request.any_member) {  // a find on this member, whatever its role
      if (const std::string refusal = read_refusal(); !refusal.empty()) return reply_code(refusal);
    }
    const uint64_t term = elector_.term();
    const bool write = is_write_command(request.cmd);
    const InFlight in_flight(writes_in_flight_, write);
    const auto op = host_.open_operation("script_session");
    nlohmann::json args = request.args;
    if (write && request.majority) args["j"] = true;  // MongoDB journals a w:"majority" write
    ScriptReply reply = script_command(*op, request.cmd, args);
    reply.member = host_.member();
    reply.last_op = {op->last_op_ts, term};
    if (write && request.majority && op->last_op_ts > 0 && reply.code == "OK") {
      ClientReply waited;
      waited.fate = ClientReply::Fate::kOk;
      wait_for_majority(op->last_op_ts, term, request.wtimeout_ns, &waited);
      if (waited.fate != ClientReply::Fate::kOk) reply.code = "WriteConcernFailed";
    }
    if (request.want_metrics) reply.metrics = metrics_of(host_, *engine_, *op);
    return reply;
  }

  std::string serve_step_down(sim::Nanos catch_up_deadline_ns, sim::Nanos no_stand_until_ns) override {
    if (!elector_.writable()) return "NotMaster";
    const uint64_t term = elector_.term();
    elector_.step_down_command(catch_up_deadline_ns, no_stand_until_ns);
    if (elector_.term() != term) return "NotMaster";  // a newer term's election unseated it meanwhile
    return elector_.role() == Elector::Role::kSecondary ? "OK" : "ExceededTimeLimit";
  }

 protected:
  engine::Status create_schema(engine::OperationContext& op) override {
    return engine::Status::from_wt(elector_.load(op));
  }

  // A draining primary's applier has stopped here: it becomes writable. A member that stepped
  // down applies nothing until its own writes are done (MongoDB's step-down waits for them).
  bool fetching(engine::OperationContext& op) override {
    if (elector_.draining()) become_writable(op);
    return elector_.role() == Elector::Role::kSecondary && writes_in_flight_ == 0 && !ttl_monitor().in_pass();
  }

  // MongoDB stops the oplog fetcher of a member it elects: its drain waits for no answer.
  bool fetching_wanted() const override { return elector_.role() == Elector::Role::kSecondary; }

  bool ttl_primary() const override { return elector_.writable(); }
  // Judged on the set's record of primaries, not on what the monitor asked.
  bool ttl_deleter_was_primary() const override { return set_.primary_at_event(host_.member(), ttl_monitor().pass_start_event()); }

  // The position a fetch reports must be durable (it counts toward a w:"majority" write).
  void before_fetch(engine::OperationContext& op) override {
    const uint64_t next_ts = engine_->next_oplog_ts();
    if (next_ts == flushed_next_ts_) return;
    host_.node_call("flush_before_fetch", [&] { return op.flush_log(); });
    flushed_next_ts_ = next_ts;
  }

 private:
  void become_writable(engine::OperationContext& op) {
    const uint64_t term = elector_.term();
    if (run_.scenario().workload.kind == WorkloadKind::kDocuments) {  // a script creates its own
      host_.node_call("create_schema", [&] { return create_documents_schema(*engine_, op, run_.scenario()); });
    }
    if (!elector_.draining() || elector_.term() != term) return;  // it stepped down meanwhile
    judge_serving("become primary");
    engine_->set_oplog_term(term);
    elector_.drained();
  }

  // A find's read point: the newest entry committed once it had read (every write it saw is at
  // or below it); readConcern "majority" waits until a majority holds it.
  ClientReply read_concern(engine::OperationContext& op, const ClientRequest& request, uint64_t term, ClientReply reply) {
    const OplogId newest = newest_committed(op);
    reply.read_point = newest;
    const bool skip = planted::active(planted::Bug::kMajorityReadSkipsWait);
    if (request.majority && newest.ts > 0 && !skip) wait_for_majority(newest.ts, term, request.wtimeout_ns, &reply);
    return reply;
  }

  // The newest committed entry of the oplog (ts 0: none). A primary's newest ts may belong to a
  // transaction still open, or one rolled back: it looks back a window at a time from there.
  OplogId newest_committed(engine::OperationContext& op) {
    constexpr uint64_t kWindow = 64;
    const uint64_t next = engine_->next_oplog_ts(), first = engine_->first_oplog_ts();
    std::vector<engine::OplogEntry> entries;
    for (uint64_t span = kWindow; entries.empty(); span *= 2) {
      const uint64_t after = next > span ? next - span : 0;
      host_.node_call("read_newest", [&] { return engine_->read_oplog_after(op, after, static_cast<size_t>(next - after), &entries); });
      if (after < first) break;  // looked at the whole oplog
    }
    return entries.empty() ? OplogId{} : OplogId{entries.back().ts, entries.back().term};
  }

  void wait_for_majority(uint64_t ts, uint64_t term, sim::Nanos wtimeout_ns, ClientReply* reply) {
    sim::Simulator& sim = run_.sim();
    const sim::Nanos deadline_ns = sim.now_ns() + wtimeout_ns;
    while (!set_.majority_has(host_.member(), ts)) {
      if (!elector_.writable() || elector_.term() != term) {
        reply->fate = ClientReply::Fate::kWriteConcernFailed;
        reply->why = "the primary stepped down";
        return;
      }
      if (sim.now_ns() >= deadline_ns) {
        reply->fate = ClientReply::Fate::kWriteConcernFailed;
        reply->why = "wtimeout";
        return;
      }
      sim.sleep_for(kCommitPollNs);
    }
  }

  ReplicaSet& set_;
  Elector elector_;
  uint64_t flushed_next_ts_ = 0;  // the oplog's next ts at the last flush before a fetch
  uint64_t writes_in_flight_ = 0;  // clients' writes running on this member
};

}  // namespace

std::unique_ptr<System> make_electable_system(RunContext& run, NodeContext& host, SyncSource& source, ReplicaSet& set) {
  return std::make_unique<ElectableSystem>(run, host, source, set);
}

}  // namespace wtsim::world
