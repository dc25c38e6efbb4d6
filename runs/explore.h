#pragma once
// `wtsim explore SCENARIO --seeds A..B`: many seeds, each in its own process (a crash of the tool
// under test never takes the explorer down), --jobs at once, --shard K/N to split a range across
// machines, --time-budget to stop starting seeds, --seed-timeout to kill a run that hangs, --recheck to run a fraction of the seeds a second
// time in another process and compare trace hashes (a mismatch is the outcome "nondeterministic",
// both traces kept). Failing seeds keep their traces; the summary lists outcomes and the coverage
// markers reached (flagging those never reached); exit 1 if any seed failed, or, with
// --require-coverage / --require-marker, if a required marker was never reached (a fault model
// that quietly stopped biting: a torn-write mode that never tears leaves every seed green).
#include <cstdint>
#include <string>
#include <vector>

namespace wtsim::runs {

struct ExploreOptions {
  std::string scenario_path;
  std::string seeds = "1..100";  // A..B, inclusive
  int jobs = 2;
  std::string shard = "1/1";     // K/N: this machine runs the seeds with seed % N == K - 1
  std::string out_dir = "wtsim-failures";
  double time_budget_s = 0;      // > 0: start no new seed after this many wall seconds
  double seed_timeout_s = 600;   // > 0: kill a seed's run after this many wall seconds ("timed out")
  double recheck_fraction = 0.05;  // of the seeds, re-run in a second process (FoundationDB's unseed check)
  std::vector<std::string> overrides;
  // Coverage as a verdict: exit 1 when a marker is never reached. require_coverage: every marker
  // the scenario can reach (its workload kind and fault kinds); required_markers: these (by name).
  bool require_coverage = false;
  std::vector<std::string> required_markers;
  std::string summary_path;  // non-empty: the machine-readable summary (runs/summary.h) goes here
  std::string junit_path;    // non-empty: JUnit XML, one test case per seed
  bool spawn_exec = false;   // each seed a new process (exec) instead of a fork of this one
};

int explore(const ExploreOptions& options);

// A seed as typed: decimal digits only, 0..2^64-1 (no sign, no wrap-around); false otherwise.
bool parse_seed(const std::string& text, uint64_t* seed);
// Shared with `selftest` and summaries: "A..B", each seed below kSeedRangeLimit, A <= B.
constexpr uint64_t kSeedRangeLimit = 1'000'000'000'000'000'000ull;  // explore's job ids use the bits above
bool parse_seed_range(const std::string& text, uint64_t* from, uint64_t* to);

}  // namespace wtsim::runs
