#pragma once
// Shrinking a failing run (delta debugging): from a trace's header (scenario, seed, fault plan),
// re-run with smaller settings while the same property still fails. Passes, repeated
// in rounds until none makes progress, the coarse ones first: lower the documents loaded before
// the run starts, shorten the liveness phase (none first), divide every time of the run at once
// (time_divided), lower the workload's counts (the simplest values first), lengthen the clients'
// pauses, drop fault-plan entries and a replica set's network faults and member plans (ddmin),
// simplify the remaining ones (count triggers smaller, time triggers earlier, windows narrower,
// plainer modes), bisect the duration down, crowd the clients (a shorter think time in a run cut as short
// as still fails). A candidate is kept only if the run does not grow (client operations, then
// events). A planted bug's shrink ends on the newest accepted setting that does not fail the
// property with the bug off (settled after the passes: the newest first, else by bisection). The seed stays: the result is the same seed with smaller settings. Every candidate is
// one bounded run in a forked child, `jobs` at once, their reports taken in order (the result does
// not depend on timing); the number of runs and the wall time are capped.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "faults/fault_plan.h"
#include "world/world.h"

namespace wtsim::runs {

struct ShrinkLimits {
  size_t max_runs = 500;
  double time_budget_s = 60;
  int jobs = 1;  // candidates run at once, each in a forked child (in order: the result does not depend on timing)
};

// What the shrinker holds now, for a progress line.
struct ShrinkProgress {
  const char* pass = "";
  size_t runs = 0;
  uint64_t events_before = 0, events_now = 0;
};
using ShrinkProgressFn = std::function<void(const ShrinkProgress&)>;

struct ShrinkSize {
  uint64_t events = 0, operations = 0, faults = 0, duration_ms = 0;  // operations: the clients' (traces/client_operations.h)
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

// --- The reductions, exposed for tests. ---

// One setting to run: the scenario as JSON (what the trace header will record) and the plan.
struct ShrinkCandidate {
  nlohmann::json scenario;
  faults::FaultPlan plan;
};

// `c` with every time of the run divided by `divisor` >= 2 (at least 1 ms or 1 s each; a zero
// stays) and its copy rates multiplied by it: the duration, the liveness phase, the node's
// checkpoint interval, the TTL index's expiry, its monitor's sleep, the manual delete job's
// period, the TTL index's creation, the end of inserts, the backup's start, the fault plan's
// times; a replica set's fault times, heartbeats and election timeout (as low as valid), write
// concern timeout and network latency. Client pauses stay. None when the duration is shorter
// than `divisor` ms.
std::optional<ShrinkCandidate> time_divided(const ShrinkCandidate& c, uint64_t divisor);

// `fails` runs one candidate; `first_failing` runs a batch of them (at once, as many as the jobs
// allow) and names the first, in the batch's order, that still fails.
template <typename T>
using FirstFailing = std::function<std::optional<size_t>(const std::vector<T>&)>;

// ddmin (Zeller): a 1-minimal subset of `items` (as indexes into it, ascending) on which `fails`
// still holds, given it holds on all of them.
std::vector<size_t> ddmin(size_t items, const std::function<bool(const std::vector<size_t>&)>& fails);
// The same, each round's subsets (the chunks, then their complements) given as one batch: the
// same result, as the first in a batch's order is the one ddmin would have tried first.
std::vector<size_t> ddmin_batched(size_t items, const FirstFailing<std::vector<size_t>>& first_failing);
// The smallest value in [floor, current] found by bisection on which `fails` holds, given it
// holds on `current` (exact if failing is monotone in the value). With `slack_divisor` d > 0 the
// bisection stops once the interval is within 1/d of the value it holds (fewer runs for a long
// duration, where the last few milliseconds shrink nothing).
uint64_t bisect_down(uint64_t current, uint64_t floor, const std::function<bool(uint64_t)>& fails,
                     uint64_t slack_divisor = 0);
// The same search, `probes` values a round: the value bisect_down probes next, then the one it
// would probe after it if that one did not fail, and so on (the floor first, in the first round).
// The first failing value of a round is where bisect_down would have gone: the same values are
// tried in the same order, up to `probes` of them at once.
uint64_t bisect_down_batched(uint64_t current, uint64_t floor, const FirstFailing<uint64_t>& first_failing,
                             uint64_t slack_divisor, size_t probes);

}  // namespace wtsim::runs
