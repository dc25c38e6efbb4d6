#pragma once
// `wtsim selftest`: for each planted bug (selftest/planted_bugs.h), explore seeds of its scenario
// with `wtsim-planted run --plant BUG` until a property catches it or the seed budget runs out.
// Prints per bug whether it was caught, after how many seeds and how long, and by which property;
// exits 1 if any bug escaped. A property that silently stops checking shows up here.
#include <cstdint>
#include <string>
#include <vector>

namespace wtsim::cli {

struct SelftestOptions {
  uint64_t seeds_max = 200;          // per bug
  int jobs = 2;
  std::vector<std::string> bugs;     // empty: every bug in the catalogue
  std::string scenarios_dir;         // where the catalogue's scenarios/ live (default: the source tree)
  std::string out_dir = "wtsim-selftest";  // the catching traces
};

int selftest_command(const SelftestOptions& options);

}  // namespace wtsim::cli
