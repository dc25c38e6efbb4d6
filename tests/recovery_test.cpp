// Recovery on real WiredTiger over the simulated disk: a crash at every disk operation of a small
// run, in every crash mode, keeps every acknowledged durable commit and invents nothing.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "world/world.h"

namespace wtsim::world {
namespace {

Scenario tiny_scenario() {
  nlohmann::json j = {{"name", "tiny"},
                      {"duration_ms", 400},
                      {"node", {{"checkpoint_interval_ms", 150}, {"journal_commit_interval_ms", 50}}},
                      {"workload", {{"writers", 2}, {"keys", 20}, {"think_us", 10000}}},
                      {"fault_plan", nlohmann::json::array()}};
  return scenario_from_json(j, "tiny");
}

uint64_t disk_ops_of_a_clean_run(const Scenario& s) {
  // The plan's disk-op counter is deterministic: count it with a crash that never fires.
  faults::FaultPlan plan;
  faults::Fault never;
  never.kind = faults::FaultKind::kCrash;
  never.at_disk_op = UINT64_MAX;
  plan.faults.push_back(never);
  RunResult r = run_scenario(s, 1, &plan);
  EXPECT_TRUE(r.ok);
  EXPECT_EQ(r.stats.crashes, 0u);
  uint64_t ops = 0;
  for (const auto& e : r.trace->events()) {
    if (e["kind"] == "commit") ops = std::max<uint64_t>(ops, e["details"]["seq"].get<uint64_t>());
  }
  return ops;
}

class CrashEverywhere : public ::testing::TestWithParam<faults::CrashMode> {};

TEST_P(CrashEverywhere, EveryDiskOpOfASmallRun) {
  const Scenario s = tiny_scenario();
  ASSERT_GT(disk_ops_of_a_clean_run(s), 10u);  // the run does real work
  uint64_t crashed_runs = 0;
  for (uint64_t op = 1; op <= 160; ++op) {
    faults::FaultPlan plan;
    faults::Fault crash;
    crash.kind = faults::FaultKind::kCrash;
    crash.at_disk_op = op;
    crash.crash_mode = GetParam();
    plan.faults.push_back(crash);
    RunResult r = run_scenario(s, op, &plan);
    crashed_runs += r.stats.crashes;
    ASSERT_TRUE(r.ok) << "crash at disk op " << op << ": " << r.violations.front().name() << ": "
                      << r.violations.front().detail;
    ASSERT_GE(r.stats.recoveries, r.stats.crashes);
  }
  EXPECT_EQ(crashed_runs, 160u);  // every op index was reached: the crash points are real
}

INSTANTIATE_TEST_SUITE_P(AllModes, CrashEverywhere,
                         ::testing::Values(faults::CrashMode::kDropUnsynced, faults::CrashMode::kTornPrefix,
                                           faults::CrashMode::kSectorDamage),
                         [](const auto& info) { return std::string(faults::to_string(info.param)); });

// A run that keeps WiredTiger's eviction busy: a 1 MB cache, several times that in values.
Scenario evicting_scenario() {
  nlohmann::json j = {{"name", "evicting"},
                      {"duration_ms", 150},
                      {"node", {{"cache_mb", 1}, {"checkpoint_interval_ms", 50}, {"journal_commit_interval_ms", 30}, {"metrics_interval_ms", 0}}},
                      {"workload", {{"writers", 2}, {"keys", 1200}, {"think_us", 300}, {"value_bytes_min", 400},
                                    {"value_bytes_max", 1200}, {"durable_fraction", 0.3}}},
                      {"fault_plan", nlohmann::json::array()}};
  return scenario_from_json(j, "evicting");
}

// Every disk operation counts, whichever fiber makes it: crashes land inside WiredTiger's own
// eviction and inside checkpoints, and each recovers in process, the same way every time.
TEST(Recovery, ACrashAtDiskOpsOfARunThatEvictsRecovers) {
  const Scenario s = evicting_scenario();
  std::map<std::string, uint64_t> reached;
  uint64_t crashed_runs = 0;
  for (uint64_t op = 3; op <= 600; op += 13) {
    faults::FaultPlan plan;
    faults::Fault crash;
    crash.kind = faults::FaultKind::kCrash;
    crash.at_disk_op = op;
    crash.crash_mode = static_cast<faults::CrashMode>(op % 3);
    plan.faults.push_back(crash);
    RunResult r = run_scenario(s, op, &plan);
    crashed_runs += r.stats.crashes > 0 ? 1 : 0;
    ASSERT_TRUE(r.ok) << "crash at disk op " << op << ": " << r.violations.front().name() << ": " << r.violations.front().detail;
    ASSERT_GE(r.stats.recoveries, r.stats.crashes);
    for (const auto& [marker, n] : r.trace->verdict()["coverage"].items()) reached[marker] += n.get<uint64_t>() > 0 ? 1 : 0;
    if (op % 91 == 3) {  // and again: the same seed, the same run
      RunResult again = run_scenario(s, op, &plan);
      ASSERT_EQ(again.trace->hash(), r.trace->hash()) << "crash at disk op " << op;
    }
  }
  EXPECT_GT(crashed_runs, 30u);
  EXPECT_GT(reached["crash_during_eviction"], 0u) << "no crash point fell inside WiredTiger's eviction";
  EXPECT_GT(reached["crash_during_checkpoint"], 0u) << "no crash point fell inside a checkpoint";
}

TEST(Recovery, CrashDuringRecoveryIsRecoveredFrom) {
  // Two crashes close together: the second may land inside the first recovery.
  Scenario s = tiny_scenario();
  uint64_t double_crash_runs = 0;
  for (uint64_t gap = 1; gap <= 40; gap += 3) {
    faults::FaultPlan plan;
    faults::Fault first;
    first.kind = faults::FaultKind::kCrash;
    first.at_disk_op = 60;
    faults::Fault second = first;
    second.at_disk_op = 60 + gap;
    second.crash_mode = faults::CrashMode::kTornPrefix;
    plan.faults = {first, second};
    RunResult r = run_scenario(s, gap, &plan);
    ASSERT_TRUE(r.ok) << "gap " << gap << ": " << r.violations.front().detail;
    double_crash_runs += r.stats.crashes == 2 ? 1 : 0;
  }
  EXPECT_GT(double_crash_runs, 5u);
}

}  // namespace
}  // namespace wtsim::world
