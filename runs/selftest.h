#pragma once
// `wtsim selftest`: for each planted bug (runs/planted_catalogue.h), explore seeds of its scenario
// with `wtsim-planted run --plant BUG` until a property catches it or the seed budget runs out.
// A catch counts only if the same seed holds with the bug off, and only if the bug's own property
// (BugInfo::property) is among those violated. Prints per bug whether it was caught, after how
// many seeds and how long, by which properties, and the shrunk run's size (counted only if the
// shrunk scenario and seed, run with the bug off, do not fail the shrink's property); then per property the
// bugs it caught. Exits 1 if any bug escaped. A property that silently stops checking shows here.
#include <cstdint>
#include <string>
#include <vector>

namespace wtsim::runs {

struct SelftestOptions {
  uint64_t seeds_max = 200;          // per bug
  int jobs = 2;
  std::vector<std::string> bugs;     // empty: every bug in the catalogue
  std::string scenarios_dir;         // where the catalogue's scenarios/ live (default: the source tree)
  std::string out_dir = "wtsim-selftest";  // the catching traces
  double shrink_budget_s = 60;       // per caught bug: shrink its trace this long (0: no shrinking)
};

int selftest(const SelftestOptions& options);

}  // namespace wtsim::runs
