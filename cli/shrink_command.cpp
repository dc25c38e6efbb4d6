#include "cli/shrink_command.h"

#include <unistd.h>

#include <cstdio>
#include <exception>
#include <fstream>

#include "cli/run_command.h"
#include "runs/shrink.h"
#include "traces/trace_reader.h"
#include "traces/trace_stream.h"

namespace wtsim::cli {
namespace {

double percent(uint64_t after, uint64_t before) { return before == 0 ? 100.0 : 100.0 * after / before; }

runs::ShrinkProgressFn progress_line() {
  if (isatty(STDERR_FILENO) == 0) return nullptr;
  return [](const runs::ShrinkProgress& p) {
    std::fprintf(stderr, "\r\033[Kshrink: %zu runs, events %llu -> %llu (%.1f %%), pass: %s", p.runs,
                 static_cast<unsigned long long>(p.events_before), static_cast<unsigned long long>(p.events_now),
                 percent(p.events_now, p.events_before), p.pass);
  };
}

void print_reduction(const ShrinkOptions& o, const runs::ShrinkResult& r, uint64_t seed) {
  const auto& b = r.before;
  const auto& a = r.after;
  std::printf("shrunk %s (%s, seed %llu) -> %s\n", o.trace_path.c_str(), r.property.c_str(),
              static_cast<unsigned long long>(seed), o.out_path.c_str());
  std::printf("  events      %llu -> %llu (%.2f %%)\n", static_cast<unsigned long long>(b.events),
              static_cast<unsigned long long>(a.events), percent(a.events, b.events));
  std::printf("  operations  %llu -> %llu (%.2f %%) by clients\n", static_cast<unsigned long long>(b.operations),
              static_cast<unsigned long long>(a.operations), percent(a.operations, b.operations));
  std::printf("  fault plan  %llu -> %llu entries\n", static_cast<unsigned long long>(b.faults),
              static_cast<unsigned long long>(a.faults));
  std::printf("  duration    %llu -> %llu ms\n", static_cast<unsigned long long>(b.duration_ms),
              static_cast<unsigned long long>(a.duration_ms));
  std::printf("  %zu runs, %.1f s wall (%s)\n", r.runs, r.wall_s,
              r.budget_exhausted ? "stopped by the run or time budget" : "nothing smaller fails");
}

void write_trace(const traces::Trace& t, const std::string& path) {
  if (traces::has_jsonl_extension(path)) {
    traces::write_jsonl(t, path);
  } else {
    t.write(path);
  }
}

}  // namespace

int shrink_command(const ShrinkOptions& o) {
  traces::LoadedTrace trace;
  if (!load_trace_or_complain(o.trace_path, &trace)) return kBadInput;
  const nlohmann::json& violations = trace.doc["verdict"].value("violations", nlohmann::json::array());
  if (!violations.is_array() || violations.empty() || !violations[0].contains("property")) {
    std::fprintf(stderr, "wtsim: %s: the trace's verdict has no violation: nothing to shrink\n", o.trace_path.c_str());
    return kBadInput;
  }
  if (!std::ofstream(o.out_path + ".tmp")) {  // before minutes of shrinking
    std::fprintf(stderr, "wtsim: %s: cannot open for writing\n", o.out_path.c_str());
    return kBadInput;
  }
  std::remove((o.out_path + ".tmp").c_str());
  const std::string property = violations[0]["property"].get<std::string>();
  const uint64_t seed = trace.doc["header"]["seed"].get<uint64_t>();
  runs::ShrinkResult r;
  try {
    r = runs::shrink(trace.doc["header"], property, {o.max_runs, o.time_budget_s, o.jobs},
                      o.quiet ? nullptr : progress_line());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "\nwtsim: %s\n", e.what());
    return kBadInput;
  }
  if (!o.quiet && isatty(STDERR_FILENO) != 0) std::fprintf(stderr, "\n");
  if (!r.reproduced) {
    std::fprintf(stderr, "wtsim: %s: the trace's failure does not reproduce: seed %llu re-run from its header did not violate %s\n",
                 o.trace_path.c_str(), static_cast<unsigned long long>(seed), property.c_str());
    return kViolated;
  }
  try {
    write_trace(*r.minimal.trace, o.out_path);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "wtsim: %s\n", e.what());
    return kBadInput;
  }
  if (!o.quiet) print_reduction(o, r, seed);
  return kHeld;
}

}  // namespace wtsim::cli
