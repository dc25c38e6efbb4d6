#include "world/world.h"

#include <wiredtiger.h>

#include <algorithm>
#include <cassert>

#include "faults/fault_swarm.h"
#include "sim/planted.h"
#include "sim/wt_threads.h"
#include "engine/catalog.h"
#include "world/elector.h"

namespace wtsim::world {
namespace {

constexpr uint64_t kWaitsForNodeMax = 1'000'000;  // waits for the node's fibers to end
constexpr sim::Nanos kTimeLimitSlackNs = 3600 * sim::kNsPerSec;

nlohmann::json make_header(const Scenario& s, uint64_t seed, const faults::FaultPlan& plan) {
  int major = 0, minor = 0, patch = 0;
  wiredtiger_version(&major, &minor, &patch);
  return {{"tool", "wtsim"},
          {"tool_version", WTSIM_VERSION},
          {"wiredtiger_version", std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch)},
          {"seed", seed},
          {"scenario", s.source},
          {"fault_plan", faults::to_json(plan)},
          {"cost_model", s.cost.to_json()},
          // The wall-clock instant of virtual time 0: new Date() at t_us is this + t_us / 1000.
          {"virtual_epoch_ms", sim::kVirtualEpochSec * 1000}};
}

// An oplog as runs of consecutive ts with one term: [[first_ts, last_ts, term], ...].
nlohmann::json oplog_runs(const std::vector<OplogId>& oplog) {
  nlohmann::json runs = nlohmann::json::array();
  for (size_t i = 0; i < oplog.size();) {
    size_t j = i;
    while (j + 1 < oplog.size() && oplog[j + 1].ts == oplog[j].ts + 1 && oplog[j + 1].term == oplog[i].term) ++j;
    runs.push_back({oplog[i].ts, oplog[j].ts, oplog[i].term});
    i = j + 1;
  }
  return runs;
}

nlohmann::json with_planted_bug(nlohmann::json header) {
  if (const auto bug = planted::enabled()) header["planted_bug"] = planted::name_of(*bug);
  return header;
}

}  // namespace

void enable_planted_bug_of(const nlohmann::json& header, const std::string& origin) {
  if (!header.contains("planted_bug")) return;
  const std::string name = header["planted_bug"].is_string() ? header["planted_bug"].get<std::string>() : "?";
  [[maybe_unused]] const auto bug = planted::find(name);
#ifdef WTSIM_PLANTED_BUGS
  if (bug && planted::enabled() == bug) return;
  if (bug && !planted::enabled()) return planted::enable(*bug);
#endif
  throw std::invalid_argument(origin + ": /header/planted_bug: the run had planted bug \"" + name +
                              "\"; replay it with wtsim-planted (the self-test build)");
}

RunResult run_scenario(const Scenario& scenario, uint64_t seed, const faults::FaultPlan* plan_override,
                       ProgressFn progress, traces::EventSink* sink) {
  assert(scenario.knobs.empty() && !scenario.replica_set.swarm && "the caller draws the knobs, once (draw_knobs)");
  faults::FaultPlan plan;
  if (plan_override != nullptr) {
    plan = *plan_override;
  } else if (scenario.fault_plan) {
    plan = *scenario.fault_plan;
  } else {
    sim::Rng rng = sim::stream(seed, "fault-plan");
    plan = faults::draw_plan(scenario.swarm, rng, scenario.duration_ns);
  }
  World world(scenario, seed, std::move(plan), std::move(progress));
  if (sink != nullptr) world.trace().stream_to(sink);
  return world.run();
}

RunResult run_scenario_forking(const Scenario& scenario, uint64_t seed, const BeforeDiskOp& before_op) {
  assert(scenario.knobs.empty() && !scenario.replica_set.swarm && "the caller draws the knobs, once (draw_knobs)");
  assert(scenario.fault_plan && "a sweep's run gives its plan");
  traces::HashOnlySink hash_only;  // outlives the world
  World world(scenario, seed, *scenario.fault_plan);
  world.trace().stream_to(&hash_only);
  world.injector().set_before_mutating_op([&](uint64_t op) { before_op(world.injector(), op); });
  return world.run();
}

World::World(const Scenario& scenario, uint64_t seed, faults::FaultPlan plan, ProgressFn progress)
    : scenario_(scenario),
      seed_(seed),
      sim_(seed, scenario.duration_ns + scenario.liveness_ns + kTimeLimitSlackNs),
      buggify_(scenario.buggify, seed),
      end_ns_(scenario.duration_ns + scenario.liveness_ns),
      fault_end_ns_(scenario.duration_ns),
      progress_(std::move(progress)) {
  trace_ = std::make_unique<traces::Trace>(with_planted_bug(make_header(scenario, seed, plan)));
  verdict_ = std::make_unique<Verdict>(*trace_, sim_);
  const ReplicaSetSpec& rs = scenario.replica_set;
  if (rs.size() == 1 && !rs.elections) {
    hosts_.push_back(std::make_unique<NodeHost>(*this, std::move(plan), 0));
    return;
  }
  build_replica_set(seed, std::move(plan));
}

void World::build_replica_set(uint64_t seed, faults::FaultPlan first_plan) {
  const ReplicaSetSpec& rs = scenario_.replica_set;
  const size_t endpoints = rs.size() + (rs.elections ? 1 : 0);  // with elections, the clients' too
  network_ = std::make_unique<faults::Network>(seed, endpoints, rs.latency_min_ns, rs.latency_max_ns);
  rpc_ = std::make_unique<MemberRpc>(sim_, *network_);
  if (rs.elections) set_ = std::make_unique<ReplicaSet>(*this, *rpc_);
  // Without elections every member syncs from the first; with them, from the primary it knows
  // or, without one, from a member ahead of it (world/elector.h).
  auto engine_of = [this](size_t m) -> engine::DocumentEngine* { return hosts_[m]->serving_engine(); };
  auto source_of = [this](size_t m) -> std::optional<size_t> {
    if (!set_) return 0;
    return final_source_ ? final_source_ : set_->elector(m).sync_source();
  };
  SyncSource::OnPosition on_position = nullptr;
  SyncSource::Authoritative authoritative = nullptr;
  if (set_) {
    on_position = [this](size_t source, size_t m, uint64_t ts, uint64_t term) { set_->note_position(source, m, {ts, term}); };
    authoritative = [this](size_t source) { return set_->elector(source).writable(); };
  }
  sync_source_ = std::make_unique<SyncSource>(*rpc_, engine_of, source_of, on_position, authoritative);
  for (size_t m = 0; m < rs.size(); ++m) {
    SyncSource* source = m > 0 || set_ ? sync_source_.get() : nullptr;
    hosts_.push_back(std::make_unique<NodeHost>(*this, m == 0 ? std::move(first_plan) : rs.members[m].fault_plan, m, source, set_.get()));
    NodeHost* h = hosts_.back().get();
    rpc_->add_member({h, [h] { return h->serving_engine() != nullptr; }, set_ ? "member " + std::to_string(m) : "the primary"});
  }
}

World::~World() = default;

RunResult World::run() {
  (void)sim::wt_threads::take_log_switch_wedges();  // an earlier run's in this process are not ours
  sim_.spawn("director", "world", [this] { director(); });
  for (auto& host : hosts_) {
    NodeHost* h = host.get();
    sim_.spawn("fault-actor" + h->member_suffix(), "world", [h] { h->fault_actor(); });
    if (scenario_.node.metrics_interval_ns > 0) sim_.spawn("metrics" + h->member_suffix(), "world", [h] { h->metrics_sampler(); });
  }
  if (!scenario_.replica_set.network_faults.empty()) sim_.spawn("network-faults", "world", [this] { network_fault_actor(); });
  const sim::RunOutcome outcome = sim_.run();
  if (outcome.kind == sim::RunOutcome::Kind::kDeadlock || outcome.kind == sim::RunOutcome::Kind::kTimeLimit) {
    std::string detail = std::string(sim::to_string(outcome.kind)) + "; blocked:";
    for (const auto& b : outcome.blocked) detail += " " + b.name + " (" + b.waits_on + ")";
    violation(properties::Property::kLiveness, detail);
  }
  for (const std::string& e : outcome.errors) violation(properties::Property::kNoInternalError, e);
  for (auto& host : hosts_) host->shut_down();
  assert(sim_.live_daemons() == 0 && "every WiredTiger thread ends with its connection");
  assert(sim::wt_threads::counters().mutexes_held == 0 && "no WiredTiger mutex outlives the run");

  stats_.virtual_ns = sim_.now_ns();
  for (auto& host : hosts_) host->finish_stats(stats_);
  trace_->set_verdict(verdict_->to_json(sim::to_string(outcome.kind), buggify_.report(), stats_));
  RunResult result;
  result.ok = verdict_->ok();
  result.violations = verdict_->violations();
  result.unsurvivable = verdict_->unsurvivable();
  result.stats = stats_;
  result.trace = std::move(trace_);
  return result;
}

void World::director() {
  for (auto& host : hosts_) host->start();  // the primary first
  if (set_) {
    if (scenario_.script) {
      script_clients_ = std::make_unique<ScriptClients>(*this, *set_);
      script_clients_->spawn();
    } else {
      replica_clients_ = std::make_unique<ReplicaClients>(*this, *set_);
      replica_clients_->spawn();
    }
  }
  // Whole virtual seconds, whether or not anyone watches: the schedule must not depend on it.
  while (sim_.now_ns() < fault_end_ns_) {
    sim_.sleep_until(std::min(sim_.now_ns() + sim::kNsPerSec, fault_end_ns_));
    if (progress_) progress_(sim_.now_ns(), end_ns_);
  }
  if (end_ns_ > fault_end_ns_) liveness_phase();
  if (!wait_for_node_fibers()) return;
  final_checks();
}

void World::final_checks() {
  std::optional<size_t> primary = 0;
  if (set_) {
    primary = final_source_ = set_->final_primary();
    // Without a liveness phase an election may be under way as the run stops: nothing to judge.
    const bool judged = scenario_.liveness_ns > 0 || !scenario_.replica_set.elections;
    if (!primary && judged) violation(properties::Property::kLiveness, "no member is a writable primary at the end of the run");
    if (!primary && !judged) trace_->event(sim_.now_ns(), "checker", "no_final_primary", {{"why", "no liveness phase"}});
  }
  // The primary last: the others catch up with it first.
  for (size_t m = hosts_.size(); m-- > 0;) {
    if (m != primary) hosts_[m]->final_checks();
  }
  if (!primary) return;
  hosts_[*primary]->final_checks();
  if (hosts_.size() > 1) check_convergence(*primary);
  if (set_) {
    const std::vector<OplogId>& oplog = hosts_[*primary]->final_oplog();
    const uint64_t e = trace_->event(sim_.now_ns(), "checker", "final_oplog", {{"member", *primary}, {"runs", oplog_runs(oplog)}});
    const uint64_t local_rolled_back = set_->check_against_final_oplog(oplog);
    trace_->event(sim_.now_ns(), "checker", "reads_checked", {{"final_oplog", e}, {"local_reads_rolled_back", local_rolled_back}});
  }
}

namespace {

// A state's documents: its catalog rows left out (each member names its own tables).
models::KvState documents_of(const models::KvState& state) {
  models::KvState out;
  const std::string catalog_prefix = std::string(engine::Catalog::kUri) + "|";
  for (const auto& [key, value] : state) {
    if (key.rfind(catalog_prefix, 0) != 0) out.emplace(key, value);
  }
  return out;
}

// The first document where `got` differs from `want`.
std::string first_difference(const models::KvState& want, const models::KvState& got) {
  for (const auto& [key, value] : want) {
    if (auto it = got.find(key); it == got.end() || it->second != value) return key + (it == got.end() ? " is missing" : " differs");
  }
  return "it holds documents the primary does not";
}

// A caught-up member's oplog is the primary's over the ts both still hold (each trims its own
// oldest entries): the same entries, each with the same term, and none above the primary's
// newest. "" if so, else the first difference.
std::string oplog_difference(const std::vector<OplogId>& primary, const std::vector<OplogId>& member) {
  const uint64_t from_ts = std::max(primary.empty() ? 0 : primary.front().ts, member.empty() ? 0 : member.front().ts);
  auto p = std::find_if(primary.begin(), primary.end(), [&](const OplogId& id) { return id.ts >= from_ts; });
  auto m = std::find_if(member.begin(), member.end(), [&](const OplogId& id) { return id.ts >= from_ts; });
  for (; p != primary.end() && m != member.end(); ++p, ++m) {
    if (*p == *m) continue;
    const OplogId& first = p->ts <= m->ts ? *p : *m;
    return "differs at ts " + std::to_string(first.ts) + ": the primary's entry has term " +
           (p->ts == first.ts ? std::to_string(p->term) : "none") + ", the member's " + (m->ts == first.ts ? std::to_string(m->term) : "none");
  }
  if (m != member.end()) return "has an entry the primary does not (ts " + std::to_string(m->ts) + ", term " + std::to_string(m->term) + ")";
  if (p != primary.end()) return "lacks the primary's entry at ts " + std::to_string(p->ts);
  return "";
}

}  // namespace

std::string World::read_on(size_t member, Read read) {
  assert(rpc_ && member < hosts_.size());
  constexpr sim::Nanos kReadTimeoutNs = 2 * sim::kNsPerSec;
  NodeHost* host = hosts_[member].get();
  return rpc_->call(0, member, "script-read", kReadTimeoutNs, [host, read = std::move(read)](bool* done) {
    engine::DocumentEngine* engine = host->serving_engine();
    if (engine == nullptr) return;
    const auto op = host->open_operation("script_read_session");
    read(*host, *engine, *op);
    *done = true;
  }, /*drop_on_crash=*/true);
}

uint64_t World::newest_ts(size_t member) {
  engine::DocumentEngine* engine = hosts_.at(member)->serving_engine();
  return engine == nullptr ? 0 : engine->next_oplog_ts() - 1;
}

void World::network_fault_actor() {
  struct Action {
    sim::Nanos at_ns;
    size_t index;
    bool start;
  };
  const std::vector<NetworkFault>& faults = scenario_.replica_set.network_faults;
  std::vector<Action> timeline;
  for (size_t i = 0; i < faults.size(); ++i) {
    timeline.push_back({faults[i].at_ns, i, true});
    timeline.push_back({faults[i].until_ns, i, false});
  }
  std::stable_sort(timeline.begin(), timeline.end(), [](const Action& a, const Action& b) { return a.at_ns < b.at_ns; });
  std::vector<bool> started(faults.size(), false);
  for (const Action& a : timeline) {
    // Nothing starts once the fault phase is over, and every window ends by then.
    if (a.start && a.at_ns >= fault_end_ns_) continue;
    sim_.sleep_until(std::min(a.at_ns, fault_end_ns_));
    if (a.start && sim_.now_ns() >= fault_end_ns_) continue;  // the phase ended early
    if (a.start == started[a.index]) continue;  // an end without its start
    started[a.index] = a.start;
    network_fault(a.index, a.start);
  }
}

void World::network_fault(size_t index, bool start) {
  apply_network(scenario_.replica_set.network_faults[index], start, {{"index", index}});
}

// The liveness phase has no faults: a script's partitions and pauses end as it begins
// (end_script_faults), and a step that would start one later does nothing.
void World::start_script_fault(const NetworkFault& shape, size_t step) {
  if (sim_.now_ns() >= fault_end_ns_) return;
  if (!script_faults_.emplace(step, shape).second) return;  // in force already (a repeat)
  apply_network(shape, true, {{"step", step}});
}

void World::end_script_faults() {
  for (const auto& [step, shape] : script_faults_) apply_network(shape, false, {{"step", step}});
  script_faults_.clear();
}

std::string World::member_state(size_t member) {
  const NodeHost& host = *hosts_.at(member);
  // A paused member answers no heartbeat: MongoDB reports it as DOWN (state 8).
  if (hosts_[member]->serving_engine() == nullptr || hosts_[member]->paused()) return "DOWN";
  if (!host.convergence_exempt().empty() || host.recovering()) return "RECOVERING";
  if (set_) return set_->elector(member).role() == Elector::Role::kSecondary ? "SECONDARY" : "PRIMARY";
  return member == 0 ? "PRIMARY" : "SECONDARY";  // without elections the first is the primary
}

void World::apply_network(const NetworkFault& f, bool start, nlohmann::json source) {
  if (f.kind == NetworkFault::Kind::kPause) return apply_pause(f.member, start, std::move(source));
  if (f.kind == NetworkFault::Kind::kStepDown) return apply_step_down(f, start, std::move(source));
  nlohmann::json links = nlohmann::json::array();
  for (const auto& [from, to] : f.links(hosts_.size())) {
    if (start) {
      network_->cut(from, to);
    } else {
      network_->uncut(from, to);
    }
    links.push_back({from, to});
  }
  if (!start) reached(properties::Marker::kNetworkHealed);
  source.update({{"kind", to_string(f.kind)}, {"phase", start ? "start" : "end"}, {"links", links}});
  trace_->event(sim_.now_ns(), "faults", "network", std::move(source));
}

void World::apply_pause(size_t member, bool start, nlohmann::json source) {
  hosts_.at(member)->pause(start);
  if (set_ && start && set_->primary_now(member)) paused_primaries_[member] = set_->newest_term();
  const auto paused = paused_primaries_.find(member);
  if (!start && paused != paused_primaries_.end()) {
    if (set_->newest_term() > paused->second) reached(properties::Marker::kPausedPrimaryReplaced);
    paused_primaries_.erase(paused);
  }
  source.update({{"member", member}, {"phase", start ? "start" : "end"}});
  trace_->event(sim_.now_ns(), "faults", "pause", std::move(source));
}

// replSetStepDown on the primary of now (or the member named), run in a fiber of its node. The
// window's end only ends its stepDownSecs, which the member's elector reads from the clock.
void World::apply_step_down(const NetworkFault& f, bool start, nlohmann::json source) {
  assert(set_ && "step_down needs elections (replica_set_spec.cpp)");
  std::optional<size_t> member = f.member != NetworkFault::kThePrimary ? std::optional<size_t>(f.member) : std::nullopt;
  if (start && !member) {
    for (size_t m = 0; m < hosts_.size() && !member; ++m) {
      if (set_->elector(m).writable()) member = m;
    }
  }
  if (member) source["member"] = *member;
  source.update({{"phase", start ? "start" : "end"}});
  trace_->event(sim_.now_ns(), "faults", "step_down", std::move(source));
  if (!start || !member) return;
  NodeHost& host = *hosts_[*member];
  if (!host.up() || host.restarting()) return;
  constexpr sim::Nanos kCatchUpNs = 10 * sim::kNsPerSec;  // MongoDB's secondaryCatchUpPeriodSecs
  const sim::Nanos catch_up_deadline_ns = std::min(sim_.now_ns() + kCatchUpNs, fault_end_ns_);
  const sim::Nanos no_stand_until_ns = std::min(f.until_ns, fault_end_ns_);
  Elector& elector = set_->elector(*member);
  sim_.spawn("step-down" + host.generation_suffix(), host.fiber_group(),
             [&elector, catch_up_deadline_ns, no_stand_until_ns] { elector.step_down_command(catch_up_deadline_ns, no_stand_until_ns); });
}

void World::check_convergence(size_t p) {
  const models::KvState* primary = hosts_[p]->final_state();
  if (primary == nullptr) return;  // the primary is dead: its own checks said so
  const models::KvState want = documents_of(*primary);
  for (size_t m = 0; m < hosts_.size(); ++m) {
    if (m == p) continue;
    const NodeHost& host = *hosts_[m];
    const std::string exempt = host.convergence_exempt();
    if (!exempt.empty() || host.final_state() == nullptr) {
      trace_->event(sim_.now_ns(), "checker", "convergence_skipped", {{"member", m}, {"why", exempt.empty() ? "no final state" : exempt}});
      continue;
    }
    const models::KvState got = documents_of(*host.final_state());
    nlohmann::json details = {{"member", m}, {"documents", got.size()}, {"state_digest", History::state_digest(got)},
                              {"primary_documents", want.size()}, {"primary_digest", History::state_digest(want)},
                              {"oplog_entries", host.final_oplog().size()}};
    if (set_) details["primary"] = p;  // with elections, the final primary
    const uint64_t check = trace_->event(sim_.now_ns(), "checker", "convergence_check", std::move(details));
    if (got != want) {
      violation(properties::Property::kReplicasConverge, "member " + std::to_string(m) + " holds " + std::to_string(got.size()) +
                                                             " documents, the primary " + std::to_string(want.size()) + ": " +
                                                             first_difference(want, got), check);
    }
    if (const std::string why = oplog_difference(hosts_[p]->final_oplog(), host.final_oplog()); !why.empty()) {
      violation(properties::Property::kReplicasConverge, "member " + std::to_string(m) + "'s oplog " + why, check);
    }
  }
}

bool World::nodes_busy() const {
  for (const auto& host : hosts_) {
    if (host->restarting() || sim_.live_fibers(host->fiber_group()) > 0) return true;
  }
  return false;
}

bool World::wait_for_node_fibers() {
  for (uint64_t waits = 0; nodes_busy(); ++waits) {
    if (waits == kWaitsForNodeMax) {  // the node never stops: report who is stuck where
      std::string detail = "the node's fibers did not end within " + std::to_string(kWaitsForNodeMax / 1000) + " virtual s of the end; live:";
      for (const auto& b : sim_.live_fiber_report()) detail += " " + b.name + " (" + b.waits_on + ")";
      violation(properties::Property::kLiveness, detail);
      return false;
    }
    sim_.sleep_for(sim::kNsPerMs);
  }
  return true;
}

void World::end_faults_at(sim::Nanos fault_end_ns) {
  if (ended_early_ || fault_end_ns >= fault_end_ns_) return;
  ended_early_ = true;
  end_ns_ -= fault_end_ns_ - fault_end_ns;  // the liveness phase keeps its length
  fault_end_ns_ = fault_end_ns;
  assert(end_ns_ >= fault_end_ns_ && fault_end_ns_ >= sim_.now_ns());
  const size_t woken = sim_.cut_sleeps(end_ns_);
  trace_->event(sim_.now_ns(), "world", "run_shortened",
                {{"fault_end_ms", fault_end_ns_ / sim::kNsPerMs}, {"end_ms", end_ns_ / sim::kNsPerMs}, {"sleeps_cut", woken}});
}

}  // namespace wtsim::world
