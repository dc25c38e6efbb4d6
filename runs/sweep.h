#pragma once
// `wtsim sweep SCENARIO`: every crash point of one run (CrashMonkey's and B3's idea). The
// persistence points are the mutating disk operations of the fault phase (writes, syncs,
// truncates, creates, renames, removes). The scenario runs once without faults and forks itself
// just before each point (every --stride-th, in each --modes crash mode): the child arms its crash
// at that operation, recovers, runs on for --tail-ms after its recovery check and has every
// property checked. --from-start runs each point as a whole run instead. Failing points keep
// traces that replay and shrink like any other; the summary counts outcomes and names the failing
// points. Exit 1 if any point failed.
#include <cstdint>
#include <string>
#include <vector>

namespace wtsim::runs {

struct SweepOptions {
  std::string scenario_path;
  uint64_t seed = 1;
  std::vector<std::string> overrides;
  std::string modes = "drop_unsynced";  // a comma list of crash modes, or "all"
  uint64_t stride = 1;                  // every stride-th point
  std::string points;                   // "A..B": only these points (default: all)
  int jobs = 2;
  std::string out_dir = "wtsim-sweep";
  double point_timeout_s = 600;  // > 0: kill a point's run after this many wall seconds
  std::string plant;             // the self-test build's planted bug, for every run of the sweep
  bool from_start = false;       // each point a whole run from the start, not a fork at the point
  // >= 0: a point's run ends this many virtual ms after its recovery check (the scenario's
  // end_after_recovery_ms); < 0: it runs to the scenario's end.
  int64_t tail_ms = 1000;
};

int sweep(const SweepOptions& options);

}  // namespace wtsim::runs
