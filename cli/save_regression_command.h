#pragma once
// `wtsim save-regression TRACE --name NAME [--dir tests/regressions] [--force]`: writes
// DIR/NAME_seedN.json, a scenario with the trace's fault plan made explicit and a description of
// what failed, then checks that `wtsim run FILE --seed N` reproduces the trace event for event.
// ctest runs every saved case expecting it to pass (a saved case documents a fixed bug), so a case
// that still fails is written with a loud warning. Exit 0 written, 2 bad input or the file
// exists (without --force), 3 the written case does not reproduce the trace (file removed).
#include <string>

namespace wtsim::cli {

struct SaveRegressionOptions {
  std::string trace_path;
  std::string name;
  std::string dir = "tests/regressions";
  bool force = false;
};

int save_regression_command(const SaveRegressionOptions& options);

}  // namespace wtsim::cli
