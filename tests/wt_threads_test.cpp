// WiredTiger's own threads as fibers (sim/wt_threads.h): they are named fibers of the run's
// scheduler, the process stays on one OS thread, a full 1 MB cache is evicted by them without
// deadlocking the run, the same seed repeats the same interleaving, and a crash at any disk
// operation of a clean close recovers every durable commit; a failed sync halts WiredTiger as its
// POSIX layer does, and a log-file switch that fails for want of space (a wedged log in WiredTiger
// 3.2.1) is turned into a panic and reported.
#include <gtest/gtest.h>
#include <wiredtiger.h>

#include <set>
#include <string>
#include <vector>

#include "engine/kv_store.h"
#include "engine/wt_connection.h"
#include "faults/disk.h"
#include "faults/fault_injector.h"
#include "faults/sim_file_system.h"
#include "sim/scheduler.h"
#include "sim/wt_threads.h"

namespace wtsim {
namespace {

constexpr uint64_t kKeys = 3000;       // ~3 MB of values: three times a 1 MB cache
constexpr uint64_t kValueBytes = 1000;
constexpr uint64_t kKeysPerCommit = 10;

std::string key_of(uint64_t i) { return "k" + std::to_string(1'000'000 + i); }

std::string next_home() {
  static int counter = 0;
  return "/test/wtthreads" + std::to_string(++counter);
}

// Loads kKeys durable keys through a 1 MB cache (eviction must write pages out to make room).
int load(engine::KvSession& s) {
  int ret = s.create_table();
  for (uint64_t i = 0; ret == 0 && i < kKeys; i += kKeysPerCommit) {
    std::vector<models::KvWrite> batch;
    for (uint64_t k = i; k < i + kKeysPerCommit; ++k) batch.push_back({key_of(k), std::string(kValueBytes, 'a' + k % 26)});
    ret = s.apply(batch);
    if (ret == 0) ret = s.commit(/*durable=*/true);
  }
  return ret;
}

struct LoadResult {
  std::set<std::string> fiber_names;
  faults::FsStats stats;
  sim::Nanos virtual_end_ns = 0;
  uint64_t preemptions = 0, yields = 0;
};

// One run: open with a 1 MB cache, load, close cleanly; all from one client fiber.
LoadResult load_through_a_small_cache(uint64_t seed) {
  LoadResult out;
  const sim::wt_threads::Counters before = sim::wt_threads::counters();
  sim::Simulator sim(seed);
  faults::Disk disk;
  faults::SimFileSystem fs(disk, nullptr, next_home());
  engine::WtConnection conn;
  engine::WtConfig config;
  config.cache_mb = 1;
  sim.spawn("client", "t", [&] {
    ASSERT_EQ(conn.open(fs, config), 0);
    {
      engine::KvSession s(conn.get());
      ASSERT_EQ(load(s), 0);
      EXPECT_EQ(sim::wt_threads::single_thread_problem(), "");
    }
    ASSERT_EQ(conn.close(), 0);
  });
  const sim::RunOutcome outcome = sim.run();
  EXPECT_EQ(outcome.kind, sim::RunOutcome::Kind::kFinished) << sim::to_string(outcome.kind);
  EXPECT_EQ(sim.live_daemons(), 0u) << "every WiredTiger thread ends with its connection";
  for (uint64_t id = 1; sim.fiber_by_id(id) != nullptr; ++id) out.fiber_names.insert(sim.fiber_by_id(id)->name);
  out.stats.reads = fs.stats().reads;
  out.stats.writes = fs.stats().writes;
  out.stats.syncs = fs.stats().syncs;
  out.stats.bytes_written = fs.stats().bytes_written;
  out.virtual_end_ns = sim.now_ns();
  out.preemptions = sim::wt_threads::counters().preemptions - before.preemptions;
  out.yields = sim::wt_threads::counters().yields - before.yields;
  return out;
}

TEST(WtThreads, WiredTigersThreadsAreNamedFibersAndEvictAFullCache) {
  const uint64_t started_before = sim::wt_threads::counters().threads_started;
  const LoadResult r = load_through_a_small_cache(1);
  EXPECT_EQ(sim::wt_threads::problem(), "");
  EXPECT_GT(sim::wt_threads::counters().threads_started, started_before);
  for (const char* name : {"wt:eviction-server", "wt:log-server", "wt:log-wrlsn-server", "wt:log-close-server", "wt:sweep-server"}) {
    EXPECT_EQ(r.fiber_names.count(name), 1u) << name;
  }
  EXPECT_GT(r.preemptions, 0u) << "eviction ran (__wt_evict is a preemption point)";
  EXPECT_GT(r.stats.bytes_written, kKeys * kValueBytes) << "the data went through the 1 MB cache to disk";
  EXPECT_EQ(sim::wt_threads::counters().mutexes_held, 0u);
}

TEST(WtThreads, TheSameSeedRepeatsTheInterleavingOfWiredTigersThreads) {
  const LoadResult a = load_through_a_small_cache(5);
  const LoadResult b = load_through_a_small_cache(5);
  EXPECT_EQ(a.virtual_end_ns, b.virtual_end_ns);
  EXPECT_EQ(a.stats.writes, b.stats.writes);
  EXPECT_EQ(a.stats.reads, b.stats.reads);
  EXPECT_EQ(a.stats.syncs, b.stats.syncs);
  EXPECT_EQ(a.stats.bytes_written, b.stats.bytes_written);
  EXPECT_EQ(a.preemptions, b.preemptions);
  EXPECT_EQ(a.yields, b.yields);
}

TEST(WtThreadsDeathTest, AWiredTigerThreadWithNoSimulatorEndsTheProcess) {
  ASSERT_EQ(sim::Simulator::active(), nullptr);
  // No simulator: WiredTiger's first thread would be an OS thread; the process refuses, exit 2.
  EXPECT_EXIT(
      {
        WT_CONNECTION* conn = nullptr;
        wiredtiger_open("/test/no-simulator", nullptr, "create,in_memory=true", &conn);
      },
      ::testing::ExitedWithCode(2), "refusing to run: WiredTiger started a thread with no simulator active");
}

// A crash at the k-th disk operation of a clean close (its final checkpoint): the close goes on
// against the ghost, and the durable images recover every durable commit.
TEST(WtThreads, ACrashAtAnyDiskOperationOfACleanCloseRecovers) {
  // The ops before and during the close, counted with a plan that never fires.
  auto run = [](uint64_t crash_at, uint64_t* ops_before_close, uint64_t* ops_after_close) {
    faults::FaultPlan plan;
    faults::Fault crash;
    crash.kind = faults::FaultKind::kCrash;
    crash.at_disk_op = crash_at;
    plan.faults.push_back(crash);
    faults::FaultInjector injector(plan);
    sim::Simulator sim(3);
    faults::Disk disk;
    sim::Rng rng(crash_at);
    auto fs = std::make_unique<faults::SimFileSystem>(disk, &injector, next_home());
    bool crashed = false;
    fs->set_crash_handler([&](faults::CrashMode mode, faults::FsOp, const std::string&) {
      fs->fence();
      disk.crash(mode, rng.next());
      crashed = true;
    });
    engine::WtConnection conn;
    engine::WtConfig config;
    config.cache_mb = 1;
    uint64_t recovered = 0;
    sim.spawn("client", "t", [&] {
      ASSERT_EQ(conn.open(*fs, config), 0);
      {
        engine::KvSession s(conn.get());
        ASSERT_EQ(load(s), 0);
      }
      *ops_before_close = injector.mutating_ops();
      conn.close();  // on the ghost from the crash on: its result is the ghost's
      *ops_after_close = injector.mutating_ops();
      if (!crashed) return;
      faults::SimFileSystem again(disk, nullptr, next_home());
      engine::WtConnection reopened;
      ASSERT_EQ(reopened.open(again, config), 0) << "recovery after a crash at disk op " << crash_at;
      {
        engine::KvSession s(reopened.get());
        models::KvState state;
        ASSERT_EQ(s.read_all(state), 0);
        recovered = state.size();
        EXPECT_EQ(s.verify(), 0);
      }
      ASSERT_EQ(reopened.close(), 0);
    });
    const sim::RunOutcome outcome = sim.run();
    EXPECT_EQ(outcome.kind, sim::RunOutcome::Kind::kFinished);
    return std::make_pair(crashed, recovered);
  };
  uint64_t before = 0, after = 0;
  run(UINT64_MAX, &before, &after);
  ASSERT_GT(after, before + 5) << "a clean close writes (its final checkpoint)";
  for (uint64_t op = before + 1; op <= after; op += std::max<uint64_t>(1, (after - before) / 12)) {
    uint64_t b = 0, a = 0;
    const auto [crashed, recovered] = run(op, &b, &a);
    EXPECT_TRUE(crashed) << "disk op " << op << " of the close was not reached";
    EXPECT_EQ(recovered, kKeys) << "durable commits lost by a crash at disk op " << op << " of the close";
    EXPECT_EQ(b, before) << "the same seed must reach the close at the same disk op";
  }
}

uint64_t used_bytes(const faults::Disk& disk) {
  uint64_t total = 0;
  for (const faults::FileInfo& f : disk.files()) total += f.current_bytes;
  return total;
}

// Durable commits of one small key each until one fails or `commits_max` succeed; their results.
std::vector<int> durable_commits(engine::KvSession& s, int commits_max) {
  std::vector<int> results;
  for (int i = 0; i < commits_max; ++i) {
    int ret = s.apply({{key_of(static_cast<uint64_t>(i)), std::string(kValueBytes, 'v')}});
    if (ret == 0) ret = s.commit(/*durable=*/true);
    results.push_back(ret);
    if (ret != 0) break;
  }
  return results;
}

// WiredTiger's POSIX file system panics when an fsync fails (os_posix/os_fs.c); so must the
// simulated one, or WiredTiger 3.2.1 carries on past a failed sync (docs/findings.md, finding 25).
TEST(WtThreads, AFailedSyncHaltsWiredTigerAsItsPosixLayerDoes) {
  faults::FaultPlan plan;
  faults::Fault eio;
  eio.kind = faults::FaultKind::kIoError;
  eio.op = faults::DiskOp::kSync;
  eio.file = "WiredTigerLog";
  eio.at_disk_op = 3;  // the third log sync after the open: transient, it fires once
  plan.faults.push_back(eio);
  faults::FaultInjector injector(plan);
  injector.set_enabled(false);
  sim::Simulator sim(5);
  faults::Disk disk;
  faults::SimFileSystem fs(disk, &injector, next_home());
  engine::WtConnection conn;
  std::vector<int> results;
  int after = 0;
  sim.spawn("client", "t", [&] {
    ASSERT_EQ(conn.open(fs, engine::WtConfig{}), 0);
    {
      engine::KvSession s(conn.get());
      ASSERT_EQ(s.create_table(), 0);
      injector.set_enabled(true);
      results = durable_commits(s, 20);
      after = s.apply({{"after", "x"}});  // the error was transient; the halt is not
    }
    conn.close_fenced();
  });
  EXPECT_EQ(sim.run().kind, sim::RunOutcome::Kind::kFinished);
  ASSERT_EQ(results.size(), 3u) << "the third durable commit's sync fails";
  EXPECT_EQ(results[0], 0);
  EXPECT_EQ(results[1], 0);
  EXPECT_EQ(results.back(), WT_PANIC) << wiredtiger_strerror(results.back());
  EXPECT_EQ(after, WT_PANIC) << "every later call of a halted connection fails";
}

// Finding 26: WiredTiger frees a closed connection, panicked or not, so a later open may get its
// address; what the layer knew of the old connection (its panic) must not pass to the new one, or
// the new one's close skips its transaction drain.
TEST(WtThreads, AClosedPanickedConnectionLeavesNothingToTheNextAtItsAddress) {
  sim::Simulator sim(7);
  faults::Disk disk;
  faults::SimFileSystem fs(disk, nullptr, next_home());
  engine::WtConnection conn;
  const WT_CONNECTION* halted = nullptr;
  sim.spawn("client", "t", [&] {
    ASSERT_EQ(conn.open(fs, engine::WtConfig{}), 0);
    halted = conn.get();
    WT_SESSION* session = conn.open_session();
    EXPECT_EQ(sim::wt_threads::panic_connection(session, EIO), WT_PANIC);
    EXPECT_TRUE(sim::wt_threads::panicked(halted));
    conn.close_fenced();
    EXPECT_FALSE(sim::wt_threads::panicked(halted)) << "the closed connection's address is free for the next";
    ASSERT_EQ(conn.open(fs, engine::WtConfig{}), 0);
    EXPECT_FALSE(sim::wt_threads::panicked(conn.get()));
    EXPECT_EQ(conn.close(), 0);
  });
  EXPECT_EQ(sim.run().kind, sim::RunOutcome::Kind::kFinished);
}

// A log-file switch that cannot extend the new file (a full disk) wedges WiredTiger 3.2.1's log
// for ever; the layer turns the wedge into a panic and reports ENOSPC once. Before the disk
// fills, commits go through the same switches with nothing reported.
TEST(WtThreads, ALogSwitchThatFailsForWantOfSpaceIsHaltedAndReported) {
  sim::Simulator sim(6);
  faults::Disk disk;
  faults::SimFileSystem fs(disk, nullptr, next_home());
  engine::WtConnection conn;
  engine::WtConfig config;
  config.log_file_max_kb = 100;  // WiredTiger's least: a switch every ~100 commits here
  (void)sim::wt_threads::take_log_switch_wedges();
  std::vector<int> before, full;
  std::vector<int> wedges_before;
  sim.spawn("client", "t", [&] {
    ASSERT_EQ(conn.open(fs, config), 0);
    {
      engine::KvSession s(conn.get());
      ASSERT_EQ(s.create_table(), 0);
      before = durable_commits(s, 300);  // several switches
      wedges_before = sim::wt_threads::take_log_switch_wedges();
      disk.set_capacity(used_bytes(disk) + 16 * 1024);  // room for a header, not for a 100 KB file
      full = durable_commits(s, 300);
    }
    conn.close_fenced();  // a halted connection's close may wait on its wedged log: abandoned
  });
  EXPECT_EQ(sim.run().kind, sim::RunOutcome::Kind::kFinished) << "the wedge must not spin for ever";
  ASSERT_EQ(before.size(), 300u);
  EXPECT_EQ(before.back(), 0);
  EXPECT_TRUE(wedges_before.empty());
  ASSERT_FALSE(full.empty());
  EXPECT_LT(full.size(), 300u) << "a switch on the full disk must fail";
  EXPECT_EQ(full.back(), WT_PANIC) << wiredtiger_strerror(full.back());
  EXPECT_EQ(sim::wt_threads::take_log_switch_wedges(), std::vector<int>{ENOSPC});
}

}  // namespace
}  // namespace wtsim
