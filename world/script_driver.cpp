#include "world/script_driver.h"

#include <algorithm>
#include <cassert>

#include "sim/virtual_clock.h"

namespace wtsim::world {
namespace {

// A value against an expectation: equal, or inside a {"min", "max"} range.
bool meets(const nlohmann::json& got, const nlohmann::json& want) {
  if (!want.is_object() || !(want.contains("min") || want.contains("max"))) return got == want;
  if (!got.is_number()) return false;
  const double v = got.get<double>();
  return (!want.contains("min") || v >= want["min"].get<double>()) && (!want.contains("max") || v <= want["max"].get<double>());
}

nlohmann::json value_at(const nlohmann::json& j, const std::string& pointer) {
  const nlohmann::json::json_pointer p(pointer);
  return j.contains(p) ? j.at(p) : nlohmann::json();
}

template <class T>
nlohmann::json or_null(const std::optional<T>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json();
}

NetworkFault partition_of(const nlohmann::json& a) {
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

}  // namespace

ScriptDriver::ScriptDriver(RunContext& run, const Script& script) : run_(run), script_(script) {
  next_.assign(script_.clients.size(), 0);
  barriers_passed_.assign(script_.clients.size(), 0);
}

int64_t ScriptDriver::now_ms() const { return sim::kVirtualEpochSec * 1000 + run_.sim().now_ns() / sim::kNsPerMs; }

void ScriptDriver::run_client(size_t c, const RunStep& run, const Complete& complete) {
  const std::vector<ScriptStep>& steps = script_.clients[c];
  while (next_[c] < steps.size()) {
    const ScriptStep& step = steps[next_[c]++];  // a crash during it moves on to the next
    ScriptReply r;
    for (uint64_t i = 0; i < step.repeat; ++i) {
      r = run(step, resolve_now(step.args, now_ms(), i));
      run_.note_progress();
    }
    if (!expectations_void()) complete(step, r);
    check(step, r);
  }
  // The script's partitions end with it (the final checks need the members joined).
  if (++clients_done_ == script_.clients.size()) heal();
}

bool ScriptDriver::common_step(const ScriptStep& step, const nlohmann::json& a) {
  sim::Simulator& sim = run_.sim();
  const std::string& cmd = step.cmd;
  if (cmd == "sleep") {
    sim.sleep_for(std::min<sim::Nanos>(a["ms"].get<int64_t>() * sim::kNsPerMs, run_.end_ns() - sim.now_ns()));
  } else if (cmd == "partition" || cmd == "pause") {
    NetworkFault shape;
    if (cmd == "partition") {
      shape = partition_of(a);
    } else {
      shape.kind = NetworkFault::Kind::kPause;
      shape.member = a["member"].get<size_t>();
    }
    run_.members()->start_script_fault(shape, step.index);
  } else if (cmd == "heal") {
    heal();
  } else if (cmd == "barrier") {
    barrier(step);
  } else {
    return false;
  }
  return true;
}

ScriptReply ScriptDriver::await_members(uint64_t target_ts, const nlohmann::json& a) {
  constexpr uint64_t kTimeoutMsDefault = 10'000;
  constexpr sim::Nanos kPollNs = 10 * sim::kNsPerMs;
  sim::Simulator& sim = run_.sim();
  MemberAccess* members = run_.members();
  const sim::Nanos deadline_ns = sim.now_ns() + static_cast<sim::Nanos>(a.value("timeout_ms", kTimeoutMsDefault)) * sim::kNsPerMs;
  const auto caught_up = [&] {
    for (size_t m = 0; members != nullptr && m < members->member_count(); ++m) {
      if (members->newest_ts(m) < target_ts) return false;
    }
    return true;
  };
  while (!caught_up()) {
    if (sim.now_ns() >= deadline_ns) return reply_code("WriteConcernFailed");
    sim.sleep_for(kPollNs);
  }
  return {};
}

void ScriptDriver::barrier(const ScriptStep& step) {
  sim::Simulator& sim = run_.sim();
  const size_t ordinal = barriers_passed_[step.client]++;
  if (arrivals_.size() <= ordinal) arrivals_.resize(ordinal + 1, 0);
  if (++arrivals_[ordinal] == script_.clients.size()) barrier_.notify_all(sim);
  while (arrivals_[ordinal] < script_.clients.size()) barrier_.wait(sim, "barrier");
}

void ScriptDriver::heal() {
  if (run_.members() != nullptr) run_.members()->end_script_faults();
}

void ScriptDriver::check(const ScriptStep& step, const ScriptReply& r) {
  sim::Simulator& sim = run_.sim();
  const StepExpectation& e = step.expect;
  nlohmann::json details = {{"step", step.index}, {"cmd", step.cmd}, {"code", r.code}};
  if (r.member) details["member"] = *r.member;
  if (step.args.value("w", nlohmann::json(1)) == "majority") details["w"] = "majority";
  if (r.last_op.ts > 0) details["entry"] = {{"ts", r.last_op.ts}, {"term", r.last_op.term}};  // with elections
  if (expectations_void() && !e.empty()) {
    details.update({{"held", true}, {"skipped", true}});
    checked(step, r, run_.trace().event(sim.now_ns(), sim.current().name, "script_step", std::move(details)));
    return;
  }
  std::vector<std::string> failed;
  const auto compare = [&](const std::string& what, const nlohmann::json& got, const nlohmann::json& want) {
    if (!meets(got, want)) failed.push_back(what + ": expected " + want.dump() + ", got " + got.dump());
  };
  if (e.code) compare("code", r.code, *e.code);
  if (e.n) compare("n", or_null(r.n), *e.n);
  if (e.modified) compare("modified", or_null(r.modified), *e.modified);
  if (e.docs) compare("docs", r.docs ? *r.docs : nlohmann::json(), resolve_now(*e.docs, now_ms(), step.repeat - 1));
  for (const auto& [pointer, want] : e.explain) compare("explain " + pointer, value_at(r.explain, pointer), want);
  for (const auto& [pointer, want] : e.reply) compare("reply " + pointer, value_at(r.reply, pointer), want);
  for (const auto& [pointer, want] : e.metrics) compare("metric " + pointer, value_at(r.metrics.value_or(nlohmann::json()), pointer), want);
  if (e.disk_bytes) compare("disk_bytes", or_null(r.disk_bytes), *e.disk_bytes);
  if (e.state) compare("state", or_null(r.state), *e.state);
  if (e.entries_behind) compare("entries_behind", or_null(r.entries_behind), *e.entries_behind);
  details["held"] = failed.empty();
  checked(step, r, run_.trace().event(sim.now_ns(), sim.current().name, "script_step", std::move(details)));
  for (const std::string& f : failed) report("step " + std::to_string(step.index) + " (" + step.cmd + "): " + f);
}

}  // namespace wtsim::world
