#include "runs/shrink.h"

#include <algorithm>
#include <cassert>
#include <chrono>
#include <stdexcept>

#include "world/scenario.h"

namespace wtsim::runs {
namespace {

using Clock = std::chrono::steady_clock;
constexpr uint64_t kDurationSlackDivisor = 32;  // a duration bisected to within ~3 %
constexpr uint64_t kThinkUsMax = 10'000'000;     // slow_clients() stops at 10 s between operations

// A violation's cause, as far as a detail tells it: its subject, the text before the first ':'
// without numbers ("key k000006: expected ..." -> "key k"; "recovery: test.docs: ..." ->
// "recovery"; "8 acknowledged commits missing" -> " acknowledged commits missing"). A shrink keeps
// it, so it does not drift to another failure of the same property (a lost key becoming a
// reopen failure).
std::string cause_of(const std::string& detail) {
  constexpr size_t kCauseChars = 60;
  std::string out;
  for (char c : detail) {
    if (c == ':' || out.size() == kCauseChars) break;
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

uint64_t commits_in(const traces::Trace& t) {
  uint64_t n = 0;
  for (const auto& e : t.events()) n += e["kind"] == "commit" ? 1 : 0;
  return n;
}

// One setting to run: the scenario as JSON (what the trace header will record) and the plan.
struct Candidate {
  nlohmann::json scenario;
  faults::FaultPlan plan;
};

// The scenario records the plan it runs explicitly (no swarm), so the minimal trace's header
// describes the reduced run by itself.
Candidate with_plan(const Candidate& c, faults::FaultPlan plan) {
  Candidate next{c.scenario, std::move(plan)};
  next.scenario.erase("swarm");
  next.scenario["fault_plan"] = faults::to_json(next.plan);
  return next;
}

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
    accept(original, std::move(first));
    if (result_.reproduced) {
      while (!exhausted() && (drop_faults() | simplify_faults() | shorten_duration() | halve_workload() | slow_clients())) {
      }
    }
    assert(runs_ <= std::max<uint64_t>(limits_.max_runs, 1) && "a candidate runs only within the budget");
    result_.budget_exhausted = exhausted();
    result_.after = size_of(best_, current_);
    result_.runs = runs_;
    result_.wall_s = elapsed_s();
    result_.minimal = std::move(best_);
    return std::move(result_);
  }

 private:
  double elapsed_s() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }
  bool exhausted() const { return runs_ >= limits_.max_runs || elapsed_s() >= limits_.time_budget_s; }

  ShrinkSize size_of(const world::RunResult& r, const Candidate& c) const {
    return {r.trace->event_count(), commits_in(*r.trace), c.plan.faults.size(),
            c.scenario.at("duration_ms").get<uint64_t>()};
  }

  world::RunResult execute(const Candidate& c) {
    const world::Scenario s = world::recorded_scenario(c.scenario, "shrink candidate");
    ++runs_;
    world::RunResult r = world::run_scenario(s, seed_, &c.plan);
    if (progress_) progress_({pass_, runs_, result_.before.events, best_.trace ? best_.trace->event_count() : 0});
    return r;
  }

  void accept(Candidate c, world::RunResult r) {
    assert(r.trace != nullptr && r.trace->event_count() > 0);
    assert(runs_ == 1 || violates(r, property_, cause_));  // only the original may hold
    current_ = std::move(c);
    best_ = std::move(r);
  }

  // Runs `c`; if the property still fails (and, with `no_more_events`, the run is no larger), `c`
  // becomes the current setting. A candidate the scenario reader rejects counts as passing.
  bool try_candidate(const Candidate& c, bool no_more_events = false) {
    if (exhausted()) return false;
    world::RunResult r;
    try {
      r = execute(c);
    } catch (const std::invalid_argument&) {
      return false;
    }
    if (!violates(r, property_, cause_)) return false;
    if (no_more_events && r.trace->event_count() > best_.trace->event_count()) return false;
    accept(c, std::move(r));
    return true;
  }

  // ddmin over the plan's entries (after trying none at all).
  bool drop_faults() {
    pass_ = "fault plan entries";
    const Candidate base = current_;
    const auto& all = base.plan.faults;
    if (all.empty()) return false;
    if (try_candidate(with_plan(base, {}))) return true;
    if (all.size() == 1) return false;
    const std::vector<size_t> keep = ddmin(all.size(), [&](const std::vector<size_t>& subset) {
      faults::FaultPlan p;
      for (size_t i : subset) p.faults.push_back(all[i]);
      return try_candidate(with_plan(base, std::move(p)));
    });
    assert(keep.size() <= all.size());
    return keep.size() < all.size();
  }

  bool simplify_faults() {
    pass_ = "fault triggers";
    bool changed = false;
    for (size_t i = 0; i < current_.plan.faults.size(); ++i) changed |= simplify_fault(i);
    return changed;
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
      changed |= bisect_down(at_ms, 0, [&](uint64_t ms) {
                   return try_candidate(edited([&](faults::Fault& g) {
                     g.at_ns = static_cast<sim::Nanos>(ms) * sim::kNsPerMs;
                     if (width_ns > 0) g.until_ns = *g.at_ns + width_ns;
                   }));
                 }) < at_ms;
    }
    if (f.at_disk_op) {
      changed |= bisect_down(*f.at_disk_op, 1, [&](uint64_t n) {
                   return try_candidate(edited([&](faults::Fault& g) { g.at_disk_op = n; }));
                 }) < *f.at_disk_op;
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
    return bisect_down(
               now_ms, 1,
               [&](uint64_t ms) {
                 Candidate c = with_plan(current_, current_.plan);
                 c.scenario["duration_ms"] = ms;
                 return try_candidate(c);
               },
               kDurationSlackDivisor) < now_ms;
  }

  // A longer think time: fewer operations in the same virtual time, for failures that need time
  // to pass (documents to age, a backup's copy window) more than they need operations.
  bool slow_clients() {
    pass_ = "think time";
    static const nlohmann::json::json_pointer kThinkUs("/workload/think_us");
    const uint64_t start_us = current_.scenario.value(kThinkUs, uint64_t{0});  // 0: the workload has none
    bool changed = false;
    for (uint64_t v = start_us; v > 0 && v < kThinkUsMax; v *= 2) {
      Candidate c = with_plan(current_, current_.plan);
      c.scenario["workload"]["think_us"] = v * 2;
      if (!try_candidate(c, /*no_more_events=*/true)) break;
      changed = true;
    }
    return changed;
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
    std::vector<std::string> keys;
    for (const auto& [key, value] : current_.scenario[section].items()) {
      if (value.is_number_unsigned() && value.get<uint64_t>() > 0) keys.push_back(key);
    }
    bool changed = false;
    for (const std::string& key : keys) {
      for (uint64_t v = current_.scenario[section][key].get<uint64_t>(); v > 0; v /= 2) {
        Candidate c = with_plan(current_, current_.plan);
        c.scenario[section][key] = v / 2;
        if (!try_candidate(c, /*no_more_events=*/true)) break;
        changed = true;
      }
    }
    return changed;
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
  Candidate current_;
  world::RunResult best_;
  ShrinkResult result_;
};

}  // namespace

std::vector<size_t> ddmin(size_t items, const std::function<bool(const std::vector<size_t>&)>& fails) {
  std::vector<size_t> set(items);
  for (size_t i = 0; i < items; ++i) set[i] = i;
  size_t chunks = 2;
  while (set.size() >= 2) {
    const size_t chunk = (set.size() + chunks - 1) / chunks;
    bool reduced = false;
    // Each chunk alone, then each complement.
    for (size_t start = 0; start < set.size() && !reduced; start += chunk) {
      std::vector<size_t> part(set.begin() + start, set.begin() + std::min(set.size(), start + chunk));
      if (part.size() < set.size() && fails(part)) {
        set = std::move(part);
        chunks = 2;
        reduced = true;
      }
    }
    for (size_t start = 0; start < set.size() && !reduced && chunks > 2; start += chunk) {
      std::vector<size_t> rest(set.begin(), set.begin() + start);
      rest.insert(rest.end(), set.begin() + std::min(set.size(), start + chunk), set.end());
      if (fails(rest)) {
        set = std::move(rest);
        chunks = std::max<size_t>(chunks - 1, 2);
        reduced = true;
      }
    }
    if (reduced) continue;
    if (chunks >= set.size()) break;
    chunks = std::min(set.size(), chunks * 2);
  }
  return set;
}

uint64_t bisect_down(uint64_t current, uint64_t floor, const std::function<bool(uint64_t)>& fails,
                     uint64_t slack_divisor) {
  if (current <= floor) return current;
  if (fails(floor)) return floor;
  uint64_t lo = floor, hi = current;  // fails(lo) is false, fails(hi) true
  while (hi - lo > 1 && (slack_divisor == 0 || hi - lo > hi / slack_divisor)) {
    const uint64_t mid = lo + (hi - lo) / 2;
    (fails(mid) ? hi : lo) = mid;
  }
  return hi;
}

ShrinkResult shrink(const nlohmann::json& header, const std::string& property, const ShrinkLimits& limits,
                    const ShrinkProgressFn& progress) {
  world::enable_planted_bug_of(header, "the trace");  // a self-test catch shrinks with its bug on
  return Shrinker(header, property, limits, progress).run();
}

}  // namespace wtsim::runs
