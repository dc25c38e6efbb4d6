#include "cli/verbs.h"

#include <cassert>
#include <cstdio>
#include <thread>

#include "cli/completion.h"
#include "cli/docs_command.h"
#include "cli/export_command.h"
#include "cli/replay_command.h"
#include "cli/report_command.h"
#include "cli/usage.h"
#include "properties/coverage.h"
#include "properties/violation.h"
#include "runs/planted_catalogue.h"

namespace wtsim::cli {
namespace {

void add_explore(CLI::App& app, runs::ExploreOptions& explore) {
  CLI::App* cmd = app.add_subcommand("explore", "Run many seeds, each in its own process; keep the failing seeds' traces.");
  cmd->add_option("scenario", explore.scenario_path, "Scenario file (JSON)")->required();
  cmd->add_option("--seeds", explore.seeds, "Seed range A..B (inclusive, below 10^18)")->capture_default_str();
  cmd->add_option("--jobs", explore.jobs, "Runs at once (default: the number of cores)");
  cmd->add_option("--shard", explore.shard, "K/N: run only the seeds with seed % N == K - 1")->capture_default_str();
  cmd->add_option("--out", explore.out_dir, "Directory for failing seeds' traces")->capture_default_str();
  cmd->add_option("--set", explore.overrides, "Override a scenario field: path=value; repeatable");
  cmd->add_flag("--require-coverage", explore.require_coverage, "Exit 1 if a coverage marker the scenario can reach is never reached");
  cmd->add_option("--require-marker", explore.required_markers, "Exit 1 if this coverage marker is never reached; repeatable");
  cmd->add_option("--time-budget", explore.time_budget_s, "Start no new seed after this many wall seconds (0: no budget)");
  cmd->add_option("--seed-timeout", explore.seed_timeout_s, "Kill a seed's run after this many wall seconds: outcome \"timed out\" (0: never)")
      ->capture_default_str();
  cmd->add_option("--recheck", explore.recheck_fraction, "Fraction of the seeds run a second time in another process, hashes compared (0..1)")
      ->capture_default_str()->check(CLI::Range(0.0, 1.0));
  cmd->add_option("--summary", explore.summary_path, "Write a machine-readable summary here (JSON: one record per seed, coverage)");
  cmd->add_option("--junit", explore.junit_path, "Write JUnit XML here (one test case per seed) for CI dashboards");
  cmd->add_flag("--spawn-exec", explore.spawn_exec, "Start each seed's run as a new process (exec) instead of a fork of the explorer");
}

void add_merge(CLI::App& app, MergeOptions& merge) {
  CLI::App* cmd = app.add_subcommand("merge", "Merge the summaries of an explore's shards into one table (and summary, JUnit XML).");
  cmd->add_option("summaries", merge.summaries, "Summary files (explore --summary)")->required();
  cmd->add_option("--summary", merge.summary_out, "Write the merged summary here");
  cmd->add_option("--junit", merge.junit_out, "Write the merged JUnit XML here");
}

void add_sweep(CLI::App& app, runs::SweepOptions& sweep) {
  CLI::App* cmd = app.add_subcommand("sweep", "Crash one run at every persistence point (each mutating disk operation), recover and check every property.");
  cmd->add_option("scenario", sweep.scenario_path, "Scenario file (JSON): a script, or any scenario with a short run")->required();
  cmd->add_option("--seed", sweep.seed, "The run's seed")->capture_default_str()->check(seed_check());
  cmd->add_option("--modes", sweep.modes, "Crash modes: all, or a comma list of drop_unsynced, torn_prefix, sector_damage")->capture_default_str();
  cmd->add_option("--stride", sweep.stride, "Every Nth point only (long runs)")->capture_default_str()->check(CLI::Range(uint64_t{1}, uint64_t{1} << 40));
  cmd->add_option("--points", sweep.points, "Only the points A..B (disk operations, from 1)");
  cmd->add_option("--jobs", sweep.jobs, "Runs at once (default: the number of cores)");
  cmd->add_option("--out", sweep.out_dir, "Directory for failing points' traces")->capture_default_str();
  cmd->add_option("--set", sweep.overrides, "Override a scenario field: path=value; repeatable");
  cmd->add_option("--point-timeout", sweep.point_timeout_s, "Kill a point's run after this many wall seconds (0: never)")->capture_default_str();
  cmd->add_flag("--from-start", sweep.from_start, "Run each point from the start instead of forking the one run at each point");
  cmd->add_option("--tail-ms", sweep.tail_ms, "End each point's run this many virtual ms after its recovery check (-1: run to the scenario's end)")
      ->capture_default_str()->check(CLI::Range(int64_t{-1}, int64_t{24} * 3600 * 1000));
#ifdef WTSIM_PLANTED_BUGS
  cmd->add_option("--plant", sweep.plant, "Switch on one planted bug by name in every run (this self-test build only)");
#endif
}

void add_selftest(CLI::App& app, Verbs& v) {
  v.selftest.scenarios_dir = WTSIM_SOURCE_DIR;
  CLI::App* cmd = app.add_subcommand("selftest", "Explore seeds against each planted bug (wtsim-planted); report which properties catch them.");
  cmd->add_option("--seeds-max", v.selftest.seeds_max, "Seeds per bug before it counts as escaped")->capture_default_str();
  cmd->add_option("--jobs", v.selftest.jobs, "Runs at once (default: the number of cores)");
  cmd->add_option("--bug", v.selftest.bugs, "Only this planted bug; repeatable");
  cmd->add_option("--source-dir", v.selftest.scenarios_dir, "The source tree holding scenarios/ (default: the one wtsim was built from)");
  cmd->add_option("--out", v.selftest.out_dir, "Directory for the catching traces")->capture_default_str();
  cmd->add_option("--shrink-budget", v.selftest.shrink_budget_s, "Wall seconds to shrink each catching trace (0: do not shrink)")
      ->capture_default_str()->check(CLI::Range(0.0, 3600.0));
  cmd->add_flag("--list", v.selftest_list, "List the planted bugs and exit");
}

void add_trace_verbs(CLI::App& app, Verbs& v) {
  CLI::App* replay = app.add_subcommand("replay", "Re-run a trace from its header and compare every event (exit 3 on a divergence).");
  replay->add_option("trace", v.replay_trace, "Trace file (JSON or JSON Lines)")->required();
  replay->add_flag("-q,--quiet", v.replay_quiet, "Print nothing on success");

  CLI::App* shrink = app.add_subcommand("shrink", "Delta-debug a failing trace: the smallest run (same seed) that still fails the same property.");
  shrink->add_option("trace", v.shrink.trace_path, "Failing trace (JSON or JSON Lines)")->required();
  shrink->add_option("-o,--output", v.shrink.out_path, "Where to write the minimal run's trace (.json or .jsonl)")->required();
  shrink->add_option("--time-budget", v.shrink.time_budget_s, "Wall seconds to spend (no new candidate after)")->capture_default_str()->check(CLI::Range(1.0, 86400.0));
  shrink->add_option("--max-runs", v.shrink.max_runs, "Candidate runs at most")->capture_default_str()->check(CLI::Range(1, 100000));
  shrink->add_option("--jobs", v.shrink.jobs, "Candidate runs at once, each a forked process (default: the number of cores)")->check(CLI::Range(1, 64));
  shrink->add_flag("-q,--quiet", v.shrink.quiet, "Print nothing; use the exit code");

  CLI::App* save = app.add_subcommand("save-regression", "Save a trace's run as a regression case NAME_seedN.json (its fault plan explicit), checked to reproduce.");
  save->add_option("trace", v.save_regression.trace_path, "Trace (JSON or JSON Lines)")->required();
  save->add_option("--name", v.save_regression.name, "Case name: letters, digits, '_', '-'")->required();
  save->add_option("--dir", v.save_regression.dir, "Directory of regression cases")->capture_default_str();
  save->add_flag("--force", v.save_regression.force, "Overwrite an existing case");

  CLI::App* exp = app.add_subcommand("export", "Export a trace: its metrics as OpenMetrics text, or the whole run as a Perfetto/Chrome trace.");
  exp->add_option("trace", v.export_trace, "Trace file (JSON or JSON Lines)")->required();
  exp->add_option("--format", v.export_format, "openmetrics (metrics samples) or perfetto (Chrome trace-event JSON for ui.perfetto.dev)")
      ->check(CLI::IsMember({"openmetrics", "perfetto"}))->capture_default_str();
  exp->add_option("-o,--output", v.export_out, "Output file (default: standard output)");

  CLI::App* report = app.add_subcommand("report", "Write a trace as one self-contained HTML page: verdict, violations in context, timeline, metric charts.");
  report->add_option("trace", v.report_trace, "Trace file (JSON or JSON Lines)")->required();
  report->add_option("-o,--output", v.report_out, "Output HTML file (default: the trace's name with .html)");
  report->add_flag("-q,--quiet", v.report_quiet, "Print nothing on success");
}

void add_catalogue_verbs(CLI::App& app, Verbs& v) {
  app.add_subcommand("properties", "List the properties a verdict can report.");
  app.add_subcommand("coverage", "List the coverage markers a run can reach.");
  CLI::App* docs = app.add_subcommand("docs", "Write the reference pages generated from the code (properties, coverage markers, planted bugs, verbs).");
  docs->add_option("--out", v.docs_out, "Directory for the pages")->capture_default_str();
  docs->add_flag("--check", v.docs_check, "Write nothing; exit 1 if a page in --out differs from what the code generates");
  CLI::App* completion = app.add_subcommand("completion", "Print a shell completion script (bash): source <(wtsim completion bash)");
  completion->add_option("shell", v.completion_shell, "The shell")->check(CLI::IsMember({"bash"}))->capture_default_str();
}

int list_catalogue(const std::string& verb) {
  if (verb == "properties") {
    for (const auto& p : properties::catalogue()) std::printf("%-34s %s\n", p.name, p.checks);
  } else if (verb == "coverage") {
    for (const auto& m : properties::coverage_catalogue()) std::printf("%-28s %s\n", m.name, m.meaning);
  } else {
    assert(verb == "selftest --list");
    for (const auto& b : runs::catalogue()) {
      std::printf("%-27s %s (%s; caught by %s)\n", b.name(), b.mistake, b.scenario, properties::name_of(b.property));
    }
  }
  return runs::kHeld;
}

}  // namespace

void add_run_options(CLI::App* cmd, RunOptions& run) {
  cmd->add_option("scenario", run.scenario_path, "Scenario file (JSON)")->required();
  cmd->add_option("--set", run.overrides, "Override a scenario field: path=value (e.g. node.lock_policy=collection); repeatable");
  cmd->add_option("--seed", run.seed, "Run seed, 0..2^64-1 (one seed reproduces one run exactly)")->capture_default_str()->check(seed_check());
  cmd->add_option("--trace", run.trace_path, "Write the trace to this file (FILE.jsonl: JSON Lines, streamed as the run goes)");
  cmd->add_flag("--check-determinism", run.check_determinism, "Run twice and compare the trace hashes (exit 3 on a difference)");
  cmd->add_flag("-q,--quiet", run.quiet, "Print nothing; use the exit code");
  cmd->add_option("--facts", run.facts_path, "Also write the trace's hash and verdict (no events) to this file (explore's and sweep's use)");
  cmd->add_flag("--trace-if-failed", run.trace_if_failed, "Write --trace only if a property failed or an unsurvivable fault was classified");
#ifdef WTSIM_PLANTED_BUGS
  cmd->add_option("--plant", run.plant, "Switch on one planted bug by name (this self-test build only)");
#endif
}

void add_verbs(CLI::App& app, Verbs& v) {
  // The core count only (no thread is started): the default number of run processes at once.
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  v.explore.jobs = v.sweep.jobs = v.selftest.jobs = v.shrink.jobs = cores;
  add_run_options(app.add_subcommand("run", "Run one scenario with one seed; print the verdict, write a trace."), v.run);
  add_explore(app, v.explore);
  add_merge(app, v.merge);
  add_sweep(app, v.sweep);
  add_selftest(app, v);
  add_trace_verbs(app, v);
  add_catalogue_verbs(app, v);
}

int dispatch(const CLI::App& app, const Verbs& v) {
  const std::vector<CLI::App*> parsed = app.get_subcommands();
  assert(parsed.size() == 1);  // require_subcommand(1)
  const std::string verb = parsed.front()->get_name();
  if (verb == "run") return run_command(v.run);
  if (verb == "explore") return runs::explore(v.explore);
  if (verb == "merge") return merge_command(v.merge);
  if (verb == "sweep") return runs::sweep(v.sweep);
  if (verb == "selftest") return v.selftest_list ? list_catalogue("selftest --list") : runs::selftest(v.selftest);
  if (verb == "replay") return replay_command(v.replay_trace, v.replay_quiet);
  if (verb == "shrink") return shrink_command(v.shrink);
  if (verb == "save-regression") return save_regression_command(v.save_regression);
  if (verb == "export") return export_command(v.export_trace, v.export_format, v.export_out);
  if (verb == "report") return report_command(v.report_trace, v.report_out, v.report_quiet);
  if (verb == "properties" || verb == "coverage") return list_catalogue(verb);
  if (verb == "docs") return docs_command(app, v.docs_out, v.docs_check);
  if (verb == "completion") return completion_command(app, v.completion_shell);
  assert(false && "a verb without a dispatch");
  return runs::kBadInput;
}

}  // namespace wtsim::cli
