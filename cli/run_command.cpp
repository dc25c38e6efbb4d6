#include "cli/run_command.h"

#include <unistd.h>

#include <cstdio>
#include <exception>
#include <memory>

#include "runs/summary.h"
#include "sim/planted.h"
#include "world/world.h"
#include "traces/trace_stream.h"

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
  world::Scenario scenario;
  try {
    scenario = world::load_scenario(o.scenario_path, o.overrides);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "wtsim: %s\n", e.what());
    return kBadInput;
  }
  // Knobs are drawn per seed, and values that are valid alone can combine into an invalid
  // scenario (value_bytes_min above value_bytes_max): bad input, found before the run. The run
  // then gets the drawn scenario (drawing again is a no-op: it has no knobs left).
  try {
    scenario = world::draw_knobs(scenario, o.seed);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "wtsim: %s: %s\n", o.scenario_path.c_str(), e.what());
    return kBadInput;
  }
  // A .jsonl trace streams as the run goes (nothing kept in memory); opened first, so a bad path
  // fails before the run.
  std::unique_ptr<traces::JsonlTraceWriter> stream;
  try {
    if (traces::has_jsonl_extension(o.trace_path)) stream = std::make_unique<traces::JsonlTraceWriter>(o.trace_path);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "wtsim: %s\n", e.what());
    return kBadInput;
  }
  // Without a trace file nothing is kept: every event is hashed as it goes (a streamed trace's
  // hash, whatever the number of events).
  traces::HashOnlySink hash_only;
  traces::EventSink* sink = stream ? static_cast<traces::EventSink*>(stream.get()) : nullptr;
  // --trace-if-failed: most runs hold, so the first run only hashes; one that fails runs again
  // keeping its events (one seed is one run: the same trace, its hash checked).
  const bool hash_first = o.trace_path.empty() || (o.trace_if_failed && !stream);
  if (hash_first) sink = &hash_only;
  world::RunResult result = world::run_scenario(
      scenario, o.seed, nullptr, o.quiet ? nullptr : progress_line(scenario.name, o.seed), sink);
  const std::string hash = result.trace->hash();
  if (!o.facts_path.empty() && !runs::write_facts(o.facts_path, result.trace->verdict(), hash)) return kBadInput;
  const bool keep_trace = !o.trace_if_failed || !result.ok || !result.unsurvivable.empty();
  if (hash_first && keep_trace && !o.trace_path.empty()) {
    result = world::run_scenario(scenario, o.seed);
    if (result.trace->hash() != hash) {
      std::fprintf(stderr, "wtsim: NONDETERMINISM: seed %llu gave trace hash %s, then %s\n", static_cast<unsigned long long>(o.seed), hash.c_str(),
                   result.trace->hash().c_str());
      return kNondeterministic;
    }
  }
  if (!o.trace_path.empty()) {
    try {
      if (stream) {
        stream->finish(result.trace->verdict(), hash);
        if (!keep_trace) std::remove(o.trace_path.c_str());  // streamed already: finished, then dropped
      } else if (keep_trace) {
        result.trace->write(o.trace_path);
      }
    } catch (const std::exception& e) {
      std::fprintf(stderr, "wtsim: %s\n", e.what());
      return kBadInput;
    }
  }
  if (!o.quiet) print_verdict(scenario, o.seed, result, hash);
  if (!o.trace_path.empty() && keep_trace && !o.quiet) std::printf("trace written to %s\n", o.trace_path.c_str());
  if (o.check_determinism) {
    traces::HashOnlySink again_sink;  // the second run hashes in the first run's form
    world::RunResult again = world::run_scenario(scenario, o.seed, nullptr, nullptr, sink != nullptr ? &again_sink : nullptr);
    const std::string hash2 = again.trace->hash();
    if (hash2 != hash) {
      std::fprintf(stderr, "wtsim: NONDETERMINISM: seed %llu gave trace hash %s, then %s\n",
                   static_cast<unsigned long long>(o.seed), hash.c_str(), hash2.c_str());
      return kNondeterministic;
    }
    if (!o.quiet) std::printf("determinism: second run gave the same trace hash %s\n", hash2.c_str());
  }
  return result.ok ? kHeld : kViolated;
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
