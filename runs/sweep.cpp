#include "runs/sweep.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cassert>
#include <cerrno>
#include <cstdio>
#include <limits>
#include <map>
#include <optional>
#include <sstream>

#include <nlohmann/json.hpp>

#include "faults/crash_mode.h"
#include "runs/exit_code.h"
#include "runs/explore.h"
#include "runs/seed_pool.h"
#include "runs/summary.h"
#include "sim/planted.h"
#include "world/world.h"

namespace wtsim::runs {
namespace {

constexpr int kJobsMax = 64;
constexpr uint64_t kPointsMax = 1'000'000;  // runs in one sweep
constexpr size_t kFailuresListed = 20;

struct Point {
  uint64_t disk_op = 0;
  faults::CrashMode mode = faults::CrashMode::kDropUnsynced;
};

std::string trace_of(const SweepOptions& o, const Point& p) {
  return o.out_dir + "/point-" + std::to_string(p.disk_op) + "-" + faults::to_string(p.mode) + ".json";
}

std::string plan_of(const Point& p) {
  return nlohmann::json::array({{{"kind", "crash"}, {"at_disk_op", p.disk_op}, {"mode", faults::to_string(p.mode)}}}).dump();
}

// The overrides that make a run this point's: no swarm, the one crash.
std::vector<std::string> point_overrides(const SweepOptions& o, const Point* p) {
  std::vector<std::string> sets = o.overrides;
  sets.push_back("swarm=null");
  sets.push_back("fault_plan=" + (p == nullptr ? std::string("[]") : plan_of(*p)));
  if (o.tail_ms >= 0) sets.push_back("end_after_recovery_ms=" + std::to_string(o.tail_ms));
  return sets;
}

bool parse_modes(const std::string& text, std::vector<faults::CrashMode>* out) {
  if (text == "all") {
    *out = {faults::CrashMode::kDropUnsynced, faults::CrashMode::kTornPrefix, faults::CrashMode::kSectorDamage};
    return true;
  }
  std::stringstream in(text);
  for (std::string name; std::getline(in, name, ',');) {
    const auto mode = faults::crash_mode_from_string(name);
    if (!mode) return false;
    out->push_back(*mode);
  }
  return !out->empty();
}

// A finished point's verdict from its facts: "held", "unsurvivable: REASON" or the first
// violated property; "" if they cannot be read.
std::string verdict_of(const std::string& facts_path) {
  const RunFacts f = read_facts(facts_path);
  if (!f.read) return "";
  if (!f.property.empty()) return f.property;
  if (!f.unsurvivable_reason.empty()) return "unsurvivable: " + f.unsurvivable_reason;
  return "held";
}

std::string outcome_of(const SeedResult& r, const std::string& facts_path) {
  if (r.timed_out) return "timed out";
  if (r.exit_code == kBadInput) return "bad input";
  if (r.exit_code != kHeld && r.exit_code != kViolated) return "tool crashed (exit " + std::to_string(r.exit_code) + ")";
  const std::string verdict = verdict_of(facts_path);
  if (verdict.empty()) return "no trace";
  return verdict == "held" || verdict.rfind("unsurvivable", 0) == 0 ? verdict : "violated " + verdict;
}

struct Tally {
  std::map<uint64_t, std::string> outcome;  // job -> outcome
  double start_s = wall_seconds();
};

void print_progress(const Tally& t, size_t total) {
  const double elapsed_s = wall_seconds() - t.start_s;
  const double rate = elapsed_s > 0 ? static_cast<double>(t.outcome.size()) / elapsed_s : 0;
  size_t failing = 0;
  for (const auto& [job, o] : t.outcome) failing += o != "held" && o.rfind("unsurvivable", 0) != 0;
  std::fprintf(stderr, "\r%zu/%zu points, %zu failing, %.1f points/s, ETA %.0f s   ", t.outcome.size(), total, failing, rate,
               rate > 0 ? static_cast<double>(total - t.outcome.size()) / rate : 0.0);
}

int print_summary(const SweepOptions& o, const Tally& t, const std::vector<Point>& points, uint64_t disk_ops) {
  const double elapsed_s = wall_seconds() - t.start_s;
  const std::string tail = o.tail_ms < 0 ? "to the end" : std::to_string(o.tail_ms) + " ms after recovery";
  std::printf("swept %zu crash points of %s (seed %llu, %llu persistence points, stride %llu, modes %s, runs end %s) in %.1f s (%.1f points/s)\n",
              t.outcome.size(), o.scenario_path.c_str(), static_cast<unsigned long long>(o.seed), static_cast<unsigned long long>(disk_ops),
              static_cast<unsigned long long>(o.stride), o.modes.c_str(), tail.c_str(), elapsed_s,
              elapsed_s > 0 ? static_cast<double>(t.outcome.size()) / elapsed_s : 0.0);
  std::map<std::string, size_t> counts;
  for (const auto& [job, outcome] : t.outcome) ++counts[outcome];
  std::printf("  %-44s %8s\n", "outcome", "points");
  for (const auto& [name, n] : counts) std::printf("  %-44s %8zu\n", name.c_str(), n);
  size_t listed = 0, failing = 0;
  for (const auto& [job, outcome] : t.outcome) {
    if (outcome == "held" || outcome.rfind("unsurvivable", 0) == 0) continue;
    ++failing;
    if (listed++ >= kFailuresListed) continue;
    const Point& p = points[job];
    const std::string trace = trace_of(o, p);
    if (access(trace.c_str(), R_OK) != 0) {
      std::string sets;
      for (const std::string& s : point_overrides(o, &p)) sets += " --set '" + s + "'";
      std::printf("  disk op %llu (%s): %s, no trace (run it alone: wtsim run %s --seed %llu%s)\n", static_cast<unsigned long long>(p.disk_op),
                  faults::to_string(p.mode), outcome.c_str(), o.scenario_path.c_str(), static_cast<unsigned long long>(o.seed), sets.c_str());
      continue;
    }
    std::printf("  disk op %llu (%s): %s, trace %s (wtsim replay / wtsim shrink it)\n", static_cast<unsigned long long>(p.disk_op),
                faults::to_string(p.mode), outcome.c_str(), trace.c_str());
  }
  if (listed > kFailuresListed) std::printf("  ... and %zu more failing points, traces in %s\n", listed - kFailuresListed, o.out_dir.c_str());
  return failing > 0 ? kViolated : kHeld;
}

// Which points a sweep takes: every --stride-th mutating op in --points (default all), in each
// of --modes.
struct PointFilter {
  std::vector<faults::CrashMode> modes;
  uint64_t from = 1, to = std::numeric_limits<uint64_t>::max(), stride = 1;
  bool takes(uint64_t op) const { return op >= from && op <= to && (op - from) % stride == 0; }
};

// False (with a message naming the option) on bad input.
bool parse_filter(const SweepOptions& o, PointFilter* f) {
  if (!parse_modes(o.modes, &f->modes)) return std::fprintf(stderr, "wtsim: --modes %s: expected all, or a comma list of drop_unsynced, torn_prefix, sector_damage\n", o.modes.c_str()), false;
  if (!o.points.empty() && (!parse_seed_range(o.points, &f->from, &f->to) || f->from == 0)) {
    return std::fprintf(stderr, "wtsim: --points %s: expected A..B with 1 <= A <= B\n", o.points.c_str()), false;
  }
  if (o.stride < 1) return std::fprintf(stderr, "wtsim: --stride must be at least 1\n"), false;
  f->stride = o.stride;
  return true;
}

// The points of a run with `disk_ops` persistence points.
bool plan_points(const PointFilter& f, uint64_t disk_ops, std::vector<Point>* out) {
  for (uint64_t op = f.from; op <= std::min(f.to, disk_ops); op += f.stride) {
    assert(op >= 1 && op <= disk_ops && f.stride >= 1);
    for (const faults::CrashMode m : f.modes) out->push_back({op, m});
    if (out->size() > kPointsMax) return std::fprintf(stderr, "wtsim: more than %llu points: use --stride or --points\n", static_cast<unsigned long long>(kPointsMax)), false;
  }
  return true;
}

// A scenario that fails without any crash has nothing to sweep: says so, with the command.
int refuse_failing_base(const SweepOptions& o, const world::RunResult& base) {
  std::fprintf(stderr, "wtsim: %s fails without any crash (%s: %s): fix that first (wtsim run %s --seed %llu --set fault_plan=[] --set swarm=null)\n",
               o.scenario_path.c_str(), base.violations.front().name(), base.violations.front().detail.c_str(), o.scenario_path.c_str(),
               static_cast<unsigned long long>(o.seed));
  return kViolated;
}

// --- Sweeping from snapshots: one run, forked at each point -------------------------------------

// The children of a snapshot sweep, forked from the one run at their points.
class Forks {
 public:
  Forks(const SweepOptions& o, Tally& t, std::vector<Point>& points)
      : o_(o), t_(t), points_(points), children_(o.point_timeout_s) {}

  // At op: one child per mode, each arming its crash at this very operation. Returns in the child
  // (its point's index set) as in the parent.
  void at(faults::FaultInjector& injector, uint64_t op, const std::vector<faults::CrashMode>& modes) {
    for (const faults::CrashMode mode : modes) {
      if (points_.size() >= kPointsMax) return;
      while (children_.size() >= static_cast<size_t>(o_.jobs)) record(children_.wait(/*block=*/true));
      while (record(children_.wait(/*block=*/false))) {
      }
      points_.push_back({op, mode});
      std::fflush(nullptr);
      const pid_t pid = fork();
      if (pid == 0) {
        child_ = points_.size() - 1;
        faults::Fault crash;
        crash.kind = faults::FaultKind::kCrash;
        crash.at_disk_op = op;
        crash.crash_mode = mode;
        injector.add(crash);
        return;
      }
      if (pid < 0) return void(t_.outcome[points_.size() - 1] = "not started (fork failed)");
      children_.add(pid, points_.size() - 1);
    }
  }

  void wait_all() {
    while (record(children_.wait(/*block=*/true))) {
    }
  }
  std::optional<size_t> child() const { return child_; }

 private:
  // A point's outcome from its child's end; false if there was none.
  bool record(const std::optional<SeedResult>& r) {
    if (!r) return false;
    const std::string trace = trace_of(o_, points_[r->seed]);
    t_.outcome[r->seed] = outcome_of(*r, facts_path_of(trace));
    std::remove(facts_path_of(trace).c_str());
    if (isatty(STDERR_FILENO) != 0) print_progress(t_, points_.size());
    return true;
  }

  const SweepOptions& o_;
  Tally& t_;
  std::vector<Point>& points_;
  Children children_;
  std::optional<size_t> child_;
};

// In a forked child, after its run: the facts (and, for a failure, the trace of the same run from
// the start, so that it replays), then the child's exit.
[[noreturn]] void finish_child(const SweepOptions& o, const Point& p, const world::RunResult& r) {
  const std::string trace = trace_of(o, p);
  write_facts(facts_path_of(trace), r.trace->verdict(), r.trace->hash());
  if (!r.ok || !r.unsurvivable.empty()) {
    try {
      const world::RunResult again = world::run_scenario(world::draw_knobs(world::load_scenario(o.scenario_path, point_overrides(o, &p)), o.seed), o.seed);
      again.trace->write(trace);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "wtsim: %s\n", e.what());
    }
  }
  std::fflush(nullptr);
  _exit(r.ok ? kHeld : kViolated);
}

int sweep_from_snapshots(const SweepOptions& o, const PointFilter& filter, const world::Scenario& scenario) {
  Tally t;
  std::vector<Point> points;
  Forks forks(o, t, points);
  const world::RunResult base = world::run_scenario_forking(scenario, o.seed, [&](faults::FaultInjector& injector, uint64_t op) {
    if (forks.child() || !filter.takes(op)) return;
    forks.at(injector, op, filter.modes);
  });
  if (forks.child()) finish_child(o, points[*forks.child()], base);
  forks.wait_all();
  if (isatty(STDERR_FILENO) != 0) std::fprintf(stderr, "\n");
  if (!base.ok) return refuse_failing_base(o, base);
  return print_summary(o, t, points, base.stats.fault_phase_disk_ops);
}

}  // namespace

int sweep(const SweepOptions& o) {
  if (!o.plant.empty()) {
    const auto bug = planted::find(o.plant);
    if (!bug) return std::fprintf(stderr, "wtsim: --plant %s: no such planted bug (see wtsim selftest --list)\n", o.plant.c_str()), kBadInput;
    planted::enable(*bug);  // the baseline run in this process; the points' runs get --plant
  }
  if (o.jobs < 1 || o.jobs > kJobsMax) return std::fprintf(stderr, "wtsim: --jobs %d: expected 1..%d\n", o.jobs, kJobsMax), kBadInput;
  PointFilter filter;
  if (!parse_filter(o, &filter)) return kBadInput;
  world::Scenario scenario;
  try {
    scenario = world::draw_knobs(world::load_scenario(o.scenario_path, point_overrides(o, nullptr)), o.seed);
  } catch (const std::invalid_argument& e) {
    return std::fprintf(stderr, "wtsim: %s\n", e.what()), kBadInput;
  }
  if (mkdir(o.out_dir.c_str(), 0755) != 0 && errno != EEXIST) return std::fprintf(stderr, "wtsim: cannot create %s\n", o.out_dir.c_str()), kBadInput;
  if (!o.from_start) return sweep_from_snapshots(o, filter, scenario);
  // The run without a crash: it must hold, and it counts the persistence points.
  const world::RunResult base = world::run_scenario(scenario, o.seed);
  if (!base.ok) return refuse_failing_base(o, base);
  std::vector<Point> points;
  if (!plan_points(filter, base.stats.fault_phase_disk_ops, &points)) return kBadInput;
  std::vector<uint64_t> jobs(points.size());
  for (size_t i = 0; i < jobs.size(); ++i) jobs[i] = i;
  PoolOptions pool{"/proc/self/exe", o.jobs, 0, o.point_timeout_s};
  const bool tty = isatty(STDERR_FILENO) != 0;
  Tally t;
  const auto argv_for = [&](uint64_t job) {
    const std::string trace = trace_of(o, points[job]);
    std::vector<std::string> argv = {"wtsim", "run", o.scenario_path, "--seed", std::to_string(o.seed), "-q", "--trace", trace,
                                     "--facts", facts_path_of(trace), "--trace-if-failed"};
    for (const std::string& s : point_overrides(o, &points[job])) argv.insert(argv.end(), {"--set", s});
    if (!o.plant.empty()) argv.insert(argv.end(), {"--plant", o.plant});
    return argv;
  };
  const bool started = run_seeds(pool, jobs, argv_for, [&](const SeedResult& r) {
    const std::string trace = trace_of(o, points[r.seed]);
    const std::string outcome = outcome_of(r, facts_path_of(trace));
    std::remove(facts_path_of(trace).c_str());
    t.outcome[r.seed] = outcome;
    if (tty) print_progress(t, points.size());
    return true;
  });
  if (tty) std::fprintf(stderr, "\n");
  if (!started) return std::fprintf(stderr, "wtsim: could not start %s\n", pool.exe.c_str()), kBadInput;
  return print_summary(o, t, points, base.stats.fault_phase_disk_ops);
}

}  // namespace wtsim::runs
