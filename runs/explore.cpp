#include "runs/explore.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cassert>
#include <cerrno>
#include <cstdio>
#include <algorithm>
#include <charconv>
#include <map>
#include <regex>
#include <set>


#include "properties/coverage.h"
#include "runs/exit_code.h"
#include "runs/seed_pool.h"
#include "runs/summary.h"
#include "world/scenario.h"

namespace wtsim::runs {
namespace {

constexpr int kJobsMax = 64;
constexpr uint64_t kRecheckBit = 1ull << 62;  // a pool job id with it is a seed's second run
// Not an exit code: a run that held, in which a fault no node survives was classified
// (verdict "unsurvivable"). Counted apart from both held and violated.
constexpr int kHeldUnsurvivable = -1;
// Not an exit code either: a run killed after --seed-timeout (a hang of the tool or of WiredTiger).
constexpr int kTimedOut = -2;
constexpr int kNotYet = -1000;  // a rechecked seed's run that has not ended

bool parse_shard(const std::string& text, uint64_t* k, uint64_t* n) {
  std::smatch m;
  if (!std::regex_match(text, m, std::regex(R"((\d{1,9})/(\d{1,9}))"))) return false;
  *k = std::stoull(m[1]);
  *n = std::stoull(m[2]);
  return *n >= 1 && *k >= 1 && *k <= *n;
}

const char* outcome_name(int code) {
  switch (code) {
    case kHeld: return "held";
    case kHeldUnsurvivable: return "unsurvivable fault";
    case kViolated: return "violated";
    case kBadInput: return "bad input";
    case kNondeterministic: return "nondeterministic";
    case kTimedOut: return "timed out";
    default: return "tool crashed";
  }
}

std::string trace_of(const ExploreOptions& o, uint64_t seed) { return o.out_dir + "/seed-" + std::to_string(seed) + ".json"; }
std::string recheck_trace_of(const ExploreOptions& o, uint64_t seed) {
  return o.out_dir + "/seed-" + std::to_string(seed) + ".recheck.json";
}


// Which seeds run twice: round(n * fraction) of them (at least one if the fraction is not 0),
// spread evenly over the list.
std::vector<bool> recheck_set(size_t n, double fraction) {
  std::vector<bool> out(n, false);
  if (n == 0 || fraction <= 0) return out;
  const size_t count = std::clamp<size_t>(static_cast<size_t>(static_cast<double>(n) * fraction + 0.5), 1, n);
  for (size_t i = 0; i < count; ++i) out[i * n / count] = true;
  return out;
}

// The fault kinds a scenario can draw (its swarm) or has (its explicit plan).
std::vector<std::string> possible_faults(const world::Scenario& s) {
  std::vector<std::string> kinds;
  if (s.fault_plan) {
    for (const auto& f : s.fault_plan->faults) kinds.push_back(faults::to_string(f.kind));
  } else {
    const faults::SwarmSpec& w = s.swarm;
    if (w.crashes_max > 0) kinds.push_back("crash");
    if (w.io_error_chance > 0) kinds.push_back("io_error");
    if (w.disk_full_chance > 0) kinds.push_back("disk_full");
    if (w.latency_chance > 0) kinds.push_back("latency");
  }
  // A replica set's: the primary's crashes make members diverge; network windows heal.
  // With elections, a primary cut off from the others is replaced too.
  const bool primary_crashes = std::find(kinds.begin(), kinds.end(), "crash") != kinds.end();
  const std::optional<world::ReplicaSetSwarm>& rs_swarm = s.replica_set.swarm;
  using Kind = world::NetworkFault::Kind;
  const auto listed = [&](auto is) { return std::any_of(s.replica_set.network_faults.begin(), s.replica_set.network_faults.end(), is); };
  const bool network = listed([](const auto& f) { return f.kind != Kind::kPause && f.kind != Kind::kStepDown; }) || (rs_swarm && rs_swarm->network_faults_max > 0);
  const bool pause = listed([](const auto& f) { return f.kind == Kind::kPause; }) || (rs_swarm && rs_swarm->pauses_max > 0);
  const bool step_down = listed([](const auto& f) { return f.kind == Kind::kStepDown; }) || (rs_swarm && rs_swarm->step_downs_max > 0);
  const bool elections = s.replica_set.elections && s.replica_set.size() > 1 && (primary_crashes || network || pause || step_down);
  if (s.replica_set.size() > 1 && (primary_crashes || elections)) kinds.push_back("replica_set");
  if (network) kinds.push_back("network");
  if (pause) kinds.push_back("pause");
  if (step_down) kinds.push_back("step_down");
  if (elections) kinds.push_back("elections");
  return kinds;
}

struct Tally {
  std::map<uint64_t, int> outcome;              // seed -> exit code, in seed order
  size_t rechecked = 0, recheck_mismatches = 0;
  std::map<std::string, uint64_t> marker_seeds;  // marker -> seeds that reached it
  double start_s = wall_seconds();
  size_t failed() const {
    size_t n = 0;
    for (const auto& [s, c] : outcome) n += c != kHeld && c != kHeldUnsurvivable ? 1 : 0;
    return n;
  }
};

void print_progress(const Tally& t, size_t total) {
  const double elapsed_s = wall_seconds() - t.start_s;
  const double rate = elapsed_s > 0 ? static_cast<double>(t.outcome.size()) / elapsed_s : 0;
  const double eta_s = rate > 0 ? static_cast<double>(total - t.outcome.size()) / rate : 0;
  std::fprintf(stderr, "\r%zu/%zu seeds, %zu failing, %.1f seeds/s, ETA %.0f s   ", t.outcome.size(), total, t.failed(), rate, eta_s);
}

// The markers the options require that no seed reached (empty when coverage is not required).
std::vector<std::string> missing_markers(const ExploreOptions& o, const Tally& t, const world::Scenario& scenario) {
  std::vector<std::string> out;
  for (const auto& m : properties::coverage_catalogue()) {
    const bool named = std::find(o.required_markers.begin(), o.required_markers.end(), m.name) != o.required_markers.end();
    const bool required = named || (o.require_coverage && properties::applies_to(m, world::to_string(scenario.workload.kind), possible_faults(scenario)));
    if (required && t.marker_seeds.count(m.name) == 0) out.push_back(m.name);
  }
  return out;
}

void print_summary(const ExploreOptions& o, const Tally& t, const Summary& summary) {
  const double elapsed_s = wall_seconds() - t.start_s;
  std::printf("explored %zu of %llu seeds of %s (%s, shard %s) in %.1f s (%.2f seeds/s)\n", t.outcome.size(),
              static_cast<unsigned long long>(summary.seeds_planned), o.scenario_path.c_str(), o.seeds.c_str(), o.shard.c_str(), elapsed_s,
              elapsed_s > 0 ? static_cast<double>(t.outcome.size()) / elapsed_s : 0.0);
  if (t.outcome.size() < summary.seeds_planned) {
    std::printf("  time budget of %.0f s reached: %llu seeds not run\n", o.time_budget_s,
                static_cast<unsigned long long>(summary.seeds_planned - t.outcome.size()));
  }
  if (o.recheck_fraction > 0) {
    std::printf("  rechecked %zu seeds in a second process (--recheck %g): %zu nondeterministic\n", t.rechecked,
                o.recheck_fraction, t.recheck_mismatches);
  }
  print_table(summary);
}

// One seed's record for the summary, from its exit code and its trace (kept or about to go).
SeedRecord record_of(const ExploreOptions& o, uint64_t seed, int code, const RunFacts& f, const std::string& kept_trace) {
  SeedRecord r{seed, outcome_name(code), f.hash, f.property, f.detail, kept_trace};
  if (code == kTimedOut) {
    char after[64];
    std::snprintf(after, sizeof after, "after %g s", o.seed_timeout_s);
    r.detail = after;
  }
  if (code == kHeldUnsurvivable) r.property = f.unsurvivable_reason, r.detail = f.unsurvivable_detail;
  return r;
}

// The outputs --summary and --junit ask for; false (with a message) if one cannot be written.
bool write_outputs(const ExploreOptions& o, const Summary& summary) {
  try {
    if (!o.summary_path.empty()) write_file(o.summary_path, to_json(summary).dump(2) + "\n");
    if (!o.junit_path.empty()) write_file(o.junit_path, junit_xml(summary));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "wtsim: %s\n", e.what());
    return false;
  }
  return true;
}

}  // namespace

bool parse_seed(const std::string& text, uint64_t* seed) {
  if (text.empty() || text.size() > 20 || !std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; })) return false;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), *seed);
  return ec == std::errc() && end == text.data() + text.size();
}

bool parse_seed_range(const std::string& text, uint64_t* from, uint64_t* to) {
  const size_t dots = text.find("..");
  if (dots == std::string::npos) return false;
  if (!parse_seed(text.substr(0, dots), from) || !parse_seed(text.substr(dots + 2), to)) return false;
  return *from <= *to && *to < kSeedRangeLimit;
}

namespace {

// The options as given: false (with a message naming the option) if one is out of its bounds.
bool check_options(const ExploreOptions& o, uint64_t* from, uint64_t* to, uint64_t* shard_k, uint64_t* shard_n) {
  if (!parse_seed_range(o.seeds, from, to)) return std::fprintf(stderr, "wtsim: --seeds %s: expected A..B with A <= B < 10^18\n", o.seeds.c_str()), false;
  if (!parse_shard(o.shard, shard_k, shard_n)) return std::fprintf(stderr, "wtsim: --shard %s: expected K/N with 1 <= K <= N\n", o.shard.c_str()), false;
  for (const std::string& m : o.required_markers) {
    if (!properties::find_marker(m)) return std::fprintf(stderr, "wtsim: --require-marker %s: no such coverage marker (see wtsim coverage)\n", m.c_str()), false;
  }
  if (o.jobs < 1 || o.jobs > kJobsMax) return std::fprintf(stderr, "wtsim: --jobs %d: expected 1..%d\n", o.jobs, kJobsMax), false;
  if (o.time_budget_s < 0) return std::fprintf(stderr, "wtsim: --time-budget %g: expected seconds >= 0\n", o.time_budget_s), false;
  if (o.seed_timeout_s < 0) return std::fprintf(stderr, "wtsim: --seed-timeout %g: expected seconds >= 0\n", o.seed_timeout_s), false;
  return true;
}

// One explore: its seeds' runs in the pool, each rechecked seed's two runs compared, and the
// records, tally and summary they make.
class Explorer {
 public:
  Explorer(const ExploreOptions& o, const world::Scenario& scenario, std::vector<uint64_t> seeds)
      : o_(o), scenario_(scenario), seeds_(std::move(seeds)), recheck_(recheck_set(seeds_.size(), o.recheck_fraction)) {
    assert(recheck_.size() == seeds_.size());
    for (size_t i = 0; i < seeds_.size(); ++i) {
      if (recheck_[i]) rechecked_seeds_.insert(seeds_[i]);
    }
  }

  // Runs every seed; returns whether the pool could start its processes.
  bool run_all() {
    const PoolOptions pool{"/proc/self/exe", o_.jobs, o_.time_budget_s, o_.seed_timeout_s, o_.spawn_exec ? SpawnMode::kExec : SpawnMode::kFork};
    const bool started = run_seeds(
        pool, jobs(), [this](uint64_t job) { return argv_for(job); }, [this](const SeedResult& r) { return on_done(r); });
    settle_unfinished_rechecks();
    if (tty_) std::fprintf(stderr, "\n");
    return started;
  }

  int conclude(bool started, uint64_t from, uint64_t to) {
    if (!started) std::fprintf(stderr, "wtsim: could not start a run process\n");
    Summary summary{o_.scenario_path, scenario_.name, o_.overrides, from, to, o_.shard, seeds_.size(), {}, {}, wall_seconds() - tally_.start_s};
    for (auto& [seed, r] : records_) summary.seeds.push_back(std::move(r));
    for (const auto& m : properties::coverage_catalogue()) {
      if (!properties::applies_to(m, world::to_string(scenario_.workload.kind), possible_faults(scenario_))) continue;
      const auto it = tally_.marker_seeds.find(m.name);
      summary.coverage[m.name] = it == tally_.marker_seeds.end() ? 0 : it->second;
    }
    print_summary(o_, tally_, summary);
    const std::vector<std::string> missing = missing_markers(o_, tally_, scenario_);
    for (const std::string& m : missing) std::printf("  required coverage marker %s was never reached\n", m.c_str());
    const bool written = write_outputs(o_, summary);
    return tally_.failed() > 0 || !started || !missing.empty() || !written ? kViolated : kHeld;
  }

 private:
  // Each rechecked seed's second run follows its first in the pool (they may run at once).
  std::vector<uint64_t> jobs() const {
    std::vector<uint64_t> out;
    for (size_t i = 0; i < seeds_.size(); ++i) {
      out.push_back(seeds_[i]);
      if (recheck_[i]) out.push_back(seeds_[i] | kRecheckBit);
    }
    return out;
  }

  std::vector<std::string> argv_for(uint64_t job) const {
    const uint64_t seed = job & ~kRecheckBit;
    const std::string trace = (job & kRecheckBit) != 0 ? recheck_trace_of(o_, seed) : trace_of(o_, seed);
    std::vector<std::string> args = {"wtsim", "run", o_.scenario_path, "--seed", std::to_string(seed), "--trace", trace, "-q",
                                     "--facts", facts_path_of(trace)};
    if (rechecked_seeds_.count(seed) == 0) args.push_back("--trace-if-failed");  // a mismatch keeps both traces
    for (const std::string& s : o_.overrides) args.insert(args.end(), {"--set", s});
    return args;
  }

  void finish_seed(uint64_t seed, int exit_code) {
    const RunFacts facts = read_facts(facts_path_of(trace_of(o_, seed)));
    std::remove(facts_path_of(trace_of(o_, seed)).c_str());
    const bool unsurvivable = exit_code == kHeld && !facts.unsurvivable_reason.empty();
    const int code = unsurvivable ? kHeldUnsurvivable : exit_code;
    assert(tally_.outcome.count(seed) == 0 && "a seed ends once");
    tally_.outcome[seed] = code;
    for (const auto& [name, n] : facts.coverage) tally_.marker_seeds[name] += n > 0 ? 1 : 0;
    const bool keep = code != kHeld && access(trace_of(o_, seed).c_str(), R_OK) == 0;
    if (!keep) std::remove(trace_of(o_, seed).c_str());
    records_[seed] = record_of(o_, seed, code, facts, keep ? trace_of(o_, seed) : "");
    if (tty_) print_progress(tally_, seeds_.size());
  }

  bool on_done(const SeedResult& r) {
    const uint64_t seed = r.seed & ~kRecheckBit;
    const int code = r.timed_out ? kTimedOut : r.exit_code;
    if (rechecked_seeds_.count(seed) == 0) return finish_seed(seed, code), true;
    std::vector<int>& codes = recheck_codes_[seed];  // [first run, second run], in either order of ending
    codes.resize(2, kNotYet);
    codes[(r.seed & kRecheckBit) != 0 ? 1 : 0] = code;
    if (codes[0] != kNotYet && codes[1] != kNotYet) compare_runs(seed, codes);
    return true;
  }

  // Both runs of a rechecked seed are in: the same exit code and the same trace hash, or nondeterministic.
  void compare_runs(uint64_t seed, const std::vector<int>& codes) {
    ++tally_.rechecked;
    const std::string h1 = read_facts(facts_path_of(trace_of(o_, seed))).hash;
    const std::string h2 = read_facts(facts_path_of(recheck_trace_of(o_, seed))).hash;
    // Two runs that both ended without a trace (a crash of the tool) agree as far as can be told.
    const bool wrote_trace = codes[0] == kHeld || codes[0] == kViolated;
    const bool same_end = codes[0] == codes[1] && h1 == h2 && (!h1.empty() || !wrote_trace);
    std::remove(facts_path_of(recheck_trace_of(o_, seed)).c_str());
    if (!same_end) {
      ++tally_.recheck_mismatches;
      std::fprintf(stderr, "\nwtsim: NONDETERMINISM: seed %llu gave trace hash %s (exit %d), then %s (exit %d) in another process\n",
                   static_cast<unsigned long long>(seed), h1.c_str(), codes[0], h2.c_str(), codes[1]);
      return finish_seed(seed, kNondeterministic);
    }
    std::remove(recheck_trace_of(o_, seed).c_str());
    finish_seed(seed, codes[0]);
  }

  // A time budget can end the pool between a seed's two runs: the seed counts with its one run.
  void settle_unfinished_rechecks() {
    for (const auto& [seed, codes] : recheck_codes_) {
      if (codes[0] != kNotYet && codes[1] != kNotYet) continue;
      std::remove(recheck_trace_of(o_, seed).c_str());
      std::remove(facts_path_of(recheck_trace_of(o_, seed)).c_str());
      if (codes[0] != kNotYet) finish_seed(seed, codes[0]);
    }
  }

  const ExploreOptions& o_;
  const world::Scenario& scenario_;
  const std::vector<uint64_t> seeds_;
  const std::vector<bool> recheck_;
  std::set<uint64_t> rechecked_seeds_;
  std::map<uint64_t, std::vector<int>> recheck_codes_;  // rechecked seeds: exit codes of both runs
  std::map<uint64_t, SeedRecord> records_;
  Tally tally_;
  const bool tty_ = isatty(STDERR_FILENO) != 0;
};

}  // namespace

int explore(const ExploreOptions& o) {
  uint64_t from = 0, to = 0, shard_k = 1, shard_n = 1;
  if (!check_options(o, &from, &to, &shard_k, &shard_n)) return kBadInput;
  world::Scenario scenario;
  try {
    scenario = world::load_scenario(o.scenario_path, o.overrides);  // bad input fails once, here
  } catch (const std::exception& e) {
    return std::fprintf(stderr, "wtsim: %s\n", e.what()), kBadInput;
  }
  if (mkdir(o.out_dir.c_str(), 0755) != 0 && errno != EEXIST) {
    return std::fprintf(stderr, "wtsim: %s: cannot create the failures directory\n", o.out_dir.c_str()), kBadInput;
  }
  std::vector<uint64_t> seeds;
  for (uint64_t s = from; s <= to; ++s) {
    if (s % shard_n == shard_k - 1) seeds.push_back(s);
  }
  Explorer explorer(o, scenario, std::move(seeds));
  const bool started = explorer.run_all();
  return explorer.conclude(started, from, to);
}

}  // namespace wtsim::runs
