// A scenario's `steps` (world/script.h) run on the document engine: one fiber per client, each
// doing its steps in order and checking each step's expectations (the property
// script_expectations), with the TTL monitor, journal flusher and checkpointer running as for any
// workload. A crash (a `crash` step or the fault plan) ends the step in progress; after the
// restart each client goes on with its next step, as a driver's application would.
#include <algorithm>
#include <cassert>
#include <memory>

#include "faults/crash_mode.h"
#include "sim/sync.h"
#include "world/doc_system.h"
#include "world/script.h"
#include "world/ttl_monitor.h"

namespace wtsim::world {
namespace {

constexpr sim::Nanos kPollNs = 10 * sim::kNsPerMs;  // waitTtlPass's

// What a step produced, for its expectations.
struct StepResult {
  std::string code = "OK";
  std::optional<uint64_t> n, modified;
  std::optional<engine::Document> docs;
  engine::Document explain;
  std::optional<nlohmann::json> metrics;  // a read on another member: that member's
  std::optional<std::string> state;       // replSetGetStatus
  std::optional<uint64_t> entries_behind;  // replSetGetStatus
};

std::string code_name(engine::ErrorCode code) {
  switch (code) {
    case engine::ErrorCode::kOk: return "OK";
    case engine::ErrorCode::kBadValue: return "BadValue";
    case engine::ErrorCode::kNamespaceNotFound: return "NamespaceNotFound";
    case engine::ErrorCode::kIndexNotFound: return "IndexNotFound";
    case engine::ErrorCode::kCannotGrowCapped: return "CannotGrowCapped";
    case engine::ErrorCode::kDuplicateKey: return "DuplicateKey";
  }
  return "Unknown";
}

// A command's status as a script expects it: a WiredTiger failure by its number, else the engine's code.
std::string code_text(const engine::Status& status) {
  return status.wt_code != 0 ? "WiredTiger error " + std::to_string(status.wt_code) : code_name(status.code);
}

// A value against an expectation: equal, or inside a {"min", "max"} range.
bool meets(const nlohmann::json& got, const nlohmann::json& want) {
  if (!want.is_object() || !(want.contains("min") || want.contains("max"))) return got == want;
  if (!got.is_number()) return false;
  const double v = got.get<double>();
  return (!want.contains("min") || v >= want["min"].get<double>()) && (!want.contains("max") || v <= want["max"].get<double>());
}

engine::IndexSpec index_spec(const nlohmann::json& args) {
  engine::IndexSpec spec;
  const nlohmann::json& key = args["key"];
  if (key.is_object()) {
    spec.fields.emplace_back(key.begin().key(), key.begin().value().get<int>());
  } else {
    for (const nlohmann::json& part : key) spec.fields.emplace_back(part[0].get<std::string>(), part[1].get<int>());
  }
  for (const auto& [field, dir] : spec.fields) spec.name += (spec.name.empty() ? "" : "_") + field + "_" + std::to_string(dir);
  spec.name = args.value("name", spec.name);
  spec.unique = args.value("unique", false);
  if (args.contains("expireAfterSeconds")) spec.expire_after_seconds = args["expireAfterSeconds"];
  return spec;
}

class ScriptSystem final : public DocSystem {
 public:
  ScriptSystem(RunContext& run, NodeContext& host) : DocSystem(run, host), script_(*run.scenario().script), ttl_(run.scenario().ttl) {
    next_.assign(script_.clients.size(), 0);
    barriers_passed_.assign(script_.clients.size(), 0);
  }

  void spawn_actors(const std::string& suffix) override {
    sim::Simulator& sim = run_.sim();
    // After a crash the script did not ask for (the fault plan's, a sweep's), a step may have
    // been cut short and unflushed writes lost: what later steps expect no longer follows from
    // the script, so their expectations are skipped (the model's properties still check all).
    if (host_.node().generation() > 1 && !crash_requested_) unplanned_crash_ = true;
    crash_requested_ = false;
    for (size_t c = 0; c < script_.clients.size(); ++c) {
      if (next_[c] < script_.clients[c].size()) sim.spawn("script-client-" + std::to_string(c) + suffix, host_.fiber_group(), [this, c] { client(c); });
    }
    if (ttl_.mode == TtlMode::kIndex) {
      sim.spawn("ttl-monitor" + suffix, host_.fiber_group(), [this] {
        monitor_.run(engine_, [this](properties::Property p, const std::string& detail) { finding(p, detail); });
      });
    }
    spawn_oplog_trimmer(suffix);
  }

  std::vector<properties::Marker> busy_phases() const override {
    std::vector<properties::Marker> phases = DocSystem::busy_phases();
    if (monitor_.in_pass()) phases.push_back(properties::Marker::kCrashDuringTtlPass);
    return phases;
  }

 private:
  engine::Status create_schema(engine::OperationContext&) override { return {}; }  // the script's own

  void client(size_t c) {
    const ClientScope scope(run_);
    engine::OperationContext op(host_.node().conn());
    const std::vector<ScriptStep>& steps = script_.clients[c];
    while (next_[c] < steps.size()) {
      const ScriptStep& step = steps[next_[c]++];  // a crash during it moves on to the next
      StepResult r;
      for (uint64_t i = 0; i < step.repeat; ++i) {
        r = run(op, step);
        run_.note_progress();
      }
      check(op, step, r);
    }
    // The script's partitions end with it (the final checks need the members joined).
    if (++clients_done_ == script_.clients.size()) heal();
  }

  // {"$now": OFFSET_MS} anywhere in `v` becomes a Date at the virtual now plus the offset.
  engine::Document resolve(const nlohmann::json& v) const {
    if (v.is_object() && v.size() == 1 && v.contains("$now") && v["$now"].is_number_integer()) {
      return engine::make_date(engine_->now_ms() + v["$now"].get<int64_t>());
    }
    if (!v.is_object() && !v.is_array()) return v;
    engine::Document out = v;
    for (auto& [k, x] : out.items()) x = resolve(x);
    return out;
  }

  StepResult run(engine::OperationContext& op, const ScriptStep& step) {
    const nlohmann::json a = resolve(step.args);
    if (step.cmd == "insert" || step.cmd == "update" || step.cmd == "replace" || step.cmd == "delete") return crud(op, step.cmd, a);
    if (step.cmd == "find") return find(op, a);
    if (step.cmd == "awaitReplication") return await_replication(a);
    if (step.cmd == "replSetGetStatus") return member_status(a);
    if (step.cmd == "create" || step.cmd == "createIndex" || step.cmd == "dropIndex" || step.cmd == "collMod") return ddl(op, step.cmd, a);
    world_control(op, step, a);
    return {};
  }

  StepResult crud(engine::OperationContext& op, const std::string& cmd, const nlohmann::json& a) {
    const std::string ns = a["ns"];
    const engine::WriteConcern wc{a.value("j", false)};
    const engine::Document filter = a.value("filter", engine::Document::object());
    engine::WriteResult w;
    if (cmd == "insert") {
      std::vector<engine::Document> docs = a["docs"].is_array() ? a["docs"].get<std::vector<engine::Document>>() : std::vector<engine::Document>{a["docs"]};
      w = write("script_insert", [&] { return engine_->insert_many(op, ns, std::move(docs), wc, a.value("ordered", true)); });
    } else if (cmd == "update" || cmd == "replace") {
      const engine::Document& change = cmd == "update" ? a["update"] : a["replacement"];
      w = write("script_update", [&] { return engine_->update(op, ns, filter, change, a.value("upsert", false), a.value("multi", false), wc); });
    } else {
      w = write("script_delete", [&] { return engine_->remove(op, ns, filter, !a.value("many", false), wc); });
    }
    StepResult r;
    r.n = w.n;
    r.modified = w.modified;
    r.code = w.status.ok() && !w.errors.empty() ? code_name(w.errors.front().code) : code_text(w.status);
    return r;
  }

  static engine::FindRequest find_request(const nlohmann::json& a) {
    engine::FindRequest req;
    req.filter = a.value("filter", engine::Document::object());
    if (a.contains("sort")) req.sort = index_spec({{"key", a["sort"]}}).fields.front();
    req.limit = a.value("limit", uint64_t{0});
    req.hint = a.value("hint", "");
    return req;
  }

  // A find on another member of the replica set, over the network; the step's metrics
  // expectations are then that member's.
  // The read may be served after the step gave up on it (a paused member): it owns what it uses.
  StepResult find_on(size_t member, const nlohmann::json& a) {
    auto r = std::make_shared<StepResult>();
    const std::string why = run_.members()->read_on(member, [this, r, ns = a["ns"].get<std::string>(), req = find_request(a)](
                                                                NodeContext& host, engine::DocumentEngine& e, engine::OperationContext& op) {
      const engine::FindResult f = host.node_call("script_find", [&] { return e.find(op, ns, req); });
      r->code = code_text(f.status);
      r->n = f.docs.size();
      r->docs = engine::Document(f.docs);
      r->explain = f.explain;
      r->metrics = metrics_of(host, e, op);
    });
    if (!why.empty()) return StepResult{"HostUnreachable"};
    return *r;
  }

  StepResult find(engine::OperationContext& op, const nlohmann::json& a) {
    const size_t member = a.value("member", host_.member());
    if (member != host_.member()) return find_on(member, a);
    const engine::FindRequest req = find_request(a);
    const models::ReadScope read(host_.model());
    const engine::FindResult f = host_.node_call("script_find", [&] { return engine_->find(op, a["ns"], req); });
    if (f.status.ok()) check_find(a["ns"].get<std::string>(), req.filter, f.docs, read.token());
    StepResult r;
    r.code = code_text(f.status);
    r.n = f.docs.size();
    r.docs = engine::Document(f.docs);
    r.explain = f.explain;
    return r;
  }

  StepResult ddl(engine::OperationContext& op, const std::string& cmd, const nlohmann::json& a) {
    const std::string ns = a["ns"];
    const engine::Status s = host_.node_call("script_" + cmd, [&] {
      if (cmd == "create") return engine_->create_collection(op, ns, collection_options(a));
      if (cmd == "createIndex") return engine_->create_index(op, ns, index_spec(a));
      if (cmd == "dropIndex") return engine_->drop_index(op, ns, a["name"]);
      return engine_->set_expire_after(op, ns, a["index"], a["expireAfterSeconds"]);
    });
    StepResult r;
    r.code = code_text(s);
    return r;
  }

  static engine::CollectionOptions collection_options(const nlohmann::json& a) {
    engine::CollectionOptions o;
    o.padded = a.value("padded", false);
    o.capped_max_docs = a.value("capped_max_docs", uint64_t{0});
    o.power_of_2_sizes = a.value("power_of_2_sizes", false);
    if (a.value("padding_rules", "2.6") == "1.x") o.padding_rules = engine::MmapAllocator::PaddingRules::kV1x;
    return o;
  }

  // The world's commands: time, durability, crashes, partitions, the TTL monitor, barriers.
  void world_control(engine::OperationContext& op, const ScriptStep& step, const nlohmann::json& a) {
    sim::Simulator& sim = run_.sim();
    const std::string& cmd = step.cmd;
    if (cmd == "sleep") return sim.sleep_for(std::min<sim::Nanos>(a["ms"].get<int64_t>() * sim::kNsPerMs, run_.end_ns() - sim.now_ns()));
    if (cmd == "checkpoint") return void(host_.node_call("script_checkpoint", [&] { return op.session()->checkpoint(op.session(), nullptr); }));
    if (cmd == "flush") return void(host_.node_call("script_flush", [&] { return op.flush_log(); }));
    if (cmd == "crash") {
      const auto mode = faults::crash_mode_from_string(a.value("mode", "drop_unsynced"));
      assert(mode.has_value());  // the parser checked it
      crash_requested_ = true;
      if (a.contains("after_disk_ops")) return host_.arm_crash_after(a["after_disk_ops"].get<uint64_t>(), *mode);
      return host_.crash_now(*mode, "script step " + std::to_string(step.index));
    }
    if (cmd == "setParameter") {
      ttl_.monitor_enabled = a.value("ttlMonitorEnabled", ttl_.monitor_enabled);
      if (a.contains("ttlMonitorSleepSecs")) ttl_.monitor_sleep_ns = std::max<sim::Nanos>(1, a["ttlMonitorSleepSecs"].get<int64_t>()) * sim::kNsPerSec;
      return;
    }
    if (cmd == "partition") {
      const NetworkFault shape = partition_of(a);
      run_.members()->script_network(shape, true, step.index);
      return cut_.push_back({shape, step.index});
    }
    if (cmd == "pause") {
      NetworkFault shape;
      shape.kind = NetworkFault::Kind::kPause;
      shape.member = a["member"].get<size_t>();
      run_.members()->script_network(shape, true, step.index);
      return cut_.push_back({shape, step.index});
    }
    if (cmd == "heal") return heal();
    if (cmd == "waitTtlPass") {  // a whole pass that started after this step did
      const sim::Nanos since_ns = sim.now_ns();
      while (monitor_.last_pass_start_ns() < since_ns && sim.now_ns() < run_.end_ns()) sim.sleep_for(kPollNs);
      return;
    }
    assert(cmd == "barrier");
    const size_t ordinal = barriers_passed_[step.client]++;  // a barrier
    if (arrivals_.size() <= ordinal) arrivals_.resize(ordinal + 1, 0);
    if (++arrivals_[ordinal] == script_.clients.size()) barrier_.notify_all(sim);
    while (arrivals_[ordinal] < script_.clients.size()) barrier_.wait(sim, "barrier");
  }

  static NetworkFault partition_of(const nlohmann::json& a) {
    NetworkFault f;
    if (a.contains("isolate")) {
      f.kind = NetworkFault::Kind::kIsolate;
      f.member = a["isolate"].get<size_t>();
    } else if (a.contains("side")) {
      f.kind = NetworkFault::Kind::kPartition;
      f.side = a["side"].get<std::vector<size_t>>();
    } else {
      f.kind = NetworkFault::Kind::kCut;
      f.from = a["from"].get<size_t>();
      f.to = a["to"].get<size_t>();
    }
    return f;
  }

  // Gives back every link the script's partitions cut and resumes its paused members, in order.
  void heal() {
    for (const auto& [shape, step] : cut_) run_.members()->script_network(shape, false, step);
    cut_.clear();
  }

  // replSetGetStatus on `member`: its state, and how far it is behind this member, the primary.
  StepResult member_status(const nlohmann::json& a) {
    MemberAccess& members = *run_.members();
    const size_t member = a.value("member", host_.member());
    const uint64_t primary_ts = engine_->next_oplog_ts() - 1, member_ts = members.newest_ts(member);
    StepResult r;
    r.state = members.member_state(member);
    r.entries_behind = primary_ts > member_ts ? primary_ts - member_ts : 0;
    return r;
  }

  // Until every member holds this member's newest oplog entry (MongoDB's awaitReplication):
  // "OK", or "WriteConcernFailed" once timeout_ms (default 10 s) passed first.
  StepResult await_replication(const nlohmann::json& a) {
    constexpr uint64_t kTimeoutMsDefault = 10'000;
    sim::Simulator& sim = run_.sim();
    MemberAccess* members = run_.members();
    const uint64_t target = engine_->next_oplog_ts() - 1;
    const sim::Nanos deadline_ns = sim.now_ns() + static_cast<sim::Nanos>(a.value("timeout_ms", kTimeoutMsDefault)) * sim::kNsPerMs;
    const auto caught_up = [&] {
      for (size_t m = 0; members != nullptr && m < members->member_count(); ++m) {
        if (members->newest_ts(m) < target) return false;
      }
      return true;
    };
    while (!caught_up()) {
      if (sim.now_ns() >= deadline_ns) return StepResult{"WriteConcernFailed"};
      sim.sleep_for(kPollNs);
    }
    return {};
  }

  void check(engine::OperationContext& op, const ScriptStep& step, const StepResult& r) {
    const StepExpectation& e = step.expect;
    if (unplanned_crash_ && !e.empty()) {
      run_.trace().event(run_.sim().now_ns(), run_.sim().current().name, "script_step",
                           {{"step", step.index}, {"cmd", step.cmd}, {"code", r.code}, {"held", true}, {"skipped", true}});
      return;
    }
    std::vector<std::string> failed;
    const auto compare = [&](const std::string& what, const nlohmann::json& got, const nlohmann::json& want) {
      if (!meets(got, want)) failed.push_back(what + ": expected " + want.dump() + ", got " + got.dump());
    };
    if (e.code) compare("code", r.code, *e.code);
    if (e.n) compare("n", r.n ? nlohmann::json(*r.n) : nlohmann::json(), *e.n);
    if (e.modified) compare("modified", r.modified ? nlohmann::json(*r.modified) : nlohmann::json(), *e.modified);
    if (e.docs) compare("docs", r.docs ? *r.docs : nlohmann::json(), resolve(*e.docs));
    for (const auto& [pointer, want] : e.explain) compare("explain " + pointer, value_at(r.explain, pointer), want);
    if (!e.metrics.empty()) {
      const nlohmann::json metrics = r.metrics ? *r.metrics : metrics_of(host_, *engine_, op);
      for (const auto& [pointer, want] : e.metrics) compare("metric " + pointer, value_at(metrics, pointer), want);
    }
    if (e.disk_bytes) compare("disk_bytes", host_.table_file_bytes(), *e.disk_bytes);
    if (e.state) compare("state", r.state ? nlohmann::json(*r.state) : nlohmann::json(), *e.state);
    if (e.entries_behind) compare("entries_behind", r.entries_behind ? nlohmann::json(*r.entries_behind) : nlohmann::json(), *e.entries_behind);
    run_.trace().event(run_.sim().now_ns(), run_.sim().current().name, "script_step",
                         {{"step", step.index}, {"cmd", step.cmd}, {"code", r.code}, {"held", failed.empty()}});
    for (const std::string& f : failed) {
      finding(properties::Property::kScriptExpectations, "step " + std::to_string(step.index) + " (" + step.cmd + "): " + f);
    }
  }

  static nlohmann::json value_at(const nlohmann::json& j, const std::string& pointer) {
    const nlohmann::json::json_pointer p(pointer);
    return j.contains(p) ? j.at(p) : nlohmann::json();
  }

  static nlohmann::json metrics_of(NodeContext& host, engine::DocumentEngine& e, engine::OperationContext& op) {
    engine::Document status;
    host.node_call("script_metrics", [&] { return status = e.server_status(op), 0; }, {.handle_failure = false});
    nlohmann::json m = {{"serverStatus", std::move(status)}};
    for (const auto& [ns, coll] : e.catalog().collections()) m["collStats"][ns] = e.coll_stats(ns);
    return m;
  }

  const Script& script_;
  TtlSpec ttl_;  // setParameter changes it; the monitor reads it at each wake-up
  TtlMonitor monitor_{run_, host_, ttl_};
  std::vector<size_t> next_;                       // per client: the next step, across restarts
  std::vector<size_t> arrivals_;                   // per barrier: clients that reached it
  std::vector<size_t> barriers_passed_;            // per client: barriers reached
  sim::WaitQueue barrier_;                         // clients waiting at a barrier
  bool crash_requested_ = false;                   // the last crash was a crash step's
  bool unplanned_crash_ = false;                   // a crash the script did not ask for happened
  std::vector<std::pair<NetworkFault, size_t>> cut_;  // the partitions in force, with their steps
  size_t clients_done_ = 0;                         // clients past their last step
};

}  // namespace

std::unique_ptr<System> make_script_system(RunContext& run, NodeContext& host) { return std::make_unique<ScriptSystem>(run, host); }

}  // namespace wtsim::world
