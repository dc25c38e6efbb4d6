#include "runs/shrink.h"

#include <algorithm>
#include <cassert>
#include <chrono>
#include <initializer_list>
#include <map>
#include <optional>
#include <stdexcept>
#include <string_view>
#include <utility>

#include "runs/forked_batch.h"
#include "sim/planted.h"
#include "traces/client_operations.h"
#include "world/scenario.h"

namespace wtsim::runs {
namespace {

using Clock = std::chrono::steady_clock;
constexpr uint64_t kDurationSlackDivisor = 32;  // a duration bisected to within ~3 %
constexpr double kCheapRunS = 0.5;               // a run this fast may try the simplest counts first
constexpr uint64_t kThinkUsMax = 10'000'000;     // slow_clients() stops at 10 s between operations

// A violation's cause, as far as a detail tells it: its subject, the text before the first ':'
// without numbers ("key k000006: expected ..." -> "key k"; "recovery: test.docs: ..." ->
// "recovery"; "8 acknowledged commits missing" -> " acknowledged commits missing"). A shrink keeps
// it, so it does not drift to another failure of the same property (a lost key becoming a
// reopen failure).
// A liveness detail names its phase first ("not converged 8000 ms after the faults stopped: no
// member is a writable primary"): its cause is what follows too.
std::string cause_of(const std::string& detail) {
  constexpr size_t kCauseChars = 60;
  constexpr std::string_view kPhase = "not converged";
  const size_t colons = detail.rfind(kPhase, 0) == 0 ? 2 : 1;
  std::string out;
  size_t colons_seen = 0;
  for (char c : detail) {
    if (c == ':' && ++colons_seen == colons) break;
    if (out.size() == kCauseChars * colons) break;
    if (c < '0' || c > '9') out.push_back(c);
  }
  return out;
}

bool violates(const world::RunResult& r, const std::string& property, const std::string& cause) {
  return std::any_of(r.violations.begin(), r.violations.end(), [&](const properties::Violation& v) {
    return v.name() == property && (cause.empty() || cause_of(v.detail) == cause);
  });
}

std::string first_cause(const world::RunResult& r, const std::string& property) {
  for (const auto& v : r.violations) {
    if (v.name() == property) return cause_of(v.detail);
  }
  return "";
}

uint64_t client_operations_in(const traces::Trace& t) {
  traces::ClientOperationCounter counter;
  for (const auto& e : t.events()) counter.add(e);
  return counter.count();
}

using Candidate = ShrinkCandidate;

// The scenario records the plan it runs explicitly (no swarm), so the minimal trace's header
// describes the reduced run by itself.
Candidate with_plan(const Candidate& c, faults::FaultPlan plan) {
  Candidate next{c.scenario, std::move(plan)};
  next.scenario.erase("swarm");
  next.scenario["fault_plan"] = faults::to_json(next.plan);
  return next;
}

// One entry of a replica set's own faults: the network's (`/replica_set/network_faults/i`) or a
// member's plan (`/replica_set/members/m/fault_plan/i`).
struct ReplicaSetFault {
  nlohmann::json::json_pointer array;
  size_t index = 0;
  nlohmann::json::json_pointer at;  // array / index
};

std::vector<ReplicaSetFault> replica_set_faults(const nlohmann::json& scenario) {
  std::vector<ReplicaSetFault> out;
  const auto add = [&](const nlohmann::json::json_pointer& array) {
    if (!scenario.contains(array) || !scenario[array].is_array()) return;
    for (size_t i = 0; i < scenario[array].size(); ++i) {
      if (scenario[array][i].is_object()) out.push_back({array, i, array / i});
    }
  };
  const nlohmann::json::json_pointer rs("/replica_set");
  add(rs / "network_faults");
  if (scenario.contains(rs / "members") && scenario[rs / "members"].is_array()) {
    for (size_t m = 0; m < scenario[rs / "members"].size(); ++m) add(rs / "members" / m / "fault_plan");
  }
  return out;
}

// `c` keeping only the entries of `all` listed in `keep` (indexes into `all`, ascending).
Candidate with_replica_set_faults(const Candidate& c, const std::vector<ReplicaSetFault>& all, const std::vector<size_t>& keep) {
  Candidate out = with_plan(c, c.plan);
  std::map<std::string, nlohmann::json> kept;  // each array's kept entries, by its pointer
  for (const ReplicaSetFault& f : all) kept.emplace(f.array.to_string(), nlohmann::json::array());
  for (size_t i : keep) kept[all[i].array.to_string()].push_back(c.scenario[all[i].at]);
  for (auto& [array, entries] : kept) out.scenario[nlohmann::json::json_pointer(array)] = std::move(entries);
  return out;
}

// What a candidate's run, in a forked child, tells the shrinker.
struct Probe {
  bool fails = false;             // the property failed, with the original cause
  bool holds_without_bug = true;  // a guarded shrink's: the run with the planted bug off did not fail it
  uint64_t operations = 0, events = 0;
  double run_s = 0;

  ReportWords words() const {
    return {uint64_t{fails} | uint64_t{holds_without_bug} << 1, operations, events, static_cast<uint64_t>(run_s * 1e6)};
  }
  // A child that crashed or was killed reports a run that does not fail.
  static Probe from(const ChildReport& r) {
    Probe p;
    if (!r.completed) return p;
    p.fails = (r.words[0] & 1) != 0;
    p.holds_without_bug = (r.words[0] & 2) != 0;
    p.operations = r.words[1];
    p.events = r.words[2];
    p.run_s = static_cast<double>(r.words[3]) / 1e6;
    return p;
  }
};

class Shrinker {
 public:
  Shrinker(const nlohmann::json& header, std::string property, const ShrinkLimits& limits,
           const ShrinkProgressFn& progress)
      : header_(header), property_(std::move(property)), limits_(limits), progress_(progress),
        seed_(header.at("seed").get<uint64_t>()), start_(Clock::now()) {}

  ShrinkResult run() {
    Candidate original{header_.at("scenario"),
                       faults::plan_from_json(header_.at("fault_plan"), "/header/fault_plan")};
    result_.property = property_;
    world::RunResult first = execute(original);  // a bad scenario throws here
    result_.reproduced = violates(first, property_, "");
    cause_ = first_cause(first, property_);
    result_.before = size_of(first, original);
    accept_original(original, std::move(first));
    if (result_.reproduced) run_passes();
    // A planted bug's shrink that stepped onto a setting failing without the bug goes back to the
    // last one that did not, and goes on with every candidate checked with the bug off.
    if (result_.reproduced && planted::enabled() && !settle_on_a_failure_of_the_bug()) {
      guarded_ = true;  // every setting accepted from here on held without the bug
      run_passes();
    }
    assert(runs_ <= std::max<uint64_t>(limits_.max_runs, 1) && "a candidate runs only within the budget");
    result_.budget_exhausted = exhausted();
    if (!best_is_current_) {
      adopt(run_uncounted(current_));  // the children's runs are gone: the kept one is run again, for its trace
      assert(violates(best_, property_, cause_) && "the kept setting fails again: runs are deterministic");
    }
    result_.after = size_of(best_, current_);
    result_.runs = runs_ + settle_runs_;
    result_.wall_s = elapsed_s();
    result_.minimal = std::move(best_);
    return std::move(result_);
  }

 private:
  double elapsed_s() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }
  // The coarse passes first: each run after them is shorter. Rounds until none makes progress.
  void run_passes() {
    while (!exhausted() && (lower_loads() | lower_liveness() | scale_time() | halve_workload() | slow_clients() | drop_faults() |
                            simplify_faults() | shorten_duration() | crowd_clients())) {
    }
  }

  // A candidate starts only if a run as long as the current one still fits in the time budget,
  // with room for the setting kept last to run once more for its trace (and once with the bug
  // off, for a planted bug's shrink).
  bool exhausted() const {
    const double reserved_s = best_run_s_ * (planted::enabled() ? 3 : 2);
    return runs_ >= limits_.max_runs || elapsed_s() + reserved_s > limits_.time_budget_s;
  }

  ShrinkSize size_of(const world::RunResult& r, const Candidate& c) const {
    return {r.trace->event_count(), client_operations_in(*r.trace), c.plan.faults.size(),
            c.scenario.at("duration_ms").get<uint64_t>()};
  }

  world::RunResult execute(const Candidate& c) {
    const world::Scenario s = world::recorded_scenario(c.scenario, "shrink candidate");
    ++runs_;
    if (progress_) progress_({pass_, runs_, 0, 0});
    const Clock::time_point run_start = Clock::now();
    world::RunResult r = world::run_scenario(s, seed_, &c.plan);
    last_run_s_ = std::chrono::duration<double>(Clock::now() - run_start).count();
    return r;
  }

  // A search's probes a round: one per job.
  size_t probes() const { return static_cast<size_t>(std::max(limits_.jobs, 1)); }

  // bisect_down over `make(v)`'s candidates, accepting each that still fails (the last is the smallest).
  uint64_t bisect_accepting(uint64_t current, uint64_t floor, const std::function<Candidate(uint64_t)>& make, bool no_larger,
                            uint64_t slack_divisor = 0) {
    return bisect_down_batched(
        current, floor,
        [&](const std::vector<uint64_t>& values) {
          std::vector<Candidate> cs;
          for (uint64_t v : values) cs.push_back(make(v));
          return first_accepted(cs, no_larger);
        },
        slack_divisor, probes());
  }

  // The original, run here: its result is the best so far.
  void accept_original(Candidate c, world::RunResult r) {
    assert(r.trace != nullptr && r.trace->event_count() > 0);
    accepted_.push_back(c);
    current_ = std::move(c);
    adopt(std::move(r));
    best_run_s_ = last_run_s_;
  }

  // `r`, a run of current_, is the best so far.
  void adopt(world::RunResult r) {
    best_ = std::move(r);
    best_ops_ = client_operations_in(*best_.trace);  // counted once, compared with every candidate
    best_events_ = best_.trace->event_count();
    best_is_current_ = true;
  }

  void accept(const Candidate& c, const Probe& p) {
    assert(p.fails && (!guarded_ || p.holds_without_bug));
    accepted_.push_back(c);
    current_ = c;
    best_ops_ = p.operations;
    best_events_ = p.events;
    best_run_s_ = p.run_s;
    best_is_current_ = false;
  }

  // Fewer client operations, or as many and no more events.
  bool no_larger_than_best(const Probe& p) const {
    return p.operations < best_ops_ || (p.operations == best_ops_ && p.events <= best_events_);
  }

  bool acceptable(const Probe& p, bool no_larger) const {
    return p.fails && (!no_larger || no_larger_than_best(p)) && (!guarded_ || p.holds_without_bug);
  }

  // Runs `c`; if the property still fails (and, with `no_larger`, the run is no larger), `c`
  // becomes the current setting. A candidate the scenario reader rejects counts as passing.
  bool try_candidate(const Candidate& c, bool no_larger = false) { return first_accepted({c}, no_larger).has_value(); }

  // Runs `cs` (as many at once as the jobs allow) and accepts the first, in order, that
  // try_candidate would; the ones after it are dropped. Its index.
  std::optional<size_t> first_accepted(const std::vector<Candidate>& cs, bool no_larger) {
    std::optional<size_t> hit;
    probe_in_order(cs, [&](size_t i, const Probe& p) {
      if (!acceptable(p, no_larger)) return true;
      accept(cs[i], p);
      hit = i;
      return false;
    });
    return hit;
  }

  // `cs` a chain, each to be tried once the one before it is accepted (one count halved again
  // and again): accepted in order until one is not. How many were.
  size_t accepted_chain(const std::vector<Candidate>& cs, bool no_larger) {
    size_t n = 0;
    probe_in_order(cs, [&](size_t i, const Probe& p) {
      if (!acceptable(p, no_larger)) return false;
      accept(cs[i], p);
      return ++n, true;
    });
    return n;
  }

  // The first of `cs`, in order, whose run still fails (none accepted); its probe in `*probe`.
  std::optional<size_t> first_failing(const std::vector<Candidate>& cs, Probe* probe) {
    std::optional<size_t> hit;
    probe_in_order(cs, [&](size_t i, const Probe& p) {
      if (!p.fails) return true;
      *probe = p;
      hit = i;
      return false;
    });
    return hit;
  }

  // Runs `cs` in forked children, limits_.jobs at once, within the budget, and hands their probes
  // to `take` in order until it says stop.
  void probe_in_order(const std::vector<Candidate>& cs, const std::function<bool(size_t, const Probe&)>& take) {
    ForkedBatch b;
    b.count = cs.size();
    b.parallel = std::max(limits_.jobs, 1);
    b.job = [&](size_t i) { return probe_here(cs[i]).words(); };
    b.may_start = [&] {
      if (exhausted()) return false;
      ++runs_;
      if (progress_) progress_({pass_, runs_, result_.before.events, best_events_});
      return true;
    };
    b.take = [&](size_t i, const ChildReport& r) { return take(i, Probe::from(r)); };
    run_forked_batch(b);
  }

  // In a child: one run of `c` and what the parent needs of it.
  Probe probe_here(const Candidate& c) {
    Probe p;
    try {
      const Clock::time_point run_start = Clock::now();
      const world::RunResult r = world::run_scenario(world::recorded_scenario(c.scenario, "shrink candidate"), seed_, &c.plan);
      p.run_s = std::chrono::duration<double>(Clock::now() - run_start).count();
      p.fails = violates(r, property_, cause_);
      p.operations = client_operations_in(*r.trace);
      p.events = r.trace->event_count();
      if (p.fails && guarded_) p.holds_without_bug = holds_without_bug(c);
    } catch (const std::invalid_argument&) {
      p.fails = false;  // the scenario reader rejects it
    }
    return p;
  }

  // A planted bug's shrink ends on a setting that fails the property only with the bug on: one
  // that fails it with the bug off too (a liveness phase too short for a restarted member to
  // rejoin, a backup copied too slowly to finish) shows the setting, not the bug. Checked once the
  // passes end, on the newest accepted setting first (one run: a wrong step is rare), else by
  // bisection over the accepted ones (every setting after a wrong step builds on it); the
  // original, the self-test's catch, held with the bug off already. Whether the newest held.
  bool settle_on_a_failure_of_the_bug() {
    assert(!accepted_.empty());
    const size_t newest = accepted_.size() - 1;
    if (newest == 0 || holds_without_bug(accepted_[newest])) return true;
    size_t good = 0, bad = newest;  // accepted_[good] holds without the bug, accepted_[bad] does not
    while (bad - good > 1) {
      const size_t mid = good + (bad - good) / 2;
      (holds_without_bug(accepted_[mid]) ? good : bad) = mid;
    }
    current_ = accepted_[good];
    accepted_.resize(good + 1);
    adopt(run_uncounted(current_));
    assert(violates(best_, property_, cause_) && "an accepted setting fails again: runs are deterministic");
    return false;
  }

  // `c` run with the planted bug off does not fail the property, whatever the cause.
  bool holds_without_bug(const Candidate& c) {
    planted::Suspension off;
    try {
      return !violates(run_uncounted(c), property_, "");
    } catch (const std::invalid_argument&) {
      return false;
    }
  }

  // One run of `c` outside the budget's count of runs (the settle's: settle_runs_).
  world::RunResult run_uncounted(const Candidate& c) {
    ++settle_runs_;
    return world::run_scenario(world::recorded_scenario(c.scenario, "shrink candidate"), seed_, &c.plan);
  }

  // ddmin over the plan's entries (after trying none at all), then over a replica set's own
  // (the network's faults and each member's plan).
  bool drop_faults() {
    pass_ = "fault plan entries";
    return drop_plan_faults() | drop_replica_set_faults();
  }

  bool drop_plan_faults() {
    const Candidate base = current_;
    const auto& all = base.plan.faults;
    if (all.empty()) return false;
    if (try_candidate(with_plan(base, {}))) return true;
    if (all.size() == 1) return false;
    const std::vector<size_t> keep = ddmin_batched(all.size(), [&](const std::vector<std::vector<size_t>>& subsets) {
      std::vector<Candidate> cs;
      for (const std::vector<size_t>& subset : subsets) {
        faults::FaultPlan p;
        for (size_t i : subset) p.faults.push_back(all[i]);
        cs.push_back(with_plan(base, std::move(p)));
      }
      return first_accepted(cs, /*no_larger=*/false);
    });
    assert(keep.size() <= all.size());
    return keep.size() < all.size();
  }

  bool drop_replica_set_faults() {
    const Candidate base = current_;
    const std::vector<ReplicaSetFault> all = replica_set_faults(base.scenario);
    if (all.empty()) return false;
    if (try_candidate(with_replica_set_faults(base, all, {}), /*no_larger=*/true)) return true;
    if (all.size() == 1) return false;
    const std::vector<size_t> keep = ddmin_batched(all.size(), [&](const std::vector<std::vector<size_t>>& subsets) {
      std::vector<Candidate> cs;
      for (const std::vector<size_t>& subset : subsets) cs.push_back(with_replica_set_faults(base, all, subset));
      return first_accepted(cs, /*no_larger=*/true);
    });
    assert(keep.size() <= all.size());
    return keep.size() < all.size();
  }

  bool simplify_faults() {
    pass_ = "fault triggers";
    bool changed = false;
    for (size_t i = 0; i < current_.plan.faults.size(); ++i) changed |= simplify_fault(i);
    for (const ReplicaSetFault& f : replica_set_faults(current_.scenario)) changed |= simplify_replica_set_fault(f.at);
    return changed;
  }

  // A replica set's entry: its window earlier (as wide), then narrower; a count trigger smaller.
  bool simplify_replica_set_fault(const nlohmann::json::json_pointer& at) {
    const auto edited = [&](const char* field, uint64_t width_ms) {
      return [this, at, field, width_ms](uint64_t value) {
        Candidate c = with_plan(current_, current_.plan);
        nlohmann::json& e = c.scenario[at];
        e[field] = value;
        if (width_ms > 0) e["until_ms"] = e["at_ms"].get<uint64_t>() + width_ms;
        return c;
      };
    };
    const nlohmann::json f = current_.scenario[at];
    bool changed = false;
    // A window only with both ends (a count-triggered entry's until_ms has no start to keep it from).
    const bool window = f.contains("at_ms") && f.contains("until_ms") && f["until_ms"].get<uint64_t>() > f["at_ms"].get<uint64_t>();
    const uint64_t width_ms = window ? f["until_ms"].get<uint64_t>() - f["at_ms"].get<uint64_t>() : 0;
    if (f.contains("at_ms")) {
      const uint64_t at_ms = f["at_ms"].get<uint64_t>();
      changed |= bisect_accepting(at_ms, 0, edited("at_ms", width_ms), true, kDurationSlackDivisor) < at_ms;
    }
    if (width_ms > 1) {
      const uint64_t from_ms = current_.scenario[at]["at_ms"].get<uint64_t>();
      const auto until = edited("until_ms", 0);
      changed |= bisect_accepting(width_ms, 1, [&](uint64_t w) { return until(from_ms + w); }, true, kDurationSlackDivisor) < width_ms;
    }
    if (f.contains("at_disk_op")) {
      const uint64_t n = f["at_disk_op"].get<uint64_t>();
      changed |= bisect_accepting(n, 1, edited("at_disk_op", 0), true, kDurationSlackDivisor) < n;
    }
    return changed;
  }

  // The liveness phase (clients keep working in it) shortened, none at all first: most failures
  // need none, and a replica set's phase is as long as its faults' part. Then halved, while the
  // scenario reader accepts it (with elections, two election timeouts at least).
  bool lower_liveness() {
    pass_ = "liveness phase";
    static const nlohmann::json::json_pointer kLiveness("/liveness_ms");
    const auto with_value = [&](uint64_t ms) {
      Candidate c = with_plan(current_, current_.plan);
      c.scenario[kLiveness] = ms;
      return c;
    };
    const uint64_t ms = current_.scenario.value(kLiveness, uint64_t{0});
    if (ms == 0) return false;
    if (try_candidate(with_value(0), /*no_larger=*/true)) return true;
    std::vector<Candidate> halved;
    for (uint64_t v = ms / 2; v > 0; v /= 2) halved.push_back(with_value(v));
    return accepted_chain(halved, /*no_larger=*/true) > 0;
  }

  // One entry: an earlier time trigger (a window moves along), a smaller count trigger, plainer modes.
  bool simplify_fault(size_t i) {
    const faults::Fault f = current_.plan.faults[i];
    auto edited = [&](auto edit) {
      faults::FaultPlan p = current_.plan;
      edit(p.faults[i]);
      return with_plan(current_, std::move(p));
    };
    bool changed = false;
    if (f.at_ns) {
      const uint64_t at_ms = static_cast<uint64_t>(*f.at_ns / sim::kNsPerMs);
      const sim::Nanos width_ns = f.until_ns > *f.at_ns ? f.until_ns - *f.at_ns : 0;
      changed |= bisect_accepting(at_ms, 0, [&](uint64_t ms) {
                   return edited([&](faults::Fault& g) {
                     g.at_ns = static_cast<sim::Nanos>(ms) * sim::kNsPerMs;
                     if (width_ns > 0) g.until_ns = *g.at_ns + width_ns;
                   });
                 }, false) < at_ms;
    }
    if (f.at_disk_op) {
      changed |= bisect_accepting(*f.at_disk_op, 1, [&](uint64_t n) {
                   return edited([&](faults::Fault& g) { g.at_disk_op = n; });
                 }, false) < *f.at_disk_op;
    }
    if (f.kind == faults::FaultKind::kCrash && f.crash_mode != faults::CrashMode::kDropUnsynced) {
      changed |= try_candidate(edited([](faults::Fault& g) { g.crash_mode = faults::CrashMode::kDropUnsynced; }));
    }
    if (f.sticky) changed |= try_candidate(edited([](faults::Fault& g) { g.sticky = false; }));
    return changed;
  }

  bool shorten_duration() {
    pass_ = "duration";
    const uint64_t now_ms = current_.scenario.at("duration_ms").get<uint64_t>();
    return bisect_accepting(
               now_ms, 1,
               [&](uint64_t ms) {
                 Candidate c = with_plan(current_, current_.plan);
                 c.scenario["duration_ms"] = ms;
                 return c;
               },
               false, kDurationSlackDivisor) < now_ms;
  }

  // Longer pauses between a client's operations (think time, a toucher's or a query loop's
  // period): fewer operations in the same virtual time, for failures that need time to pass
  // (documents to age, a backup's copy window) more than they need operations.
  bool slow_clients() {
    pass_ = "client pauses";
    struct Pause {
      const char* pointer;
      uint64_t max;
    };
    static const Pause kPauses[] = {{"/workload/think_us", kThinkUsMax},
                                    {"/ttl/touch_every_ms", kThinkUsMax / 1000},
                                    {"/ttl/query_every_ms", kThinkUsMax / 1000}};
    bool changed = false;
    for (const Pause& p : kPauses) changed |= lengthen(nlohmann::json::json_pointer(p.pointer), p.max);
    return changed;
  }

  // Clients with a shorter think time, in a run then cut as short as still fails: a collision
  // (two writers in one document's transaction, a DDL beside a write) comes within fewer client
  // operations when their work overlaps more. Kept only if the cut run does not grow.
  bool crowd_clients() {
    pass_ = "crowded clients";
    static const nlohmann::json::json_pointer kThinkUs("/workload/think_us");
    const uint64_t think_us = current_.scenario.value(kThinkUs, uint64_t{0});
    for (uint64_t divisor : {64, 8}) {
      if (think_us < divisor) continue;
      Candidate crowded = with_plan(current_, current_.plan);
      crowded.scenario[kThinkUs] = think_us / divisor;
      if (cut_and_keep(crowded)) return true;
    }
    return false;
  }

  // Runs `c`, then bisects its duration down while it fails; keeps the shortest failing run if it
  // is no larger than the current one.
  bool cut_and_keep(const Candidate& c) {
    Probe shortest;
    if (!first_failing({c}, &shortest)) return false;
    Candidate kept = c;
    bisect_down_batched(
        c.scenario.at("duration_ms").get<uint64_t>(), 1,
        [&](const std::vector<uint64_t>& values) {
          std::vector<Candidate> cs(values.size(), c);
          for (size_t i = 0; i < values.size(); ++i) cs[i].scenario["duration_ms"] = values[i];
          Probe p;
          const std::optional<size_t> hit = first_failing(cs, &p);
          if (hit) shortest = p, kept = cs[*hit];  // bisection only moves down on a failure: the last is the shortest
          return hit;
        },
        kDurationSlackDivisor, probes());
    if (!acceptable(shortest, /*no_larger=*/true)) return false;
    accept(kept, shortest);
    return true;
  }

  // Doubles the pause at `at` while the property fails and the run does not grow.
  bool lengthen(const nlohmann::json::json_pointer& at, uint64_t max) {
    if (!current_.scenario.contains(at) || !current_.scenario[at].is_number_unsigned()) return false;
    std::vector<Candidate> doubled;
    for (uint64_t v = current_.scenario[at].get<uint64_t>(); v > 0 && v < max; v *= 2) {
      doubled.push_back(with_plan(current_, current_.plan));
      doubled.back().scenario[at] = v * 2;
    }
    return accepted_chain(doubled, /*no_larger=*/true) > 0;
  }

  // Every time of the run at once, divided: the duration, the node's checkpoint interval, the TTL
  // index's expiry and its monitor's sleep, the backup's start (its copy as much faster), the fault
  // plan's times. A failure that needs documents to age or a backup to run then keeps its shape
  // in a fraction of the time, with a fraction of the client operations. Divided while the
  // property fails and the run does not grow (a shorter checkpoint interval can add events).
  // The boldest scale first: its run is the cheapest.
  bool scale_time() {
    pass_ = "time scale";
    return divide_while_failing(time_divided, {64, 16, 4, 2});
  }

  // Applies `divide` with the first of `divisors` (boldest first: the cheapest run) whose candidate
  // still fails and is no larger, again and again until none does.
  bool divide_while_failing(std::optional<Candidate> (*divide)(const Candidate&, uint64_t),
                            std::initializer_list<uint64_t> divisors) {
    bool changed = false;
    for (bool progress = true; progress; changed |= progress) {
      std::vector<Candidate> cs;
      for (uint64_t divisor : divisors) {
        if (std::optional<Candidate> c = divide(current_, divisor)) cs.push_back(std::move(*c));
      }
      progress = first_accepted(cs, /*no_larger=*/true).has_value();
    }
    return changed;
  }

  // The documents a run loads before it starts (the backup's four collections, a bulk load's
  // total), all divided at once (by 64, else 8 or 2: the boldest first, the cheapest run), and the
  // backup's copy rate with them, so that the copy still spans the same virtual time and a crash
  // planned inside it stays inside. They cost the most wall time of a run; its shape needs few.
  bool lower_loads() {
    pass_ = "loads";
    return divide_while_failing(loads_divided, {64, 8, 2});
  }

  // `c` with its loads divided by `divisor` (a load stays at least 1) and its copy rate too (in KB/s,
  // at least 1); none if no load would change.
  static std::optional<Candidate> loads_divided(const Candidate& c, uint64_t divisor) {
    static const char* const kLoads[] = {"/backup/hot_docs", "/backup/warm_docs", "/backup/cold_docs", "/backup/append_docs",
                                         "/workload/total_documents"};
    Candidate out = with_plan(c, c.plan);
    uint64_t before = 0, after = 0;
    for (const char* p : kLoads) {
      const nlohmann::json::json_pointer at(p);
      if (!out.scenario.contains(at) || !out.scenario[at].is_number_unsigned()) continue;
      const uint64_t n = out.scenario[at].get<uint64_t>();
      before += n;
      out.scenario[at] = n == 0 ? 0 : std::max<uint64_t>(n / divisor, 1);
      after += out.scenario[at].get<uint64_t>();
    }
    if (after == before) return std::nullopt;
    if (out.scenario.contains("backup") && out.scenario["backup"].is_object()) {
      nlohmann::json& b = out.scenario["backup"];
      const uint64_t kb_per_s = b.contains("copy_mb_per_s") ? b["copy_mb_per_s"].get<uint64_t>() * 1000 : b.value("copy_kb_per_s", uint64_t{0});
      b.erase("copy_mb_per_s");
      if (kb_per_s > 0) b["copy_kb_per_s"] = std::max<uint64_t>(kb_per_s / divisor, 1);
    }
    return out;
  }

  // Every positive integer under "workload", "backup" and "ttl" (document and table counts, copy
  // sizes, start times), halved while the property fails and the run does not grow (not every
  // integer is a count: a shorter think time means more operations).
  bool halve_workload() {
    pass_ = "workload counts";
    bool changed = false;
    for (const char* section : {"workload", "backup", "ttl"}) changed |= halve_section(section);
    return changed;
  }

  bool halve_section(const char* section) {
    if (!current_.scenario.contains(section) || !current_.scenario[section].is_object()) return false;
    std::vector<nlohmann::json::json_pointer> counts;
    for (const auto& [key, value] : current_.scenario[section].items()) {
      if (value.is_number_unsigned() && value.get<uint64_t>() > 0) counts.emplace_back("/" + std::string(section) + "/" + key);
    }
    if (best_run_s_ < kCheapRunS) {
      bool changed = false;
      for (const auto& at : counts) changed |= lower_from(at, current_.scenario[at].get<uint64_t>());
      return changed;
    }
    // Slow runs: each count halved once, all in one batch (most do not halve); the first that
    // does goes on down, then the batch resumes after it.
    bool changed = false;
    for (size_t i = 0; i < counts.size(); ++i) {
      std::vector<Candidate> halved;
      for (size_t k = i; k < counts.size(); ++k) halved.push_back(with_count(counts[k], current_.scenario[counts[k]].get<uint64_t>() / 2));
      const std::optional<size_t> hit = first_accepted(halved, /*no_larger=*/true);
      if (!hit) break;
      i += *hit;
      lower_from(counts[i], current_.scenario[counts[i]].get<uint64_t>());
      changed = true;
    }
    return changed;
  }

  Candidate with_count(const nlohmann::json::json_pointer& at, uint64_t v) const {
    Candidate c = with_plan(current_, current_.plan);
    c.scenario[at] = v;
    return c;
  }

  // One count from `start`: the simplest values (0, then 1: no inserts, one key, one writer),
  // else halved while the property fails and the run does not grow.
  bool lower_from(const nlohmann::json::json_pointer& at, uint64_t start) {
    std::vector<Candidate> simplest;
    for (uint64_t v : {uint64_t{0}, uint64_t{1}}) {
      if (v < start / 2) simplest.push_back(with_count(at, v));
    }
    if (first_accepted(simplest, /*no_larger=*/true)) return true;
    std::vector<Candidate> halved;
    for (uint64_t v = start; v > 0; v /= 2) halved.push_back(with_count(at, v / 2));
    return accepted_chain(halved, /*no_larger=*/true) > 0;
  }

  const nlohmann::json& header_;
  const std::string property_;
  const ShrinkLimits limits_;
  const ShrinkProgressFn& progress_;
  const uint64_t seed_;
  const Clock::time_point start_;
  const char* pass_ = "reproducing";
  std::string cause_;  // the original violation's cause (cause_of), kept by every accepted candidate
  size_t runs_ = 0;
  size_t settle_runs_ = 0;  // runs with the planted bug off (not counted against max_runs)
  bool guarded_ = false;    // every candidate is also run with the planted bug off
  std::vector<Candidate> accepted_;  // every setting accepted, the original first
  uint64_t best_ops_ = 0, best_events_ = 0;  // the current best run's client operations and events
  bool best_is_current_ = false;  // best_ is a run of current_ (not of an older setting: a child ran current_)
  double last_run_s_ = 0, best_run_s_ = 0;  // wall seconds of the last run and of the current best's
  Candidate current_;
  world::RunResult best_;
  ShrinkResult result_;
};

}  // namespace

namespace {

// Each unsigned number at `times` in `object` divided by `divisor`, to at least `floor` (a zero
// stays: none of it).
void divide_times(nlohmann::json* object, std::initializer_list<const char*> times, uint64_t divisor, uint64_t floor) {
  for (const char* p : times) {
    const nlohmann::json::json_pointer at(p);
    if (!object->contains(at) || !(*object)[at].is_number_unsigned()) continue;
    const uint64_t v = (*object)[at].get<uint64_t>();
    if (v > 0) (*object)[at] = std::max(v / divisor, floor);
  }
}

// A replica set's own times: each member's fault plan and the network's faults (their at_ms and
// until_ms; a count trigger stays), the heartbeats and the election timeout (kept as valid as the
// scenario reader needs: a heartbeat of 100 ms or more, a timeout of two heartbeats or more), the
// write concern's timeout and the network's latency.
void divide_replica_set_times(nlohmann::json* scenario, uint64_t divisor) {
  constexpr uint64_t kHeartbeatMsMin = 100;
  const auto divide_entries = [divisor](nlohmann::json* entries) {
    if (!entries->is_array()) return;
    for (nlohmann::json& e : *entries) {
      for (const char* field : {"at_ms", "until_ms"}) {
        if (e.is_object() && e.contains(field) && e[field].is_number_unsigned()) e[field] = e[field].get<uint64_t>() / divisor;
      }
    }
  };
  if (!scenario->contains("replica_set") || !(*scenario)["replica_set"].is_object()) return;
  nlohmann::json& rs = (*scenario)["replica_set"];
  if (rs.contains("network_faults")) divide_entries(&rs["network_faults"]);
  if (rs.contains("members") && rs["members"].is_array()) {
    for (nlohmann::json& m : rs["members"]) {
      if (m.is_object() && m.contains("fault_plan")) divide_entries(&m["fault_plan"]);
    }
  }
  divide_times(&rs, {"/wtimeout_ms"}, divisor, 1);
  divide_times(&rs, {"/latency_min_ms", "/latency_max_ms"}, divisor, 0);
  if (rs.contains("elections") && rs["elections"].is_object()) {
    nlohmann::json& e = rs["elections"];
    divide_times(&e, {"/heartbeat_interval_ms"}, divisor, kHeartbeatMsMin);
    divide_times(&e, {"/election_timeout_ms"}, divisor, 2 * e.value("heartbeat_interval_ms", kHeartbeatMsMin));
    // A liveness phase stays two election timeouts long at least, as the reader requires.
    const uint64_t liveness_ms = scenario->value("liveness_ms", uint64_t{0});
    if (liveness_ms > 0 && e.contains("election_timeout_ms")) {
      (*scenario)["liveness_ms"] = std::max(liveness_ms, 2 * e["election_timeout_ms"].get<uint64_t>());
    }
  }
}

}  // namespace

std::optional<ShrinkCandidate> time_divided(const ShrinkCandidate& c, uint64_t divisor) {
  static const std::initializer_list<const char*> kTimes = {
      "/duration_ms",        "/liveness_ms",          "/node/checkpoint_interval_ms", "/ttl/expire_after_s",
      "/ttl/monitor_sleep_s", "/ttl/manual_every_s",   "/ttl/index_at_ms",             "/workload/stop_inserts_at_ms",
      "/backup/start_ms"};
  static const char* const kRates[] = {"/backup/copy_mb_per_s", "/backup/copy_kb_per_s"};
  assert(divisor >= 2);
  if (c.scenario.at("duration_ms").get<uint64_t>() < divisor) return std::nullopt;
  faults::FaultPlan plan = c.plan;
  // Whole milliseconds, as the plan's JSON form (the trace header) records them.
  const auto divided = [divisor](sim::Nanos t_ns) {
    return t_ns / sim::kNsPerMs / static_cast<sim::Nanos>(divisor) * sim::kNsPerMs;
  };
  for (faults::Fault& f : plan.faults) {
    if (f.at_ns) f.at_ns = divided(*f.at_ns);
    f.until_ns = divided(f.until_ns);
  }
  ShrinkCandidate out = with_plan(c, std::move(plan));
  divide_times(&out.scenario, kTimes, divisor, 1);
  for (const char* p : kRates) {
    const nlohmann::json::json_pointer at(p);
    if (out.scenario.contains(at) && out.scenario[at].is_number_unsigned()) out.scenario[at] = out.scenario[at].get<uint64_t>() * divisor;
  }
  divide_replica_set_times(&out.scenario, divisor);
  return out;
}

namespace {

// The first of `items`, in order, on which `fails` holds; the later ones are not tried.
template <typename T, typename Fails>
std::optional<size_t> first_in_order(const std::vector<T>& items, const Fails& fails) {
  for (size_t i = 0; i < items.size(); ++i) {
    if (fails(items[i])) return i;
  }
  return std::nullopt;
}

}  // namespace

std::vector<size_t> ddmin(size_t items, const std::function<bool(const std::vector<size_t>&)>& fails) {
  return ddmin_batched(items, [&](const std::vector<std::vector<size_t>>& subsets) { return first_in_order(subsets, fails); });
}

std::vector<size_t> ddmin_batched(size_t items, const FirstFailing<std::vector<size_t>>& first_failing) {
  std::vector<size_t> set(items);
  for (size_t i = 0; i < items; ++i) set[i] = i;
  size_t chunks = 2;
  while (set.size() >= 2) {
    const size_t chunk = (set.size() + chunks - 1) / chunks;
    // Each chunk alone, then each complement.
    std::vector<std::vector<size_t>> parts, rests;
    for (size_t start = 0; start < set.size(); start += chunk) {
      const auto from = set.begin() + static_cast<std::ptrdiff_t>(start);
      const auto to = set.begin() + static_cast<std::ptrdiff_t>(std::min(set.size(), start + chunk));
      if (to - from < static_cast<std::ptrdiff_t>(set.size())) parts.emplace_back(from, to);
      std::vector<size_t> rest(set.begin(), from);
      rest.insert(rest.end(), to, set.end());
      rests.push_back(std::move(rest));
    }
    if (const std::optional<size_t> i = first_failing(parts)) {
      set = parts[*i];
      chunks = 2;
      continue;
    }
    if (chunks > 2) {
      if (const std::optional<size_t> i = first_failing(rests)) {
        set = rests[*i];
        chunks = std::max<size_t>(chunks - 1, 2);
        continue;
      }
    }
    if (chunks >= set.size()) break;
    chunks = std::min(set.size(), chunks * 2);
  }
  return set;
}

uint64_t bisect_down(uint64_t current, uint64_t floor, const std::function<bool(uint64_t)>& fails,
                     uint64_t slack_divisor) {
  return bisect_down_batched(
      current, floor, [&](const std::vector<uint64_t>& values) { return first_in_order(values, fails); }, slack_divisor, 1);
}

uint64_t bisect_down_batched(uint64_t current, uint64_t floor, const FirstFailing<uint64_t>& first_failing,
                             uint64_t slack_divisor, size_t probes) {
  assert(probes >= 1);
  if (current <= floor) return current;
  uint64_t lo = floor, hi = current;  // fails(hi) holds; fails(lo) does not, once lo_known
  bool lo_known = false;
  const auto open = [&](uint64_t below) { return hi - below > 1 && (slack_divisor == 0 || hi - below > hi / slack_divisor); };
  while (!lo_known || open(lo)) {
    // What bisect_down would probe next, each one if the one before it does not fail (most
    // candidates do not): the floor first, then the middle of what is left above the last.
    std::vector<uint64_t> values;
    if (!lo_known) values.push_back(lo);
    for (uint64_t below = lo; values.size() < probes && open(below);) {
      below += (hi - below) / 2;
      values.push_back(below);
    }
    const std::optional<size_t> i = first_failing(values);
    if (i && !lo_known && *i == 0) return floor;
    if (i) {
      hi = values[*i];
      if (*i > 0) lo = values[*i - 1];
    } else {
      lo = values.back();
    }
    lo_known = true;
  }
  return hi;
}

ShrinkResult shrink(const nlohmann::json& header, const std::string& property, const ShrinkLimits& limits,
                    const ShrinkProgressFn& progress) {
  world::enable_planted_bug_of(header, "the trace");  // a self-test catch shrinks with its bug on
  return Shrinker(header, property, limits, progress).run();
}

}  // namespace wtsim::runs
