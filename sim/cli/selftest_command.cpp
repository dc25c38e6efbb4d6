#include "sim/cli/selftest_command.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <fstream>
#include <optional>

#include <nlohmann/json.hpp>

#include "selftest/planted_bugs.h"
#include "sim/cli/run_command.h"
#include "sim/cli/seed_pool.h"

namespace wtsim::cli {
namespace {

struct BugResult {
  std::string name;
  std::optional<uint64_t> caught_seed;  // the lowest seed that caught it
  uint64_t seeds_run = 0;
  double wall_s = 0;
  std::string caught_by;  // the first violated property, or how the run failed
  bool bad_input = false;  // the bug's scenario or settings were rejected: a broken catalogue
};

std::string trace_path(const SelftestOptions& o, const std::string& bug, uint64_t seed) {
  return o.out_dir + "/" + bug + "-seed-" + std::to_string(seed) + ".json";
}

// The first violated property of a finished run's trace.
std::string first_violation(const std::string& path) {
  std::ifstream in(path);
  const nlohmann::json doc = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (!doc.is_object() || !doc.contains("verdict")) return "(no trace)";
  const auto& v = doc["verdict"].value("violations", nlohmann::json::array());
  if (v.empty() || !v[0].contains("property")) return "(no violation listed)";
  return v[0]["property"].get<std::string>();
}

std::string failure_kind(int code, const std::string& path) {
  if (code == kViolated) return first_violation(path);
  if (code == kNondeterministic) return "nondeterminism";
  if (code > 128) return "tool crashed (signal " + std::to_string(code - 128) + ")";
  return "exit " + std::to_string(code);
}

BugResult hunt(const SelftestOptions& o, const std::string& exe, const planted::BugInfo& bug) {
  BugResult r{bug.name, std::nullopt, 0, 0, ""};
  std::vector<uint64_t> seeds;
  for (uint64_t s = 1; s <= o.seeds_max; ++s) seeds.push_back(s);
  const auto argv_for = [&](uint64_t seed) {
    std::vector<std::string> args = {"wtsim-planted", "run", o.scenarios_dir + "/" + bug.scenario, "--seed", std::to_string(seed),
                                     "--plant", bug.name, "--trace", trace_path(o, bug.name, seed), "-q"};
    for (const std::string& s : bug.overrides) args.insert(args.end(), {"--set", s});
    return args;
  };
  const double start_s = wall_seconds();
  run_seeds({exe, o.jobs, 0}, seeds, argv_for, [&](const SeedResult& s) {
    ++r.seeds_run;
    const std::string path = trace_path(o, bug.name, s.seed);
    if (s.exit_code == kBadInput) {
      r.bad_input = true;
      return false;
    }
    if (s.exit_code != kHeld && (!r.caught_seed || s.seed < *r.caught_seed)) {
      r.caught_seed = s.seed;
      r.caught_by = failure_kind(s.exit_code, path);
    } else {
      std::remove(path.c_str());
    }
    if (isatty(STDERR_FILENO)) std::fprintf(stderr, "\r%-28s %llu seeds   ", bug.name, static_cast<unsigned long long>(r.seeds_run));
    return !r.caught_seed;
  });
  r.wall_s = wall_seconds() - start_s;
  if (isatty(STDERR_FILENO)) std::fprintf(stderr, "\r%60s\r", "");
  return r;
}

void print_table(const SelftestOptions& o, const std::vector<BugResult>& results) {
  std::printf("%-27s %-7s %6s %8s  %s\n", "planted bug", "caught", "seeds", "wall s", "caught by");
  for (const BugResult& r : results) {
    if (r.bad_input) {
      std::printf("%-27s %-7s  its scenario or settings were rejected (run it by hand to see why)\n", r.name.c_str(), "ERROR");
      continue;
    }
    std::printf("%-27s %-7s %6llu %8.1f  %s\n", r.name.c_str(), r.caught_seed ? "yes" : "NO",
                static_cast<unsigned long long>(r.caught_seed ? *r.caught_seed : r.seeds_run), r.wall_s,
                r.caught_seed ? (r.caught_by + " (trace " + trace_path(o, r.name, *r.caught_seed) + ")").c_str()
                              : ("escaped " + std::to_string(o.seeds_max) + " seeds").c_str());
  }
}

}  // namespace

int selftest_command(const SelftestOptions& o) {
  const std::string exe = own_directory() + "/wtsim-planted";
  if (access(exe.c_str(), X_OK) != 0) {
    return std::fprintf(stderr, "wtsim: %s: not found; build with -DWTSIM_BUILD_SELFTEST=ON (the default)\n", exe.c_str()), kBadInput;
  }
  if (o.seeds_max < 1) return std::fprintf(stderr, "wtsim: --seeds-max must be at least 1\n"), kBadInput;
  std::vector<const planted::BugInfo*> chosen;
  for (const planted::BugInfo& b : planted::catalogue()) {
    bool wanted = o.bugs.empty();
    for (const std::string& name : o.bugs) wanted = wanted || name == b.name;
    if (wanted) chosen.push_back(&b);
  }
  for (const std::string& name : o.bugs) {
    if (!planted::find(name)) return std::fprintf(stderr, "wtsim: --bug %s: no such planted bug (see wtsim selftest --list)\n", name.c_str()), kBadInput;
  }
  if (mkdir(o.out_dir.c_str(), 0755) != 0 && errno != EEXIST) {
    return std::fprintf(stderr, "wtsim: %s: cannot create the traces directory\n", o.out_dir.c_str()), kBadInput;
  }
  std::vector<BugResult> results;
  for (const planted::BugInfo* b : chosen) results.push_back(hunt(o, exe, *b));
  print_table(o, results);
  for (const BugResult& r : results) {
    if (!r.caught_seed || r.bad_input) return kViolated;
  }
  return kHeld;
}

}  // namespace wtsim::cli
