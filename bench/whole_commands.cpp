// Whole `wtsim` commands as benchmarks, each one process as a user starts it: a crash-point sweep
// forked at each point against each point run from the start (the goal is 5x), and explore forking
// its seeds against exec'ing a new process per seed (--spawn-exec). Each iteration is one command;
// the counters give points or seeds per wall second. Run by name, they take tens of seconds:
//   build/bench/wtsim_bench --benchmark_filter='Sweep|Explore'
#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>

#include <cstdio>
#include <string>
#include <vector>

extern char** environ;

namespace {

const std::string kSource = WTSIM_SOURCE_DIR;

// Runs `args` (argv[0] is the binary) with stdout and stderr to /dev/null; its exit code.
int run_quietly(std::vector<std::string> args) {
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t files;
  posix_spawn_file_actions_init(&files);
  posix_spawn_file_actions_addopen(&files, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&files, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  pid_t pid = 0;
  const int err = posix_spawn(&pid, argv[0], &files, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&files);
  if (err != 0) return -1;
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

void run_command(benchmark::State& state, std::vector<std::string> args, double units, const char* unit_name) {
  args.insert(args.begin(), WTSIM_CLI);
  for (auto _ : state) {
    const int code = run_quietly(args);
    if (code != 0) state.SkipWithError(("exit code " + std::to_string(code)).c_str());
  }
  state.counters[unit_name] = benchmark::Counter(units * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}

// smoke.json lasting range(0) virtual ms, at every (ms / 250)th persistence point: about 200
// points either way (203 at 10 s, 202 at 30 s), two children at a time.
std::vector<std::string> smoke_sweep(const benchmark::State& state) {
  const int64_t duration_ms = state.range(0);
  return {"sweep", kSource + "/scenarios/smoke.json", "--set", "duration_ms=" + std::to_string(duration_ms),
          "--stride", std::to_string(duration_ms / 250), "--jobs", "2", "--out", "/tmp/wtsim-bench-sweep"};
}

void BM_SweepFromStart(benchmark::State& state) {  // what a sweep without snapshots costs
  std::vector<std::string> args = smoke_sweep(state);
  args.insert(args.end(), {"--from-start", "--tail-ms", "-1"});
  run_command(state, args, 200, "points");
}
BENCHMARK(BM_SweepFromStart)->Arg(10000)->Arg(30000)->Iterations(3)->Unit(benchmark::kSecond)->UseRealTime();

void BM_SweepForkedToTheEnd(benchmark::State& state) {
  std::vector<std::string> args = smoke_sweep(state);
  args.insert(args.end(), {"--tail-ms", "-1"});
  run_command(state, args, 200, "points");
}
BENCHMARK(BM_SweepForkedToTheEnd)->Arg(10000)->Arg(30000)->Iterations(3)->Unit(benchmark::kSecond)->UseRealTime();

void BM_SweepForked(benchmark::State& state) {  // the default: each child ends 1 s after its recovery
  run_command(state, smoke_sweep(state), 200, "points");
}
BENCHMARK(BM_SweepForked)->Arg(10000)->Arg(30000)->Iterations(3)->Unit(benchmark::kSecond)->UseRealTime();

std::vector<std::string> smoke_explore() {
  return {"explore", kSource + "/scenarios/smoke.json", "--seeds", "1..200", "--jobs", "2", "--recheck", "0", "--out", "/tmp/wtsim-bench-explore"};
}

void BM_ExploreSpawnExec(benchmark::State& state) {
  std::vector<std::string> args = smoke_explore();
  args.push_back("--spawn-exec");
  run_command(state, args, 200, "seeds");
}
BENCHMARK(BM_ExploreSpawnExec)->Iterations(3)->Unit(benchmark::kSecond)->UseRealTime();

void BM_ExploreForked(benchmark::State& state) { run_command(state, smoke_explore(), 200, "seeds"); }
BENCHMARK(BM_ExploreForked)->Iterations(3)->Unit(benchmark::kSecond)->UseRealTime();

}  // namespace
