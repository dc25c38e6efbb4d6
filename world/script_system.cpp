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
#include "world/script_driver.h"
#include "world/ttl_monitor.h"

namespace wtsim::world {
namespace {

constexpr sim::Nanos kPollNs = 10 * sim::kNsPerMs;  // waitTtlPass's

class ScriptSystem final : public DocSystem, private ScriptDriver {
 public:
  ScriptSystem(RunContext& run, NodeContext& host) : DocSystem(run, host), ScriptDriver(run, *run.scenario().script), ttl_(run.scenario().ttl) {}

  void spawn_actors(const std::string& suffix) override {
    sim::Simulator& sim = DocSystem::run_.sim();
    // After a crash the script did not ask for (the fault plan's, a sweep's), a step may have
    // been cut short and unflushed writes lost: what later steps expect no longer follows from
    // the script, so their expectations are skipped (the model's properties still check all).
    if (host_.node().generation() > 1 && !crash_requested_) unplanned_crash_ = true;
    crash_requested_ = false;
    for (size_t c = 0; c < clients(); ++c) {
      if (has_steps(c)) sim.spawn("script-client-" + std::to_string(c) + suffix, host_.fiber_group(), [this, c] { client(c); });
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

  bool expectations_void() override { return unplanned_crash_; }
  void report(const std::string& detail) override { finding(properties::Property::kScriptExpectations, detail); }

  void client(size_t c) {
    const ClientScope scope(DocSystem::run_);
    engine::OperationContext op(host_.node().conn());
    run_client(
        c, [&](const ScriptStep& step, const nlohmann::json& a) { return run(op, step, a); },
        [&](const ScriptStep& step, ScriptReply& r) {
          if (!step.expect.metrics.empty() && !r.metrics) r.metrics = metrics_of(host_, *engine_, op);
          if (step.expect.disk_bytes) r.disk_bytes = host_.table_file_bytes();
        });
  }

  ScriptReply run(engine::OperationContext& op, const ScriptStep& step, const nlohmann::json& a) {
    if (step.cmd == "find" && a.value("member", host_.member()) != host_.member()) return find_on(a["member"].get<size_t>(), a);
    if (is_document_command(step.cmd)) return script_command(op, step.cmd, a);
    if (step.cmd == "awaitReplication") return await_replication(a);
    if (step.cmd == "replSetGetStatus") return member_status(a);
    if (step.cmd == "runTtlPass") return run_ttl_pass(op);
    if (!common_step(step, a)) node_step(op, step, a);
    return {};
  }

  // A find on another member of the replica set, over the network; the step's metrics
  // expectations are then that member's.
  // The read may be served after the step gave up on it (a paused member): it owns what it uses.
  ScriptReply find_on(size_t member, const nlohmann::json& a) {
    auto r = std::make_shared<ScriptReply>();
    const std::string why = DocSystem::run_.members()->read_on(member, [r, ns = a["ns"].get<std::string>(), req = find_request(a)](
                                                                           NodeContext& host, engine::DocumentEngine& e, engine::OperationContext& op) {
      if (const std::string refusal = host.read_refusal(); !refusal.empty()) return void(r->code = refusal);
      const engine::FindResult f = host.node_call("script_find", [&] { return e.find(op, ns, req); });
      r->code = code_text(f.status);
      r->n = f.docs.size();
      r->docs = engine::Document(f.docs);
      r->explain = f.explain;
      r->metrics = metrics_of(host, e, op);
    });
    if (!why.empty()) return reply_code("HostUnreachable");
    return *r;
  }

  // This node's commands: durability, crashes, the TTL monitor.
  void node_step(engine::OperationContext& op, const ScriptStep& step, const nlohmann::json& a) {
    sim::Simulator& sim = DocSystem::run_.sim();
    const std::string& cmd = step.cmd;
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
    assert(cmd == "waitTtlPass" && "every command has a runner (scenario.cpp checks elections' steps)");
    const sim::Nanos since_ns = sim.now_ns();  // a whole pass that started after this step did
    while (monitor_.last_pass_start_ns() < since_ns && sim.now_ns() < DocSystem::run_.end_ns()) sim.sleep_for(kPollNs);
  }

  // One TTL pass now (after the monitor's pass in progress, if any): n is what it deleted, and its
  // reply the Date the pass started at, from which it computed each index's bound.
  ScriptReply run_ttl_pass(engine::OperationContext& op) {
    const TtlMonitor::PassReport pass =
        monitor_.pass_now(*engine_, op, [this](properties::Property p, const std::string& detail) { finding(p, detail); });
    ScriptReply r = reply_code(code_text(pass.status));
    r.n = pass.deleted;
    r.reply = {{"ok", pass.status.ok() ? 1 : 0}, {"start", engine::make_date(pass.start_ms)}};
    return r;
  }

  // replSetGetStatus on `member`: its state, and how far it is behind this member, the primary.
  ScriptReply member_status(const nlohmann::json& a) {
    MemberAccess& members = *DocSystem::run_.members();
    const size_t member = a.value("member", host_.member());
    const uint64_t primary_ts = engine_->next_oplog_ts() - 1, member_ts = members.newest_ts(member);
    ScriptReply r;
    r.state = members.member_state(member);
    r.entries_behind = primary_ts > member_ts ? primary_ts - member_ts : 0;
    return r;
  }

  // Until every member holds this member's newest oplog entry (MongoDB's awaitReplication).
  ScriptReply await_replication(const nlohmann::json& a) {
    return await_members(engine_->next_oplog_ts() - 1, a);
  }

  TtlSpec ttl_;  // setParameter changes it; the monitor reads it at each wake-up
  TtlMonitor monitor_{DocSystem::run_, host_, ttl_};
  bool crash_requested_ = false;  // the last crash was a crash step's
  bool unplanned_crash_ = false;  // a crash the script did not ask for happened
};

}  // namespace

std::unique_ptr<System> make_script_system(RunContext& run, NodeContext& host) { return std::make_unique<ScriptSystem>(run, host); }

}  // namespace wtsim::world
