#include "cli/run_command.h"

#include <unistd.h>

#include <cstdio>
#include <exception>
#include <memory>

#include "runs/single_run.h"
#include "sim/planted.h"
#include "world/world.h"

namespace wtsim::cli {
namespace {

void print_verdict(const world::Scenario& s, uint64_t seed, const world::RunResult& r, const std::string& hash) {
  const auto& st = r.stats;
  std::printf("%s seed=%llu: %s  virtual %.3f s, %llu commits acked, %llu failed, %llu crashes, "
              "%llu recovery checks, %llu checkpoints%s, trace hash %s\n",
              s.name.c_str(), static_cast<unsigned long long>(seed), r.ok ? "OK" : "VIOLATED",
              static_cast<double>(st.virtual_ns) / 1e9, static_cast<unsigned long long>(st.commits_acked),
              static_cast<unsigned long long>(st.commits_failed), static_cast<unsigned long long>(st.crashes),
              static_cast<unsigned long long>(st.recoveries), static_cast<unsigned long long>(st.checkpoints),
              st.workload_done_ns > 0 ? (", workload done at " + std::to_string(static_cast<double>(st.workload_done_ns) / 1e9) + " s").c_str() : "",
              hash.c_str());
  for (const auto& v : r.violations) {
    std::printf("  violated %s at %.3f s (event %llu): %s\n", v.name(),
                static_cast<double>(v.at_ns) / 1e9, static_cast<unsigned long long>(v.event_index),
                v.detail.c_str());
  }
  for (const auto& u : r.unsurvivable) {
    std::printf("  unsurvivable fault (classified, not a violation) at %.3f s: %s: %s\n",
                static_cast<double>(u.at_ns) / 1e9, u.reason.c_str(), u.detail.c_str());
  }
}

// A progress line on a terminal (standard error), every 1 % of the run's virtual time.
world::ProgressFn progress_line(const std::string& name, uint64_t seed) {
  if (isatty(STDERR_FILENO) == 0) return nullptr;
  return [name, seed, last_percent = -1](sim::Nanos now_ns, sim::Nanos end_ns) mutable {
    const int percent = static_cast<int>(100 * now_ns / std::max<sim::Nanos>(end_ns, 1));
    if (percent == last_percent) return;
    last_percent = percent;
    std::fprintf(stderr, "\r%s seed=%llu: virtual %.0f / %.0f s (%d %%)%s", name.c_str(),
                 static_cast<unsigned long long>(seed), static_cast<double>(now_ns) / 1e9,
                 static_cast<double>(end_ns) / 1e9, percent, percent >= 100 ? "\n" : "");
  };
}

}  // namespace

int run_command(const RunOptions& o) {
  if (!o.plant.empty()) {
    const auto bug = planted::find(o.plant);
    if (!bug) return std::fprintf(stderr, "wtsim: --plant %s: no such planted bug (see wtsim selftest --list)\n", o.plant.c_str()), kBadInput;
    if (planted::enabled() != bug) planted::enable(*bug);  // a forked run has it from its parent
  }
  // Knobs are drawn once per seed, here, and values that are valid alone can combine into an
  // invalid scenario (value_bytes_min above value_bytes_max): bad input, found before the run.
  world::Scenario scenario;
  try {
    scenario = world::load_scenario(o.scenario_path, o.overrides);
  } catch (const std::exception& e) {
    return std::fprintf(stderr, "wtsim: %s\n", e.what()), kBadInput;
  }
  try {
    scenario = world::draw_knobs(scenario, o.seed);
  } catch (const std::exception& e) {
    return std::fprintf(stderr, "wtsim: %s: %s\n", o.scenario_path.c_str(), e.what()), kBadInput;
  }
  runs::SingleRunOptions single{o.seed, o.trace_path, o.trace_if_failed, o.check_determinism, o.facts_path,
                                o.quiet ? nullptr : progress_line(scenario.name, o.seed)};
  const runs::SingleRunOutcome out = runs::run_single(scenario, single);
  if (!out.error.empty()) std::fprintf(stderr, "wtsim: %s\n", out.error.c_str());
  if (out.code == kBadInput || (out.code == kNondeterministic && !out.second_hash)) return out.code;
  if (!o.quiet) {
    print_verdict(scenario, o.seed, out.result, out.hash);
    if (out.trace_written) std::printf("trace written to %s\n", o.trace_path.c_str());
    if (out.second_hash && *out.second_hash == out.hash) std::printf("determinism: second run gave the same trace hash %s\n", out.second_hash->c_str());
  }
  return out.code;
}

bool load_trace_or_complain(const std::string& path, traces::LoadedTrace* out) {
  try {
    *out = traces::read_trace(path);
    return true;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "wtsim: %s\n", e.what());
    return false;
  }
}

}  // namespace wtsim::cli
