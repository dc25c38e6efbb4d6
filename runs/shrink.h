#pragma once
// Shrinking a failing run (delta debugging): from a trace's header (scenario, seed, fault plan),
// re-run in process with smaller settings while the same property still fails. Passes, repeated
// in rounds until none makes progress: drop fault-plan entries (ddmin), simplify the remaining
// ones (count triggers smaller, time triggers earlier, plainer modes), bisect the duration down,
// halve the workload's counts, slow its clients down (a longer think time). The seed stays: the result is the same seed with smaller settings.
// Every candidate is one bounded run; the number of runs and the wall time are capped.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "faults/fault_plan.h"
#include "world/world.h"

namespace wtsim::runs {

struct ShrinkLimits {
  size_t max_runs = 200;
  double time_budget_s = 60;
};

// What the shrinker holds now, for a progress line.
struct ShrinkProgress {
  const char* pass = "";
  size_t runs = 0;
  uint64_t events_before = 0, events_now = 0;
};
using ShrinkProgressFn = std::function<void(const ShrinkProgress&)>;

struct ShrinkSize {
  uint64_t events = 0, commits = 0, faults = 0, duration_ms = 0;
};

struct ShrinkResult {
  bool reproduced = false;  // the original header, re-run, failed the property
  std::string property;
  ShrinkSize before, after;
  size_t runs = 0;          // scenario runs, the reproduction included
  double wall_s = 0;
  bool budget_exhausted = false;  // stopped by max_runs or the time budget, not by a fixpoint
  world::RunResult minimal;        // the smallest failing run found (the original's if nothing shrank)
};

// `header` is a validated trace's header; `property` the violation to keep (the original
// verdict's first). Throws std::invalid_argument if the header's scenario or plan is bad.
ShrinkResult shrink(const nlohmann::json& header, const std::string& property, const ShrinkLimits& limits,
                    const ShrinkProgressFn& progress = nullptr);

// --- The generic reductions, exposed for tests. `fails` runs one candidate. ---

// ddmin (Zeller): a 1-minimal subset of `items` (as indexes into it, ascending) on which `fails`
// still holds, given it holds on all of them.
std::vector<size_t> ddmin(size_t items, const std::function<bool(const std::vector<size_t>&)>& fails);
// The smallest value in [floor, current] found by bisection on which `fails` holds, given it
// holds on `current` (exact if failing is monotone in the value). With `slack_divisor` d > 0 the
// bisection stops once the interval is within 1/d of the value it holds (fewer runs for a long
// duration, where the last few milliseconds shrink nothing).
uint64_t bisect_down(uint64_t current, uint64_t floor, const std::function<bool(uint64_t)>& fails,
                     uint64_t slack_divisor = 0);

}  // namespace wtsim::runs
