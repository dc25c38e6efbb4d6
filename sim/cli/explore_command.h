#pragma once
// `wtsim explore SCENARIO --seeds A..B`: many seeds, each in its own process (a crash of the tool
// under test never takes the explorer down), --jobs at once, --shard K/N to split a range across
// machines. Failing seeds keep their traces; exit 1 if any seed failed.
#include <cstdint>
#include <string>
#include <vector>

namespace wtsim::cli {

struct ExploreOptions {
  std::string scenario_path;
  std::string seeds = "1..100";  // A..B, inclusive
  int jobs = 2;
  std::string shard = "1/1";     // K/N: this machine runs the seeds with seed % N == K - 1
  std::string out_dir = "wtsim-failures";
  std::vector<std::string> overrides;
};

int explore_command(const ExploreOptions& options);

}  // namespace wtsim::cli
