#include "cli/replay_command.h"

#include <cstdio>
#include <exception>

#include "cli/run_command.h"
#include "runs/replay.h"

namespace wtsim::cli {
namespace {

std::string shorten(const nlohmann::json& j) {
  std::string s = j.dump();
  return s.size() > 300 ? s.substr(0, 297) + "..." : s;
}

}  // namespace

int replay_command(const std::string& trace_path, bool quiet) {
  runs::ReplayResult r;
  try {
    r = runs::replay_file(trace_path);  // either form; JSON Lines compared on the fly
  } catch (const std::exception& e) {
    std::fprintf(stderr, "wtsim: %s\n", e.what());
    return kBadInput;
  }
  if (r.divergence) {
    std::fprintf(stderr, "wtsim: replay of %s diverged at event %zu\n  expected: %s\n  got:      %s\n", trace_path.c_str(),
                 r.divergence->event_index, shorten(r.divergence->expected).c_str(), shorten(r.divergence->got).c_str());
    return kNondeterministic;
  }
  if (!quiet) {
    std::printf("%s: replayed %zu events identically; verdict %s\n", trace_path.c_str(), static_cast<size_t>(r.run.trace->event_count()),
                r.run.ok ? "OK" : "VIOLATED");
    for (const auto& v : r.run.violations) std::printf("  violated %s: %s\n", v.name(), v.detail.c_str());
  }
  return r.run.ok ? kHeld : kViolated;
}

}  // namespace wtsim::cli
