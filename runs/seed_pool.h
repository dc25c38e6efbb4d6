#pragma once
// Runs one child process per seed, `jobs` at a time (the explorer's and the self-test's engine):
// a crash of a child never takes the caller down. Children start in seed order; results come
// back in completion order to a callback, which may stop the pool. Outside the simulation, so
// wall-clock time is fine here (time budgets, rates).
#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace wtsim::runs {

struct SeedResult {
  uint64_t seed = 0;
  int exit_code = 0;  // the child's exit code, or 128 + signal
  double wall_s = 0;
  bool timed_out = false;  // killed after PoolOptions::seed_timeout_s
};

// How a child runs: a new process of `exe` (posix_spawn + exec), or a fork of this process that
// calls the registered child entry with the same arguments (no exec, no allocator re-exec, and
// WiredTiger's clock calibration done once in the parent: runs are single-threaded, their
// WiredTiger threads fibers, so a fork is a whole copy).
enum class SpawnMode { kExec, kFork };

struct PoolOptions {
  std::string exe;        // the program to start
  int jobs = 2;
  double time_budget_s = 0;  // > 0: start no new child after this many seconds
  double seed_timeout_s = 0;  // > 0: kill (SIGKILL) a child still running after this many seconds
  SpawnMode mode = SpawnMode::kFork;  // kFork needs exe "/proc/self/exe" and a child entry, else exec
};

// What a forked child runs: the arguments it would have been exec'd with (argv[0] first), its
// exit code returned. The command line registers it (cli/main.cpp: the `run` verb).
using ChildEntry = int (*)(const std::vector<std::string>& args);
void set_child_entry(ChildEntry entry);

// `argv_for(seed)` builds the child's arguments (argv[0] included). `on_done` returns false to
// stop starting new children (those running are still waited for). Returns false if a child
// could not be started.
bool run_seeds(const PoolOptions& options, const std::vector<uint64_t>& seeds,
               const std::function<std::vector<std::string>(uint64_t)>& argv_for,
               const std::function<bool(const SeedResult&)>& on_done);

// The child processes this process started (forked or spawned), each under a job number: waits
// for the next of them to end, killing (SIGKILL) any that outlives `timeout_s` (> 0; 0: never).
// Run pools and sweeps both keep their children here.
class Children {
 public:
  explicit Children(double timeout_s) : timeout_s_(timeout_s) {}
  void add(pid_t pid, uint64_t job);
  size_t size() const { return running_.size(); }
  // One of ours that ended: with `block`, waits for it (nullopt only when none is running);
  // without, nullopt when none has ended yet.
  std::optional<SeedResult> wait(bool block);

 private:
  struct Running {
    uint64_t job;
    double started_s;
    bool killed;
  };
  void kill_overdue();

  double timeout_s_;
  std::map<pid_t, Running> running_;
};

// The directory of the running executable, for finding sibling programs (wtsim-planted).
std::string own_directory();

double wall_seconds();  // monotonic, since an arbitrary start

}  // namespace wtsim::runs
