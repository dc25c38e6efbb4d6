#include "runs/selftest.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <fstream>
#include <map>
#include <optional>

#include <nlohmann/json.hpp>

#include "properties/violation.h"
#include "runs/planted_catalogue.h"
#include "runs/exit_code.h"
#include "runs/seed_pool.h"
#include "traces/client_operations.h"

namespace wtsim::runs {
namespace {

constexpr size_t kFalseCatchesMax = 8;  // seeds that fail with the bug off too, before giving up

struct BugResult {
  const BugInfo* bug = nullptr;
  std::optional<uint64_t> caught_seed;  // the lowest seed that caught it, confirmed with the bug off
  uint64_t seeds_run = 0;
  double wall_s = 0;
  std::vector<std::string> caught_by;  // the catching run's violated properties, in order
  std::vector<std::string> false_catches;  // "seed N (property)": failed with the bug off as well
  bool bad_input = false;  // the bug's scenario or settings were rejected: a broken catalogue
  // The catching run's size (client operations, events) before and after shrinking.
  struct Size {
    uint64_t operations = 0, events = 0;
  };
  Size original;
  std::optional<Size> shrunk;
  double shrink_s = 0;
  std::string shrunk_fails_bug_off;  // the shrunk run's property, if its run with the bug off fails it too
  bool expected_caught() const {
    for (const std::string& p : caught_by) {
      if (p == properties::name_of(bug->property)) return true;
    }
    return false;
  }
};

std::string trace_path(const SelftestOptions& o, const std::string& bug, uint64_t seed, const char* suffix = "") {
  return o.out_dir + "/" + bug + "-seed-" + std::to_string(seed) + suffix + ".json";
}

nlohmann::json read_json(const std::string& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
}

// The violated properties of a finished run's trace, in order, each once.
std::vector<std::string> violations_of(const std::string& path) {
  const nlohmann::json doc = read_json(path);
  std::vector<std::string> out;
  if (!doc.is_object() || !doc.contains("verdict")) return {"(no trace)"};
  for (const auto& v : doc["verdict"].value("violations", nlohmann::json::array())) {
    const std::string p = v.value("property", "?");
    if (std::find(out.begin(), out.end(), p) == out.end()) out.push_back(p);
  }
  if (out.empty()) out.push_back("(no violation listed)");
  return out;
}

std::vector<std::string> failure_kind(int code, const std::string& path) {
  if (code == kViolated) return violations_of(path);
  if (code == kNondeterministic) return {"nondeterminism"};
  if (code > 128) return {"tool crashed (signal " + std::to_string(code - 128) + ")"};
  return {"exit " + std::to_string(code)};
}

std::vector<std::string> run_args(const SelftestOptions& o, const BugInfo& bug, uint64_t seed, bool planted,
                                  const std::string& trace) {
  std::vector<std::string> args = {"wtsim-planted", "run", o.scenarios_dir + "/" + bug.scenario, "--seed", std::to_string(seed)};
  if (planted) args.insert(args.end(), {"--plant", bug.name()});
  args.insert(args.end(), {"--trace", trace, "-q"});
  for (const std::string& s : bug.overrides) args.insert(args.end(), {"--set", s});
  return args;
}

// The lowest seed in [from, seeds_max] whose run with the bug on fails, or none.
std::optional<uint64_t> first_failing_seed(const SelftestOptions& o, const std::string& exe, BugResult& r, uint64_t from) {
  std::vector<uint64_t> seeds;
  for (uint64_t s = from; s <= o.seeds_max; ++s) seeds.push_back(s);
  std::optional<uint64_t> found;
  run_seeds({exe, o.jobs, 0}, seeds, [&](uint64_t seed) { return run_args(o, *r.bug, seed, true, trace_path(o, r.bug->name(), seed)); },
            [&](const SeedResult& s) {
              ++r.seeds_run;
              const std::string path = trace_path(o, r.bug->name(), s.seed);
              if (s.exit_code == kBadInput) {
                r.bad_input = true;
                return false;
              }
              if (s.exit_code != kHeld && (!found || s.seed < *found)) {
                if (found) std::remove(trace_path(o, r.bug->name(), *found).c_str());
                found = s.seed;
                r.caught_by = failure_kind(s.exit_code, path);
              } else {
                std::remove(path.c_str());
              }
              if (isatty(STDERR_FILENO)) std::fprintf(stderr, "\r%-28s %llu seeds   ", r.bug->name(), static_cast<unsigned long long>(r.seeds_run));
              return !found;
            });
  return found;
}

// A catch counts only if the same seed holds with the bug off: "" if it does, else how it failed.
std::string fails_with_bug_off(const SelftestOptions& o, const std::string& exe, const BugInfo& bug, uint64_t seed) {
  const std::string path = trace_path(o, bug.name(), seed, ".bug-off");
  int code = -1;
  run_seeds({exe, 1, 0}, {seed}, [&](uint64_t s) { return run_args(o, bug, s, false, path); },
            [&](const SeedResult& s) { return code = s.exit_code, false; });
  if (code == kHeld) {
    std::remove(path.c_str());
    return "";
  }
  return failure_kind(code, path).front();
}

BugResult::Size size_of(const nlohmann::json& trace) {
  BugResult::Size size;
  if (!trace.is_object() || !trace.contains("events") || !trace["events"].is_array()) return size;
  traces::ClientOperationCounter counter;
  for (const nlohmann::json& e : trace["events"]) counter.add(e);
  return {counter.count(), trace["events"].size()};
}

// Whether the shrunk trace's scenario and seed, run with the bug off, fail `property` too: a
// shrink counts only if the bug is what still fails it (a setting no correct build could meet, a
// liveness phase too short to elect in, would fail it as well).
bool shrunk_fails_with_bug_off(const SelftestOptions& o, const std::string& exe, const nlohmann::json& shrunk,
                               const std::string& property) {
  const nlohmann::json& header = shrunk.at("header");
  const std::string scenario = o.out_dir + "/shrunk-bug-off-scenario.json", trace = o.out_dir + "/shrunk-bug-off.json";
  std::ofstream(scenario) << header.at("scenario").dump(2);
  const uint64_t seed = header.at("seed").get<uint64_t>();
  int code = -1;
  run_seeds({exe, 1, 0}, {seed},
            [&](uint64_t s) {
              return std::vector<std::string>{"wtsim-planted", "run", scenario, "--seed", std::to_string(s), "--trace", trace, "-q"};
            },
            [&](const SeedResult& s) { return code = s.exit_code, false; });
  const std::vector<std::string> failed = code == kHeld ? std::vector<std::string>{} : failure_kind(code, trace);
  std::remove(scenario.c_str());
  std::remove(trace.c_str());
  return std::find(failed.begin(), failed.end(), property) != failed.end() || (code != kHeld && code != kViolated);
}

// Shrinks the catching trace with the bug on; the shrunk run's client operations.
void shrink_catch(const SelftestOptions& o, const std::string& exe, BugResult& r) {
  const std::string in = trace_path(o, r.bug->name(), *r.caught_seed), out = trace_path(o, r.bug->name(), *r.caught_seed, ".shrunk");
  const double start_s = wall_seconds();
  int code = -1;
  run_seeds({exe, 1, 0}, {0},
            [&](uint64_t) {
              return std::vector<std::string>{"wtsim-planted", "shrink", in, "-o", out, "-q", "--time-budget",
                                              std::to_string(o.shrink_budget_s), "--jobs", std::to_string(o.jobs)};
            },
            [&](const SeedResult& s) { return code = s.exit_code, false; });
  r.shrink_s = wall_seconds() - start_s;
  r.original = size_of(read_json(in));
  const nlohmann::json doc = read_json(out);
  if (code != kHeld || !doc.is_object() || !doc.contains("verdict")) return;
  r.shrunk = size_of(doc);
  // The shrinker keeps the catching run's first violation.
  const std::string property = violations_of(in).front();
  if (shrunk_fails_with_bug_off(o, exe, doc, property)) r.shrunk_fails_bug_off = property, r.shrunk.reset();
}

BugResult hunt(const SelftestOptions& o, const std::string& exe, const BugInfo& bug) {
  BugResult r;
  r.bug = &bug;
  const double start_s = wall_seconds();
  for (uint64_t from = 1; from <= o.seeds_max && !r.bad_input;) {
    const std::optional<uint64_t> seed = first_failing_seed(o, exe, r, from);
    if (!seed || r.bad_input) break;
    const std::string off = fails_with_bug_off(o, exe, bug, *seed);
    if (off.empty()) {
      r.caught_seed = seed;
      break;
    }
    r.false_catches.push_back("seed " + std::to_string(*seed) + " (" + off + ")");
    if (r.false_catches.size() == kFalseCatchesMax) break;
    from = *seed + 1;
  }
  r.wall_s = wall_seconds() - start_s;
  if (isatty(STDERR_FILENO)) std::fprintf(stderr, "\r%60s\r", "");
  if (r.caught_seed && o.shrink_budget_s > 0) shrink_catch(o, exe, r);
  return r;
}

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& s : items) out += (out.empty() ? "" : ", ") + s;
  return out;
}

// "12/577 (2.1 %)": the shrunk run's count, the original's and the share; "-" if not shrunk.
std::string shrunk_text(uint64_t after, uint64_t before, bool none) {
  if (none) return "-";
  const double percent = before == 0 ? 100.0 : 100.0 * static_cast<double>(after) / static_cast<double>(before);
  char share[32];
  std::snprintf(share, sizeof share, percent < 1 ? " (%.2f %%)" : " (%.1f %%)", percent);
  return std::to_string(after) + "/" + std::to_string(before) + share;
}

void print_bug_row(const SelftestOptions& o, const BugResult& r) {
  const char* name = r.bug->name();
  if (r.bad_input) {
    std::printf("%-27s %-7s  its scenario or settings were rejected (run it by hand to see why)\n", name, "ERROR");
    return;
  }
  const char* verdict = !r.caught_seed ? "NO" : r.expected_caught() ? "yes" : "OTHER";
  std::printf("%-27s %-7s %6llu %8.1f %22s %24s %7s  %s\n", name, verdict,
              static_cast<unsigned long long>(r.caught_seed ? *r.caught_seed : r.seeds_run), r.wall_s,
              shrunk_text(r.shrunk ? r.shrunk->operations : 0, r.original.operations, !r.shrunk).c_str(),
              shrunk_text(r.shrunk ? r.shrunk->events : 0, r.original.events, !r.shrunk).c_str(),
              r.shrunk ? (std::to_string(static_cast<int>(r.shrink_s + 0.5)) + " s").c_str() : "-",
              r.caught_seed ? (join(r.caught_by) + " (trace " + trace_path(o, name, *r.caught_seed) + ")").c_str()
                            : ("escaped " + std::to_string(o.seeds_max) + " seeds").c_str());
  if (r.caught_seed && !r.expected_caught()) std::printf("%29s expected %s to catch it\n", "", properties::name_of(r.bug->property));
  if (!r.false_catches.empty()) {
    std::printf("%29s not counted, failed with the bug off too: %s\n", "", join(r.false_catches).c_str());
  }
  if (!r.shrunk_fails_bug_off.empty()) {
    std::printf("%29s shrunk run not counted: it fails %s with the bug off too\n", "", r.shrunk_fails_bug_off.c_str());
  }
}

// Per property: the planted bugs it caught (as the bug's expected property).
void print_properties(const std::vector<BugResult>& results) {
  std::printf("\n%-32s %s\n", "property", "planted bugs it caught");
  for (const properties::PropertyInfo& p : properties::catalogue()) {
    std::vector<std::string> bugs, missed;
    for (const BugResult& r : results) {
      if (r.bug->property != p.property) continue;
      (r.caught_seed && r.expected_caught() ? bugs : missed).push_back(r.bug->name());
    }
    std::string line = bugs.empty() ? "-" : join(bugs);
    if (!missed.empty()) line += " (NOT caught: " + join(missed) + ")";
    std::printf("%-32s %s\n", p.name, line.c_str());
  }
}

}  // namespace

int selftest(const SelftestOptions& o) {
  const std::string exe = own_directory() + "/wtsim-planted";
  if (access(exe.c_str(), X_OK) != 0) {
    return std::fprintf(stderr, "wtsim: %s: not found; build with -DWTSIM_BUILD_SELFTEST=ON (the default)\n", exe.c_str()), kBadInput;
  }
  if (o.seeds_max < 1) return std::fprintf(stderr, "wtsim: --seeds-max must be at least 1\n"), kBadInput;
  std::vector<const BugInfo*> chosen;
  for (const BugInfo& b : catalogue()) {
    bool wanted = o.bugs.empty();
    for (const std::string& name : o.bugs) wanted = wanted || name == b.name();
    if (wanted) chosen.push_back(&b);
  }
  for (const std::string& name : o.bugs) {
    if (!planted::find(name)) return std::fprintf(stderr, "wtsim: --bug %s: no such planted bug (see wtsim selftest --list)\n", name.c_str()), kBadInput;
  }
  if (mkdir(o.out_dir.c_str(), 0755) != 0 && errno != EEXIST) {
    return std::fprintf(stderr, "wtsim: %s: cannot create the traces directory\n", o.out_dir.c_str()), kBadInput;
  }
  std::printf("%-27s %-7s %6s %8s %22s %24s %7s  %s\n", "planted bug", "caught", "seeds", "wall s", "shrunk: client ops",
              "events", "took", "caught by");
  std::vector<BugResult> results;
  for (const BugInfo* b : chosen) {
    results.push_back(hunt(o, exe, *b));
    print_bug_row(o, results.back());
    std::fflush(stdout);
  }
  if (o.bugs.empty()) print_properties(results);
  for (const BugResult& r : results) {
    if (!r.caught_seed || r.bad_input || !r.expected_caught()) return kViolated;
  }
  return kHeld;
}

}  // namespace wtsim::runs
