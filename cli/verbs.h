#pragma once
// The verbs of `wtsim`: their options (CLI11) and which function runs each. main.cpp only parses
// and dispatches; each verb's work lives in its own *_command file or in runs/.
#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "cli/merge_command.h"
#include "cli/run_command.h"
#include "cli/save_regression_command.h"
#include "cli/shrink_command.h"
#include "runs/explore.h"
#include "runs/selftest.h"
#include "runs/sweep.h"

namespace wtsim::cli {

// Every verb's options, filled by CLI11 as it parses.
struct Verbs {
  RunOptions run;
  runs::ExploreOptions explore;
  MergeOptions merge;
  runs::SweepOptions sweep;
  runs::SelftestOptions selftest;
  bool selftest_list = false;
  std::string replay_trace;
  bool replay_quiet = false;
  ShrinkOptions shrink;
  SaveRegressionOptions save_regression;
  std::string export_trace, export_format = "openmetrics", export_out;
  std::string report_trace, report_out;
  bool report_quiet = false;
  std::string docs_out = "docs/reference";
  bool docs_check = false;
  std::string completion_shell = "bash";
};

// Adds every verb to `app`, its options bound to `verbs`.
void add_verbs(CLI::App& app, Verbs& verbs);
// `wtsim run`'s options, for a forked child of explore or sweep as well.
void add_run_options(CLI::App* cmd, RunOptions& run);
// Runs the one verb `app` parsed; returns its exit code.
int dispatch(const CLI::App& app, const Verbs& verbs);

}  // namespace wtsim::cli
