#include "sim/cli/explore_command.h"

#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <map>
#include <regex>

#include "sim/cli/run_command.h"

extern char** environ;

namespace wtsim::cli {
namespace {

constexpr int kJobsMax = 64;

struct Range {
  uint64_t from = 0, to = 0;
};

bool parse_range(const std::string& text, Range* r) {
  std::smatch m;
  if (!std::regex_match(text, m, std::regex(R"((\d{1,18})\.\.(\d{1,18}))"))) return false;
  r->from = std::stoull(m[1]);
  r->to = std::stoull(m[2]);
  return r->from <= r->to;
}

bool parse_shard(const std::string& text, uint64_t* k, uint64_t* n) {
  std::smatch m;
  if (!std::regex_match(text, m, std::regex(R"((\d{1,9})/(\d{1,9}))"))) return false;
  *k = std::stoull(m[1]);
  *n = std::stoull(m[2]);
  return *n >= 1 && *k >= 1 && *k <= *n;
}

pid_t spawn_run(const ExploreOptions& o, uint64_t seed, const std::string& trace) {
  std::vector<std::string> args = {"wtsim", "run", o.scenario_path, "--seed", std::to_string(seed), "--trace", trace, "-q"};
  for (const std::string& s : o.overrides) args.insert(args.end(), {"--set", s});
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = -1;
  if (posix_spawn(&pid, "/proc/self/exe", nullptr, nullptr, argv.data(), environ) != 0) return -1;
  return pid;
}

const char* outcome_name(int code) {
  switch (code) {
    case kHeld: return "held";
    case kViolated: return "violated";
    case kBadInput: return "bad input";
    case kNondeterministic: return "nondeterministic";
    default: return "tool crashed";
  }
}

}  // namespace

int explore_command(const ExploreOptions& o) {
  Range range;
  uint64_t shard_k = 1, shard_n = 1;
  if (!parse_range(o.seeds, &range)) return std::fprintf(stderr, "wtsim: --seeds %s: expected A..B with A <= B\n", o.seeds.c_str()), kBadInput;
  if (!parse_shard(o.shard, &shard_k, &shard_n)) return std::fprintf(stderr, "wtsim: --shard %s: expected K/N with 1 <= K <= N\n", o.shard.c_str()), kBadInput;
  if (o.jobs < 1 || o.jobs > kJobsMax) return std::fprintf(stderr, "wtsim: --jobs %d: expected 1..%d\n", o.jobs, kJobsMax), kBadInput;
  if (mkdir(o.out_dir.c_str(), 0755) != 0 && errno != EEXIST) {
    return std::fprintf(stderr, "wtsim: %s: cannot create the failures directory\n", o.out_dir.c_str()), kBadInput;
  }
  std::vector<uint64_t> seeds;
  for (uint64_t s = range.from; s <= range.to; ++s) {
    if (s % shard_n == shard_k - 1) seeds.push_back(s);
  }
  const bool tty = isatty(STDERR_FILENO) != 0;
  std::map<pid_t, uint64_t> running;
  std::map<uint64_t, int> outcome;  // seed -> exit code, in seed order
  size_t next = 0;
  while (next < seeds.size() || !running.empty()) {
    while (next < seeds.size() && running.size() < static_cast<size_t>(o.jobs)) {
      const uint64_t seed = seeds[next++];
      const pid_t pid = spawn_run(o, seed, o.out_dir + "/seed-" + std::to_string(seed) + ".json");
      if (pid < 0) return std::fprintf(stderr, "wtsim: cannot start a run for seed %llu\n", static_cast<unsigned long long>(seed)), kBadInput;
      running[pid] = seed;
    }
    int status = 0;
    const pid_t pid = waitpid(-1, &status, 0);
    if (pid < 0) break;
    const uint64_t seed = running.at(pid);
    running.erase(pid);
    const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    outcome[seed] = code;
    if (code == kHeld) std::remove((o.out_dir + "/seed-" + std::to_string(seed) + ".json").c_str());
    if (tty) {
      size_t failed = 0;
      for (const auto& [s, c] : outcome) failed += c != kHeld ? 1 : 0;
      std::fprintf(stderr, "\r%zu/%zu seeds, %zu failing", outcome.size(), seeds.size(), failed);
    }
  }
  if (tty) std::fprintf(stderr, "\n");
  std::map<std::string, size_t> counts;
  for (const auto& [s, c] : outcome) ++counts[outcome_name(c)];
  std::printf("explored %zu seeds of %s (%s, shard %s):", outcome.size(), o.scenario_path.c_str(), o.seeds.c_str(), o.shard.c_str());
  for (const auto& [name, n] : counts) std::printf(" %zu %s", n, name.c_str());
  std::printf("\n");
  bool any_failed = false;
  for (const auto& [s, c] : outcome) {
    if (c == kHeld) continue;
    any_failed = true;
    std::printf("  seed %llu: %s, trace %s/seed-%llu.json (replay it with: wtsim replay)\n", static_cast<unsigned long long>(s),
                outcome_name(c), o.out_dir.c_str(), static_cast<unsigned long long>(s));
  }
  return any_failed ? kViolated : kHeld;
}

}  // namespace wtsim::cli
