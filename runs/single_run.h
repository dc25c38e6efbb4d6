#pragma once
// One seed of one scenario as `wtsim run` runs it: how the trace is kept (in memory, streamed as
// JSON Lines, or only hashed and kept by a second run when it failed: --trace-if-failed) and the
// determinism rerun (--check-determinism). The verb prints; this decides and runs.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "runs/exit_code.h"
#include "world/world.h"

namespace wtsim::runs {

struct SingleRunOptions {
  uint64_t seed = 1;
  std::string trace_path;        // empty: no trace file; *.jsonl: streamed as the run goes
  bool trace_if_failed = false;  // keep the trace only for a failed or classified run
  bool check_determinism = false;
  std::string facts_path;        // the hash and verdict alone (explore's and sweep's children)
  world::ProgressFn progress;
};

struct SingleRunOutcome {
  world::RunResult result;
  std::string hash;
  bool trace_written = false;
  std::optional<std::string> second_hash;  // --check-determinism: the second run's
  ExitCode code = kHeld;
  std::string error;  // set with kBadInput or kNondeterministic: what to print
};

// `scenario` has its knobs drawn (world::draw_knobs).
SingleRunOutcome run_single(const world::Scenario& scenario, const SingleRunOptions& options);

}  // namespace wtsim::runs
