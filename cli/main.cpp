// wtsim: deterministic simulation and fault injection for a document engine on WiredTiger.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

#include "properties/violation.h"
#include "sim/allocator_tuning.h"
#include "sim/scheduler.h"
#include "sim/wt_threads.h"
#include "runs/explore.h"
#include "runs/seed_pool.h"
#include "runs/sweep.h"
#include "cli/export_command.h"
#include "cli/merge_command.h"
#include "cli/replay_command.h"
#include "cli/report_command.h"
#include "cli/run_command.h"
#include "cli/save_regression_command.h"
#include "cli/shrink_command.h"
#include "runs/selftest.h"
#include "runs/planted_catalogue.h"
#include "properties/coverage.h"

namespace {

// A verb that ran worlds returns through here: frozen fibers (a dead node's, stuck inside
// WiredTiger: sim::Simulator::freeze) would make Boost.Fiber's teardown at exit wait for ever.
int leave(int code) {
  if (wtsim::sim::Simulator::frozen_fibers_in_process() == 0) return code;
  std::fflush(nullptr);
  std::_Exit(code);
}

void add_run_options(CLI::App* cmd, wtsim::cli::RunOptions& run) {
  cmd->add_option("scenario", run.scenario_path, "Scenario file (JSON)")->required()->check(CLI::ExistingFile);
  cmd->add_option("--set", run.overrides, "Override a scenario field: path=value (e.g. node.lock_policy=collection); repeatable");
  cmd->add_option("--seed", run.seed, "Run seed (one seed reproduces one run exactly)")->capture_default_str();
  cmd->add_option("--trace", run.trace_path, "Write the trace to this file (FILE.jsonl: JSON Lines, streamed as the run goes)");
  cmd->add_flag("--check-determinism", run.check_determinism, "Run twice and compare the trace hashes (exit 3 on a difference)");
  cmd->add_flag("-q,--quiet", run.quiet, "Print nothing; use the exit code");
  cmd->add_option("--facts", run.facts_path, "Also write the trace's hash and verdict (no events) to this file (explore's and sweep's use)");
  cmd->add_flag("--trace-if-failed", run.trace_if_failed, "Write --trace only if a property failed or an unsurvivable fault was classified");
#ifdef WTSIM_PLANTED_BUGS
  cmd->add_option("--plant", run.plant, "Switch on one planted bug by name (this self-test build only)");
#endif
}

// A forked child of explore or sweep: `args` are a `wtsim run ...` command line.
int run_in_child(const std::vector<std::string>& args) {
  using namespace wtsim;
  CLI::App app{"wtsim run"};
  cli::RunOptions run;
  add_run_options(&app, run);
  std::vector<std::string> rest(args.begin() + (args.size() > 1 && args[1] == "run" ? 2 : 1), args.end());
  std::reverse(rest.begin(), rest.end());  // CLI11 takes them last first
  try {
    app.parse(rest);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : cli::kBadInput;
  }
  return cli::run_command(run);
}

}  // namespace

int main(int argc, char** argv) {
  using namespace wtsim;
  sim::tune_allocator_or_reexec(argv);
  CLI::App app{"wtsim: deterministic simulation and fault injection for a document engine on WiredTiger.\n"
               "Exit codes: 0 all properties held, 1 a property was violated, 2 bad usage or input, "
               "3 nondeterminism detected."};
  app.require_subcommand(1);
  app.set_version_flag("--version", WTSIM_VERSION);

  cli::RunOptions run;
  CLI::App* run_cmd = app.add_subcommand("run", "Run one scenario with one seed; print the verdict, write a trace.");
  add_run_options(run_cmd, run);
  runs::set_child_entry(&run_in_child);  // explore's and sweep's runs, forked from this process

  CLI::App* props_cmd = app.add_subcommand("properties", "List the properties a verdict can report.");

  runs::ExploreOptions explore;
  // The core count only (no thread is started): the default number of run processes at once.
  explore.jobs = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  CLI::App* explore_cmd = app.add_subcommand("explore", "Run many seeds, each in its own process; keep the failing seeds' traces.");
  explore_cmd->add_option("scenario", explore.scenario_path, "Scenario file (JSON)")->required()->check(CLI::ExistingFile);
  explore_cmd->add_option("--seeds", explore.seeds, "Seed range A..B (inclusive)")->capture_default_str();
  explore_cmd->add_option("--jobs", explore.jobs, "Runs at once")->capture_default_str();
  explore_cmd->add_option("--shard", explore.shard, "K/N: run only the seeds with seed % N == K - 1")->capture_default_str();
  explore_cmd->add_option("--out", explore.out_dir, "Directory for failing seeds' traces")->capture_default_str();
  explore_cmd->add_option("--set", explore.overrides, "Override a scenario field: path=value; repeatable");
  explore_cmd->add_flag("--require-coverage", explore.require_coverage,
                        "Exit 1 if a coverage marker the scenario can reach is never reached");
  explore_cmd->add_option("--require-marker", explore.required_markers, "Exit 1 if this coverage marker is never reached; repeatable");
  explore_cmd->add_option("--time-budget", explore.time_budget_s, "Start no new seed after this many wall seconds (0: no budget)");
  explore_cmd->add_option("--seed-timeout", explore.seed_timeout_s, "Kill a seed's run after this many wall seconds: outcome \"timed out\" (0: never)")
      ->capture_default_str();
  explore_cmd->add_option("--recheck", explore.recheck_fraction, "Fraction of the seeds run a second time in another process, hashes compared (0..1)")
      ->capture_default_str()->check(CLI::Range(0.0, 1.0));
  explore_cmd->add_option("--summary", explore.summary_path, "Write a machine-readable summary here (JSON: one record per seed, coverage)");
  explore_cmd->add_option("--junit", explore.junit_path, "Write JUnit XML here (one test case per seed) for CI dashboards");
  explore_cmd->add_flag("--spawn-exec", explore.spawn_exec, "Start each seed's run as a new process (exec) instead of a fork of the explorer");

  cli::MergeOptions merge;
  CLI::App* merge_cmd = app.add_subcommand("merge", "Merge the summaries of an explore's shards into one table (and summary, JUnit XML).");
  merge_cmd->add_option("summaries", merge.summaries, "Summary files (explore --summary)")->required();
  merge_cmd->add_option("--summary", merge.summary_out, "Write the merged summary here");
  merge_cmd->add_option("--junit", merge.junit_out, "Write the merged JUnit XML here");

  runs::SweepOptions sweep;
  sweep.jobs = explore.jobs;
  CLI::App* sweep_cmd = app.add_subcommand("sweep", "Crash one run at every persistence point (each mutating disk operation), recover and check every property.");
  sweep_cmd->add_option("scenario", sweep.scenario_path, "Scenario file (JSON): a script, or any scenario with a short run")->required()->check(CLI::ExistingFile);
  sweep_cmd->add_option("--seed", sweep.seed, "The run's seed")->capture_default_str();
  sweep_cmd->add_option("--modes", sweep.modes, "Crash modes: all, or a comma list of drop_unsynced, torn_prefix, sector_damage")->capture_default_str();
  sweep_cmd->add_option("--stride", sweep.stride, "Every Nth point only (long runs)")->capture_default_str()->check(CLI::Range(uint64_t{1}, uint64_t{1} << 40));
  sweep_cmd->add_option("--points", sweep.points, "Only the points A..B (disk operations, from 1)");
  sweep_cmd->add_option("--jobs", sweep.jobs, "Runs at once")->capture_default_str();
  sweep_cmd->add_option("--out", sweep.out_dir, "Directory for failing points' traces")->capture_default_str();
  sweep_cmd->add_option("--set", sweep.overrides, "Override a scenario field: path=value; repeatable");
  sweep_cmd->add_option("--point-timeout", sweep.point_timeout_s, "Kill a point's run after this many wall seconds (0: never)")->capture_default_str();
  sweep_cmd->add_flag("--from-start", sweep.from_start, "Run each point from the start instead of forking the one run at each point");
  sweep_cmd->add_option("--tail-ms", sweep.tail_ms, "End each point's run this many virtual ms after its recovery check (-1: run to the scenario's end)")
      ->capture_default_str()->check(CLI::Range(int64_t{-1}, int64_t{24} * 3600 * 1000));
#ifdef WTSIM_PLANTED_BUGS
  sweep_cmd->add_option("--plant", sweep.plant, "Switch on one planted bug by name in every run (this self-test build only)");
#endif

  runs::SelftestOptions selftest;
  selftest.jobs = explore.jobs;
  selftest.scenarios_dir = WTSIM_SOURCE_DIR;
  bool selftest_list = false;
  CLI::App* selftest_cmd = app.add_subcommand("selftest", "Explore seeds against each planted bug (wtsim-planted); report which properties catch them.");
  selftest_cmd->add_option("--seeds-max", selftest.seeds_max, "Seeds per bug before it counts as escaped")->capture_default_str();
  selftest_cmd->add_option("--jobs", selftest.jobs, "Runs at once")->capture_default_str();
  selftest_cmd->add_option("--bug", selftest.bugs, "Only this planted bug; repeatable");
  selftest_cmd->add_option("--source-dir", selftest.scenarios_dir, "The source tree holding scenarios/")->capture_default_str();
  selftest_cmd->add_option("--out", selftest.out_dir, "Directory for the catching traces")->capture_default_str();
  selftest_cmd->add_option("--shrink-budget", selftest.shrink_budget_s, "Wall seconds to shrink each catching trace (0: do not shrink)")
      ->capture_default_str()->check(CLI::Range(0.0, 3600.0));
  selftest_cmd->add_flag("--list", selftest_list, "List the planted bugs and exit");

  CLI::App* coverage_cmd = app.add_subcommand("coverage", "List the coverage markers a run can reach.");

  std::string replay_trace;
  bool replay_quiet = false;
  CLI::App* replay_cmd = app.add_subcommand("replay", "Re-run a trace from its header and compare every event (exit 3 on a divergence).");
  replay_cmd->add_option("trace", replay_trace, "Trace file (JSON)")->required();
  replay_cmd->add_flag("-q,--quiet", replay_quiet, "Print nothing on success");

  cli::ShrinkOptions shrink;
  CLI::App* shrink_cmd = app.add_subcommand("shrink", "Delta-debug a failing trace: the smallest run (same seed) that still fails the same property.");
  shrink_cmd->add_option("trace", shrink.trace_path, "Failing trace (JSON or JSON Lines)")->required();
  shrink_cmd->add_option("-o,--output", shrink.out_path, "Where to write the minimal run's trace (.json or .jsonl)")->required();
  shrink_cmd->add_option("--time-budget", shrink.time_budget_s, "Wall seconds to spend (no new candidate after)")->capture_default_str()->check(CLI::Range(1.0, 86400.0));
  shrink_cmd->add_option("--max-runs", shrink.max_runs, "Candidate runs at most")->capture_default_str()->check(CLI::Range(1, 100000));
  shrink_cmd->add_flag("-q,--quiet", shrink.quiet, "Print nothing; use the exit code");

  cli::SaveRegressionOptions save_regression;
  CLI::App* save_regression_cmd = app.add_subcommand("save-regression", "Save a trace's run as a regression case NAME_seedN.json (its fault plan explicit), checked to reproduce.");
  save_regression_cmd->add_option("trace", save_regression.trace_path, "Trace (JSON or JSON Lines)")->required();
  save_regression_cmd->add_option("--name", save_regression.name, "Case name: letters, digits, '_', '-'")->required();
  save_regression_cmd->add_option("--dir", save_regression.dir, "Directory of regression cases")->capture_default_str();
  save_regression_cmd->add_flag("--force", save_regression.force, "Overwrite an existing case");

  std::string export_trace, export_format = "openmetrics", export_out;
  CLI::App* export_cmd = app.add_subcommand("export", "Export a trace: its metrics as OpenMetrics text, or the whole run as a Perfetto/Chrome trace.");
  export_cmd->add_option("trace", export_trace, "Trace file (JSON or JSON Lines)")->required();
  export_cmd->add_option("--format", export_format, "openmetrics (metrics samples) or perfetto (Chrome trace-event JSON for ui.perfetto.dev)")->check(CLI::IsMember({"openmetrics", "perfetto"}))->capture_default_str();
  export_cmd->add_option("-o,--output", export_out, "Output file (default: standard output)");

  std::string report_trace, report_out;
  bool report_quiet = false;
  CLI::App* report_cmd = app.add_subcommand("report", "Write a trace as one self-contained HTML page: verdict, violations in context, timeline, metric charts.");
  report_cmd->add_option("trace", report_trace, "Trace file (JSON or JSON Lines)")->required();
  report_cmd->add_option("-o,--output", report_out, "Output HTML file (default: the trace's name with .html)");
  report_cmd->add_flag("-q,--quiet", report_quiet, "Print nothing on success");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : cli::kBadInput;
  }
  // Fail closed: a verb that runs WiredTiger refuses to if its threads would not be fibers.
  const bool runs_wiredtiger = *run_cmd || *explore_cmd || *sweep_cmd || *replay_cmd || *shrink_cmd || *save_regression_cmd || *selftest_cmd;
  if (const std::string problem = runs_wiredtiger ? sim::wt_threads::problem() : ""; !problem.empty()) {
    std::fprintf(stderr, "wtsim: refusing to run: WiredTiger's threads would not run as fibers of the seeded scheduler: %s\n",
                 problem.c_str());
    return cli::kBadInput;
  }
  if (*run_cmd) return leave(cli::run_command(run));
  if (*explore_cmd) return runs::explore(explore);
  if (*sweep_cmd) return leave(runs::sweep(sweep));
  if (*merge_cmd) return cli::merge_command(merge);
  if (*selftest_cmd && selftest_list) {
    for (const auto& b : runs::catalogue()) std::printf("%-27s %s (%s; caught by %s)\n", b.name(), b.mistake, b.scenario,
                                                        properties::name_of(b.property));
    return 0;
  }
  if (*selftest_cmd) return runs::selftest(selftest);
  if (*coverage_cmd) {
    for (const auto& m : properties::coverage_catalogue()) std::printf("%-28s %s\n", m.name, m.meaning);
    return 0;
  }
  if (*replay_cmd) return leave(cli::replay_command(replay_trace, replay_quiet));
  if (*export_cmd) return cli::export_command(export_trace, export_format, export_out);
  if (*report_cmd) return cli::report_command(report_trace, report_out, report_quiet);
  if (*shrink_cmd) return leave(cli::shrink_command(shrink));
  if (*save_regression_cmd) return leave(cli::save_regression_command(save_regression));
  if (*props_cmd) {
    for (const auto& p : properties::catalogue()) std::printf("%-34s %s\n", p.name, p.checks);
    return 0;
  }
  return cli::kBadInput;
}
