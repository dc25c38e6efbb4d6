#include "runs/seed_pool.h"

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cassert>
#include <chrono>
#include <cstdio>
#include <map>

#include "engine/wt_connection.h"
#include "faults/disk.h"
#include "faults/sim_file_system.h"
#include "sim/scheduler.h"

extern char** environ;

namespace wtsim::runs {
namespace {

constexpr int kJobsMax = 64;
constexpr useconds_t kTimeoutPollUs = 2'000;  // how often children are polled while a timeout runs: a child's end is seen this late at most

ChildEntry child_entry = nullptr;

// Once per process, before the first fork: a WiredTiger connection opened and closed on a
// throwaway simulated disk, so that WiredTiger's one-time set-up (its clock calibration, about
// half a second) is done here and every forked child inherits it.
void warm_up_for_fork() {
  static bool done = false;
  if (done) return;
  done = true;
  sim::Simulator sim(/*seed=*/0);  // WiredTiger's threads run as its fibers
  faults::Disk disk;
  faults::SimFileSystem fs(disk, nullptr, "/wtsim/fork-warm-up");
  engine::WtConnection conn;
  if (conn.open(fs, engine::WtConfig{}) == 0) conn.close();
}

// A forked child: runs the entry and leaves without running this process's exit handlers.
pid_t fork_child(const std::vector<std::string>& args) {
  std::fflush(nullptr);  // nothing buffered is printed twice
  const pid_t pid = fork();
  if (pid != 0) return pid;
  const int code = child_entry(args);
  std::fflush(nullptr);
  _exit(code);
}

pid_t spawn_child(const std::string& exe, std::vector<std::string> args) {
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = -1;
  if (posix_spawn(&pid, exe.c_str(), nullptr, nullptr, argv.data(), environ) != 0) return -1;
  return pid;
}

}  // namespace

void set_child_entry(ChildEntry entry) { child_entry = entry; }

double wall_seconds() {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}

std::string own_directory() {
  char buf[4096];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return ".";
  std::string path(buf, static_cast<size_t>(n));
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

void Children::add(pid_t pid, uint64_t job) {
  assert(pid > 0 && running_.count(pid) == 0);
  running_[pid] = {job, wall_seconds(), false};
}

void Children::kill_overdue() {
  for (auto& [pid, r] : running_) {
    if (r.killed || wall_seconds() - r.started_s < timeout_s_) continue;
    kill(pid, SIGKILL);
    r.killed = true;
  }
}

std::optional<SeedResult> Children::wait(bool block) {
  while (!running_.empty()) {
    int status = 0;
    const bool poll = !block || timeout_s_ > 0;  // a timeout is kept by polling
    const pid_t pid = waitpid(-1, &status, poll ? WNOHANG : 0);
    if (pid < 0) return std::nullopt;  // no child left at all
    if (pid == 0) {
      if (!block) return std::nullopt;
      kill_overdue();
      usleep(kTimeoutPollUs);
      continue;
    }
    const auto it = running_.find(pid);
    if (it == running_.end()) continue;  // not one of ours
    const SeedResult r{it->second.job, WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status),
                       wall_seconds() - it->second.started_s, it->second.killed};
    running_.erase(it);
    return r;
  }
  return std::nullopt;
}

bool run_seeds(const PoolOptions& o, const std::vector<uint64_t>& seeds,
               const std::function<std::vector<std::string>(uint64_t)>& argv_for,
               const std::function<bool(const SeedResult&)>& on_done) {
  assert(o.jobs >= 1 && o.jobs <= kJobsMax);
  assert(o.seed_timeout_s >= 0);
  const bool fork_mode = o.mode == SpawnMode::kFork && child_entry != nullptr && o.exe == "/proc/self/exe";
  if (fork_mode) warm_up_for_fork();
  const double start_s = wall_seconds();
  Children running(o.seed_timeout_s);
  size_t next = 0;
  bool keep_going = true, started_all = true;
  while (running.size() > 0 || (keep_going && next < seeds.size())) {
    const bool in_budget = o.time_budget_s <= 0 || wall_seconds() - start_s < o.time_budget_s;
    while (keep_going && in_budget && next < seeds.size() && running.size() < static_cast<size_t>(o.jobs)) {
      const uint64_t seed = seeds[next++];
      const pid_t pid = fork_mode ? fork_child(argv_for(seed)) : spawn_child(o.exe, argv_for(seed));
      if (pid < 0) {
        keep_going = started_all = false;
        break;
      }
      running.add(pid, seed);
    }
    if (!in_budget) keep_going = false;
    const std::optional<SeedResult> r = running.wait(/*block=*/true);
    if (!r) break;
    if (!on_done(*r)) keep_going = false;
  }
  return started_all;
}

}  // namespace wtsim::runs
