#include "runs/forked_batch.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cassert>
#include <cstdio>
#include <map>

namespace wtsim::runs {
namespace {

constexpr int kParallelMax = 64;

struct Running {
  pid_t pid = -1;
  int fd = -1;  // the pipe's read end
};

// Forks a child that runs job `index` and writes its words to a pipe. Pid -1 if it cannot.
Running start(const ForkedBatch& b, size_t index) {
  int fds[2];
  if (pipe(fds) != 0) return {};
  std::fflush(nullptr);  // nothing buffered is printed twice
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    const ReportWords words = b.job(index);
    const bool written = write(fds[1], words.data(), sizeof words) == static_cast<ssize_t>(sizeof words);
    _exit(written ? 0 : 1);
  }
  close(fds[1]);
  if (pid < 0) {
    close(fds[0]);
    return {};
  }
  return {pid, fds[0]};
}

// After the child's exit: its report, complete only if it exited 0 having written every word.
ChildReport collect(const Running& r, int status) {
  ChildReport report;
  size_t got = 0;
  auto* bytes = reinterpret_cast<char*>(report.words.data());
  while (got < sizeof report.words) {
    const ssize_t n = read(r.fd, bytes + got, sizeof report.words - got);
    if (n <= 0) break;
    got += static_cast<size_t>(n);
  }
  close(r.fd);
  report.completed = got == sizeof report.words && WIFEXITED(status) && WEXITSTATUS(status) == 0;
  if (!report.completed) report.words = {};
  return report;
}

}  // namespace

size_t run_forked_batch(const ForkedBatch& b) {
  assert(b.parallel >= 1 && b.parallel <= kParallelMax);
  std::map<size_t, Running> running;     // by job index
  std::map<size_t, ChildReport> waiting;  // finished before an earlier job
  std::map<pid_t, size_t> index_of;
  size_t next_start = 0, taken = 0;
  bool stopped = false, starting = true;
  while (!stopped && taken < b.count) {
    // Start in order; a finished job waits for the earlier ones, so at most 2 x parallel ahead.
    while (starting && next_start < b.count && running.size() < static_cast<size_t>(b.parallel) &&
           next_start < taken + 2 * static_cast<size_t>(b.parallel)) {
      if (!b.may_start()) {
        starting = false;
        break;
      }
      const Running r = start(b, next_start);
      if (r.pid < 0) {
        starting = false;
        break;
      }
      index_of[r.pid] = next_start;
      running[next_start++] = r;
    }
    if (running.empty() && waiting.count(taken) == 0) break;  // nothing runs: the rest never starts
    if (waiting.count(taken) == 0) {
      int status = 0;
      const pid_t pid = waitpid(-1, &status, 0);
      if (pid < 0) break;
      const auto it = index_of.find(pid);
      if (it == index_of.end()) continue;  // not one of ours
      const size_t index = it->second;
      index_of.erase(it);
      waiting[index] = collect(running.at(index), status);
      running.erase(index);
    }
    while (!stopped && waiting.count(taken) != 0) {
      const ChildReport report = waiting[taken];
      waiting.erase(taken);
      stopped = !b.take(taken++, report);
    }
  }
  for (auto& [index, r] : running) {
    kill(r.pid, SIGKILL);
    int status = 0;
    waitpid(r.pid, &status, 0);
    close(r.fd);
  }
  return taken;
}

}  // namespace wtsim::runs
