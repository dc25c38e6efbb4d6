// BM_SimulatedDurableCommits: the same commits as BM_RawWiredTigerDurableCommits, made by one
// fiber of the deterministic runtime (virtual wall clock installed) that pays a 1 ms virtual disk
// cost after each commit. The difference from the raw figure is the runtime's overhead per
// commit (fiber switch, timer queue, virtual time jump); the goal is < 20 %.
// The benchmark loop runs inside the fiber: it is on the same OS thread, so Google Benchmark's
// timing covers exactly the commits, while the simulator and connection setup stay outside it.
#include <benchmark/benchmark.h>

#include <limits>

#include "bench/bench_common.h"
#include "engine/kv_store.h"
#include "engine/wt_connection.h"
#include "faults/disk.h"
#include "faults/sim_file_system.h"
#include "sim/scheduler.h"
#include "sim/sync.h"
#include "sim/virtual_clock.h"

namespace wtsim::bench {
namespace {

void BM_SimulatedDurableCommits(benchmark::State& state) {
  sim::RunOutcome outcome;
  {
    // No virtual time limit (the default, 24 h, is 86 M commits); destroyed after run() returns.
    sim::Simulator sim(/*seed=*/42, std::numeric_limits<sim::Nanos>::max());
    faults::Disk disk;
    faults::SimFileSystem fs(disk, nullptr, next_home("/bench/sim"));
    engine::WtConnection conn;
    if (const int ret = conn.open(fs, engine::WtConfig{}); ret != 0) {
      state.SkipWithError(("wiredtiger_open failed: " + std::to_string(ret)).c_str());
      return;
    }
    sim.spawn("writer", "node", [&] {
      engine::KvSession s(conn.get());
      if (s.create_table() != 0) state.SkipWithError("create_table failed");
      sim::Resource device("disk", 1);
      uint64_t i = 0;
      for (auto _ : state) {
        if (s.apply(one_write(i++)) != 0 || s.commit(/*durable=*/true) != 0) {
          state.SkipWithError("durable commit failed");
          break;
        }
        device.use(1'000'000);  // 1 ms of virtual disk time: a virtual sleep
      }
    });
    outcome = sim.run();
    conn.close();
  }
  if (outcome.kind != sim::RunOutcome::Kind::kFinished) {
    state.SkipWithError(("simulation ended: " + std::string(sim::to_string(outcome.kind))).c_str());
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()));
}

BENCHMARK(BM_SimulatedDurableCommits)->UseRealTime();

}  // namespace
}  // namespace wtsim::bench
