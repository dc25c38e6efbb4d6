#include "world/script_clients.h"

#include <cassert>
#include <memory>

#include "world/elector.h"
#include "world/server_selection.h"

namespace wtsim::world {

void ScriptClients::spawn() {
  for (size_t c = 0; c < clients(); ++c) {
    if (has_steps(c)) run_.sim().spawn("script-client-" + std::to_string(c), "clients", [this, c] { client(c); });
  }
}

void ScriptClients::client(size_t c) {
  const ClientScope scope(run_);
  run_client(
      c, [this](const ScriptStep& step, const nlohmann::json& a) { return run(step, a); }, [](const ScriptStep&, ScriptReply&) {});
}

ScriptReply ScriptClients::run(const ScriptStep& step, const nlohmann::json& a) {
  if (step.cmd == "find" && a.contains("member")) {
    const size_t member = a["member"].get<size_t>();
    return send(member, {step.cmd, a, /*any_member=*/true, false, 0, !step.expect.metrics.empty()});
  }
  if (is_document_command(step.cmd)) return on_primary(step, a);
  if (step.cmd == "stepDown") return step_down(a);
  if (step.cmd == "replSetGetStatus") return member_status(a);
  if (step.cmd == "awaitReplication") {
    const std::optional<size_t> p = primary();
    return p ? await_members(run_.members()->newest_ts(*p), a) : reply_code("HostUnreachable");
  }
  [[maybe_unused]] const bool done = common_step(step, a);
  assert(done && "scenario.cpp refuses node commands with elections");
  return {};
}

ScriptReply ScriptClients::on_primary(const ScriptStep& step, const nlohmann::json& a) {
  ScriptRequest request{step.cmd, a, false, a.value("w", nlohmann::json(1)) == "majority", 0, !step.expect.metrics.empty()};
  request.wtimeout_ns = static_cast<sim::Nanos>(a.value("wtimeout_ms", uint64_t{0})) * sim::kNsPerMs;
  if (request.majority && request.wtimeout_ns == 0) request.wtimeout_ns = kRequestTimeoutNs / 2;  // no wtimeout: the shell's own wait
  ScriptReply reply = reply_code("HostUnreachable");
  for (int tries = 0; tries < 2; ++tries) {  // as a driver retries once
    const std::optional<size_t> member = primary();
    if (!member) return reply;  // the run ended without one
    reply = send(*member, request);
    if (reply.code != "NotMaster" && reply.code != "HostUnreachable") return reply;
    primary_.reset();
  }
  return reply;
}

ScriptReply ScriptClients::send(size_t member, const ScriptRequest& request) {
  auto reply = std::make_shared<ScriptReply>();
  ReplicaSet& set = set_;
  const std::string why = set_.rpc().call(endpoint(), member, "script-op", kRequestTimeoutNs, [&set, member, request, reply](bool* done) {
    *reply = set.server(member).serve_script(request);
    *done = true;
  }, /*drop_on_crash=*/true);
  if (!why.empty()) return reply_code("HostUnreachable");
  return *reply;
}

ScriptReply ScriptClients::step_down(const nlohmann::json& a) {
  const std::optional<size_t> member = primary();
  if (!member) return reply_code("HostUnreachable");
  sim::Simulator& sim = run_.sim();
  const sim::Nanos catch_up_ns = static_cast<sim::Nanos>(a.value("catch_up_secs", kCatchUpSecsDefault)) * sim::kNsPerSec;
  const sim::Nanos catch_up_deadline_ns = sim.now_ns() + catch_up_ns;
  const sim::Nanos no_stand_until_ns = sim.now_ns() + static_cast<sim::Nanos>(a.value("secs", kStepDownSecsDefault)) * sim::kNsPerSec;
  auto code = std::make_shared<std::string>();
  ReplicaSet& set = set_;
  const std::string why = set_.rpc().call(endpoint(), *member, "step-down", catch_up_ns + kRequestTimeoutNs,
                                          [&set, m = *member, catch_up_deadline_ns, no_stand_until_ns, code](bool* done) {
                                            *code = set.server(m).serve_step_down(catch_up_deadline_ns, no_stand_until_ns);
                                            *done = true;
                                          }, /*drop_on_crash=*/true);
  primary_.reset();  // replSetStepDown closes the primary's connections
  ScriptReply reply = reply_code(why.empty() ? *code : "HostUnreachable");
  reply.member = *member;
  return reply;
}

ScriptReply ScriptClients::member_status(const nlohmann::json& a) {
  MemberAccess& members = *run_.members();
  const std::optional<size_t> p = primary_now();
  const std::optional<size_t> member = a.contains("member") ? std::optional<size_t>(a["member"].get<size_t>()) : p;
  if (!member) return reply_code("NotMaster");  // asked of the primary, and there is none
  ScriptReply r;
  r.state = members.member_state(*member);
  if (p) {
    const uint64_t primary_ts = members.newest_ts(*p), member_ts = members.newest_ts(*member);
    r.entries_behind = primary_ts > member_ts ? primary_ts - member_ts : 0;
  }
  return r;
}

std::optional<size_t> ScriptClients::primary() {
  if (!primary_) primary_ = select_primary(run_, set_, endpoint());
  return primary_;
}

std::optional<size_t> ScriptClients::primary_now() {
  std::optional<size_t> best;
  for (size_t m = 0; m < set_.members(); ++m) {
    if (set_.elector(m).writable() && (!best || set_.elector(m).term() > set_.elector(*best).term())) best = m;
  }
  return best;
}

// A crash of any member (the script asks for none with elections) makes what later steps expect
// no longer follow from the script.
bool ScriptClients::expectations_void() { return run_.stats().crashes > 0; }

void ScriptClients::report(const std::string& detail) { run_.violation(properties::Property::kScriptExpectations, detail); }

void ScriptClients::checked(const ScriptStep& step, const ScriptReply& reply, uint64_t event) {
  const bool majority = step.args.value("w", nlohmann::json(1)) == "majority";
  if (is_write_command(step.cmd) && majority && reply.code == "OK" && reply.last_op.ts > 0) set_.note_majority_ack(reply.last_op, event);
}

}  // namespace wtsim::world
