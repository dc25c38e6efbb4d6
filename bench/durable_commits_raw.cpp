// BM_RawWiredTigerDurableCommits: single-key durable commits (commit + log fsync) by plain
// WiredTiger on the simulated disk, called from the main context (WiredTiger's own threads are
// fibers, which run when a WiredTiger call waits; no engine, no actors). This is the baseline the
// simulated run (BM_SimulatedDurableCommits) is compared with to measure the runtime's overhead.
#include <benchmark/benchmark.h>

#include "bench/bench_common.h"
#include "engine/kv_store.h"
#include "engine/wt_connection.h"
#include "faults/disk.h"
#include "faults/sim_file_system.h"
#include "sim/scheduler.h"

namespace wtsim::bench {
namespace {

void BM_RawWiredTigerDurableCommits(benchmark::State& state) {
  sim::Simulator sim(/*seed=*/42);  // WiredTiger's threads run on it; outlives the connection
  faults::Disk disk;
  faults::SimFileSystem fs(disk, nullptr, next_home("/bench/raw"));
  engine::WtConnection conn;
  if (const int ret = conn.open(fs, engine::WtConfig{}); ret != 0) {
    state.SkipWithError(("wiredtiger_open failed: " + std::to_string(ret)).c_str());
    return;
  }
  {
    engine::KvSession s(conn.get());  // closed before the connection
    if (s.create_table() != 0) state.SkipWithError("create_table failed");
    uint64_t i = 0;
    for (auto _ : state) {
      if (s.apply(one_write(i++)) != 0 || s.commit(/*durable=*/true) != 0) {
        state.SkipWithError("durable commit failed");
        break;
      }
    }
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()));
  conn.close();
}

BENCHMARK(BM_RawWiredTigerDurableCommits)->UseRealTime();

}  // namespace
}  // namespace wtsim::bench
