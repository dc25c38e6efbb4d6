#pragma once
// `wtsim shrink TRACE -o MIN.json`: delta-debugs a failing trace (runs/shrink.h) and writes
// the smallest failing run found as a normal trace, which `wtsim replay` reproduces (exit 1).
// Exit 0 shrunk (or already minimal), 1 the failure does not reproduce, 2 bad input.
#include <cstddef>
#include <string>

namespace wtsim::cli {

struct ShrinkOptions {
  std::string trace_path;
  std::string out_path;
  double time_budget_s = 60;
  size_t max_runs = 500;
  int jobs = 1;  // candidates run at once
  bool quiet = false;
};

int shrink_command(const ShrinkOptions& options);

}  // namespace wtsim::cli
