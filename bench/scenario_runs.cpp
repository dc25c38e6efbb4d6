// Whole scenarios as benchmarks: the wall time of one run and its time compression (virtual
// seconds per wall second). BM_TtlAccountFullScale is the TTL account at its own rate (about
// 8,500 documents/s for 900 virtual s, 7.6 million documents); it takes minutes, so run it by
// name: --benchmark_filter=TtlAccountFullScale.
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "world/world.h"
#include "traces/trace.h"

namespace {

void run_scenario_once(benchmark::State& state, const std::string& file, const std::vector<std::string>& overrides) {
  const wtsim::world::Scenario scenario = wtsim::world::draw_knobs(wtsim::world::load_scenario(std::string(WTSIM_SOURCE_DIR) + "/scenarios/" + file, overrides), 1);
  double virtual_s = 0;
  for (auto _ : state) {
    wtsim::traces::HashOnlySink hash_only;  // as `wtsim run` without --trace: nothing kept
    const wtsim::world::RunResult r = wtsim::world::run_scenario(scenario, 1, nullptr, nullptr, &hash_only);
    if (!r.ok) state.SkipWithError((std::string("violated ") + r.violations.front().name()).c_str());
    virtual_s = static_cast<double>(r.stats.virtual_ns) / 1e9;
  }
  state.counters["virtual_s"] = virtual_s;
  state.counters["compression"] = benchmark::Counter(virtual_s * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}

void BM_TtlAccountFullScale(benchmark::State& state) {
  run_scenario_once(state, "ttl_vs_manual_delete.json", {state.range(0) == 0 ? "ttl.mode=index" : "ttl.mode=manual"});
}
BENCHMARK(BM_TtlAccountFullScale)->Arg(0)->Arg(1)->Iterations(1)->Unit(benchmark::kSecond)->UseRealTime();

void BM_TtlAccountFiftiethScale(benchmark::State& state) {
  run_scenario_once(state, "ttl_vs_manual_delete.json", {"workload.batch_size=20"});
}
BENCHMARK(BM_TtlAccountFiftiethScale)->Iterations(1)->Unit(benchmark::kSecond)->UseRealTime();

void BM_TtlAccountTenthScale(benchmark::State& state) {
  run_scenario_once(state, "ttl_vs_manual_delete.json", {"workload.batch_size=100", state.range(0) == 0 ? "ttl.mode=index" : "ttl.mode=manual"});
}
BENCHMARK(BM_TtlAccountTenthScale)->Arg(0)->Arg(1)->Iterations(1)->Unit(benchmark::kSecond)->UseRealTime();

void BM_SmokeScenario(benchmark::State& state) { run_scenario_once(state, "smoke.json", {}); }
BENCHMARK(BM_SmokeScenario)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
