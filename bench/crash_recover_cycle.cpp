// BM_CrashRecoverVerifyCycle: one full fault-search step on a 10,000-document database: fence
// the connection, crash the disk (unsynced writes lost), abandon the connection, reopen on a new
// file-system generation (WiredTiger recovery), read every key back and verify the table.
// Cycles per second bound how many crash points a search can try; the goal is >= 100 cycles/s.
#include <benchmark/benchmark.h>

#include <memory>
#include <vector>

#include "bench/bench_common.h"
#include "engine/kv_store.h"
#include "engine/wt_connection.h"
#include "faults/disk.h"
#include "faults/sim_file_system.h"
#include "sim/random.h"
#include "sim/scheduler.h"

namespace wtsim::bench {
namespace {

constexpr uint64_t kDocs = 10'000;
constexpr uint64_t kBatch = 1'000;

// Opens a new generation on `disk`; the caller checks conn.is_open().
std::unique_ptr<faults::SimFileSystem> open_generation(faults::Disk& disk, engine::WtConnection& conn) {
  auto fs = std::make_unique<faults::SimFileSystem>(disk, nullptr, next_home("/bench/crash"));
  if (conn.open(*fs, engine::WtConfig{}) != 0) fs->fence();  // a failed open must not touch the disk
  return fs;
}

void BM_CrashRecoverVerifyCycle(benchmark::State& state) {
  sim::Simulator sim(/*seed=*/42);  // WiredTiger's threads run on it; outlives the connections
  faults::Disk disk;
  sim::Rng rng(1);
  engine::WtConnection conn;
  auto fs = open_generation(disk, conn);
  if (!conn.is_open()) {
    state.SkipWithError("initial wiredtiger_open failed");
    return;
  }
  {  // Setup: 10 durable batches of 1,000 keys, then a checkpoint.
    engine::KvSession s(conn.get());
    bool ok = s.create_table() == 0;
    for (uint64_t b = 0; ok && b < kDocs; b += kBatch) {
      std::vector<models::KvWrite> batch;
      for (uint64_t i = b; i < b + kBatch; ++i) batch.push_back({key_of(i), std::string(100, 'v')});
      ok = s.apply(batch) == 0 && s.commit(/*durable=*/true) == 0;
    }
    if (!ok || s.session()->checkpoint(s.session(), nullptr) != 0) state.SkipWithError("loading the database failed");
  }
  models::KvState recovered;
  for (auto _ : state) {
    fs->fence();  // the old connection now works on a private ghost copy
    disk.crash(faults::CrashMode::kDropUnsynced, rng.next());
    conn.close_fenced();
    // Its connection is closed: the old generation's file system (and its ghost) may go.
    fs = open_generation(disk, conn);
    if (!conn.is_open()) {
      state.SkipWithError("recovery (wiredtiger_open) failed");
      break;
    }
    engine::KvSession s(conn.get());
    if (s.read_all(recovered) != 0 || recovered.size() != kDocs) {
      state.SkipWithError("recovered state is not the 10,000 documents");
      break;
    }
    if (s.verify() != 0) {
      state.SkipWithError("verify failed");
      break;
    }
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()));
  if (conn.is_open()) conn.close();
}

BENCHMARK(BM_CrashRecoverVerifyCycle)->UseRealTime();

}  // namespace
}  // namespace wtsim::bench
