// wtsim: deterministic simulation and fault injection for a document engine on WiredTiger.
#include <CLI/CLI.hpp>
#include <wiredtiger.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>
#include <vector>

#include "cli/usage.h"
#include "cli/verbs.h"
#include "runs/seed_pool.h"
#include "sim/allocator_tuning.h"
#include "sim/scheduler.h"
#include "sim/wt_threads.h"

namespace {

// A verb that ran worlds returns through here: frozen fibers (a dead node's, stuck inside
// WiredTiger: sim::Simulator::freeze) would make Boost.Fiber's teardown at exit wait for ever.
int leave(int code) {
  if (wtsim::sim::Simulator::frozen_fibers_in_process() == 0) return code;
  std::fflush(nullptr);
  std::_Exit(code);
}

// A forked child of explore or sweep: `args` are a `wtsim run ...` command line.
int run_in_child(const std::vector<std::string>& args) {
  using namespace wtsim;
  CLI::App app{"wtsim run"};
  cli::RunOptions run;
  cli::add_run_options(&app, run);
  std::vector<std::string> rest(args.begin() + (args.size() > 1 && args[1] == "run" ? 2 : 1), args.end());
  std::reverse(rest.begin(), rest.end());  // CLI11 takes them last first
  try {
    app.parse(rest);
  } catch (const CLI::ParseError& e) {
    return cli::report_parse_error(app, e);
  }
  return cli::run_command(run);
}

std::string version_text() {
  int major = 0, minor = 0, patch = 0;
  wiredtiger_version(&major, &minor, &patch);
  return std::string("wtsim ") + WTSIM_VERSION + " (WiredTiger " + std::to_string(major) + "." + std::to_string(minor) + "." +
         std::to_string(patch) + ")";
}

// Fail closed: a verb that runs WiredTiger refuses to if its threads would not be fibers.
bool refuses_wiredtiger(const CLI::App& app) {
  static const std::set<std::string> kRunsWiredTiger = {"run", "explore", "sweep", "replay", "shrink", "save-regression", "selftest"};
  if (kRunsWiredTiger.count(app.get_subcommands().front()->get_name()) == 0) return false;
  const std::string problem = wtsim::sim::wt_threads::problem();
  if (problem.empty()) return false;
  std::fprintf(stderr, "wtsim: refusing to run: WiredTiger's threads would not run as fibers of the seeded scheduler: %s\n", problem.c_str());
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace wtsim;
  sim::tune_allocator_or_reexec(argv);
  CLI::App app{"wtsim: deterministic simulation and fault injection for a document engine on WiredTiger.\n"
               "Exit codes: 0 all properties held, 1 a property was violated, 2 bad usage or input, "
               "3 nondeterminism detected."};
  app.require_subcommand(1);
  app.set_version_flag("--version", version_text());
  cli::Verbs verbs;
  cli::add_verbs(app, verbs);
  runs::set_child_entry(&run_in_child);  // explore's and sweep's runs, forked from this process
  if (const auto code = cli::refuse_unknown_verb(app, argc, argv)) return *code;
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return cli::report_parse_error(app, e);
  }
  if (refuses_wiredtiger(app)) return cli::kBadInput;
  return leave(cli::dispatch(app, verbs));
}
