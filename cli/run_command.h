#pragma once
// `wtsim run`: one scenario, one seed, a verdict and a trace.
#include <cstdint>
#include <string>
#include <vector>

#include "runs/exit_code.h"
#include "traces/trace_reader.h"

namespace wtsim::cli {

using runs::ExitCode, runs::kHeld, runs::kViolated, runs::kBadInput, runs::kNondeterministic;

struct RunOptions {
  std::string scenario_path;
  std::vector<std::string> overrides;  // --set path=value
  uint64_t seed = 1;
  std::string trace_path;  // empty: no trace file
  bool check_determinism = false;
  bool quiet = false;
  std::string plant;  // wtsim-planted only: the planted bug to switch on
  // For explore and sweep: the trace's hash and verdict (a few hundred bytes) written here, and
  // the trace itself only when the run failed or classified an unsurvivable fault.
  std::string facts_path;
  bool trace_if_failed = false;
};

int run_command(const RunOptions& options);
// For the verbs that take a trace: reads and validates it; on a problem prints it (file, path,
// problem) and returns false, and the verb exits kBadInput.
bool load_trace_or_complain(const std::string& path, traces::LoadedTrace* out);

}  // namespace wtsim::cli
