// Fault plans: JSON round trip, swarm draws, and errors that name the path and the problem.
#include <gtest/gtest.h>

#include <array>
#include <set>

#include "faults/fault_injector.h"
#include "faults/fault_plan.h"
#include "faults/fault_swarm.h"
#include "sim/json_reader.h"

namespace wtsim::faults {
namespace {

using nlohmann::json;

std::string error_of(const json& j) {
  try {
    plan_from_json(j, "/fault_plan");
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST(FaultPlan, RoundTripsThroughJson) {
  sim::Rng rng(5);
  SwarmSpec spec;
  spec.crashes_max = 3;
  spec.io_error_chance = spec.latency_chance = spec.disk_full_chance = spec.bit_flip_chance =
      spec.misdirected_write_chance = 1.0;
  spec.crash_anchor_chance = 0.5;
  for (int i = 0; i < 20; ++i) {
    const FaultPlan plan = draw_plan(spec, rng, 10 * sim::kNsPerSec);
    const json j = to_json(plan);
    EXPECT_EQ(to_json(plan_from_json(j, "")), j);
  }
}

TEST(FaultPlan, ErrorsNameThePathAndTheProblem) {
  EXPECT_EQ(error_of(json::object()), "/fault_plan: expected an array of faults, found object {}");
  EXPECT_EQ(error_of(json::parse(R"([{"kind":"crash"}])")), "/fault_plan/0: needs a trigger: at_ms, at_disk_op or after");
  EXPECT_EQ(error_of(json::parse(R"([{"kind":"crash","after":{"event":"commit"}}])")),
            "/fault_plan/0/after/event: unknown event \"commit\" (expected checkpoint_start, log_switch, eviction_pass or rollback)");
  EXPECT_EQ(error_of(json::parse(R"([{"kind":"crash","after":{"event":"log_switch","nth":0}}])")), "/fault_plan/0/after/nth: must be at least 1");
  EXPECT_EQ(error_of(json::parse(R"([{"kind":"crash","at_disk_op":3,"after":{"event":"log_switch"}}])")),
            "/fault_plan/0/after: an anchored crash has no at_ms or at_disk_op");
  EXPECT_EQ(error_of(json::parse(R"([{"kind":"crash","at_ms":"10s"}])")),
            "/fault_plan/0/at_ms: expected a non-negative integer, found string \"10s\"");
  EXPECT_EQ(error_of(json::parse(R"([{"kind":"crash","at_ms":1,"mode":"melt"}])")),
            "/fault_plan/0/mode: unknown crash mode \"melt\" (expected drop_unsynced, torn_prefix or sector_damage)");
  EXPECT_EQ(error_of(json::parse(R"([{"kind":"crash","at_ms":1,"moed":"torn_prefix"}])")),
            "/fault_plan/0/moed: unknown field");
  EXPECT_EQ(error_of(json::parse(R"([{"kind":"latency","at_ms":5,"until_ms":5}])")),
            "/fault_plan/0/until_ms: must be after at_ms");
  EXPECT_NE(error_of(json::parse(R"([{"kind":"meteor","at_ms":1}])")).find("unknown fault kind"), std::string::npos);
}

TEST(FaultInjector, CrashFiresAtTheNthMutatingOpOnly) {
  FaultPlan plan;
  Fault crash;
  crash.kind = FaultKind::kCrash;
  crash.at_disk_op = 3;
  crash.crash_mode = CrashMode::kTornPrefix;
  plan.faults.push_back(crash);
  FaultInjector inj(plan);
  EXPECT_FALSE(inj.on_disk_op(FsOp::kWrite, "a").crash);
  EXPECT_FALSE(inj.on_disk_op(FsOp::kRead, "a").crash);  // reads do not count
  EXPECT_FALSE(inj.on_disk_op(FsOp::kSync, "a").crash);
  const FaultDecision d = inj.on_disk_op(FsOp::kWrite, "a");
  EXPECT_TRUE(d.crash);
  EXPECT_EQ(d.crash_mode, CrashMode::kTornPrefix);
  EXPECT_FALSE(inj.on_disk_op(FsOp::kWrite, "a").crash);  // once
  ASSERT_EQ(inj.take_fired().size(), 1u);
}

// An op that crashes never reaches the disk: an I/O error or misdirect due on the same op neither
// rides along on the crash decision nor is spent by it; it meets the next matching op.
TEST(FaultInjector, ACrashCarriesNoOtherFaultOfItsOp) {
  FaultPlan plan;
  Fault eio;
  eio.kind = FaultKind::kIoError;
  eio.op = DiskOp::kWrite;
  eio.at_disk_op = 2;
  Fault misdirect;
  misdirect.kind = FaultKind::kMisdirectedWrite;
  misdirect.at_disk_op = 2;
  Fault crash;
  crash.kind = FaultKind::kCrash;
  crash.at_disk_op = 2;
  plan.faults = {eio, misdirect, crash};  // the crash last in the plan
  FaultInjector inj(plan);
  EXPECT_FALSE(inj.on_disk_op(FsOp::kWrite, "a").crash);
  const FaultDecision d = inj.on_disk_op(FsOp::kWrite, "a");
  EXPECT_TRUE(d.crash);
  EXPECT_EQ(d.error, 0);
  EXPECT_EQ(d.misdirect_bytes, 0u);
  ASSERT_EQ(inj.take_fired().size(), 1u);  // the crash alone
  const FaultDecision next = inj.on_disk_op(FsOp::kWrite, "a");  // the op after the restart
  EXPECT_FALSE(next.crash);
  EXPECT_EQ(next.error, EIO);
  EXPECT_EQ(next.misdirect_bytes, 4096u);
  EXPECT_EQ(inj.take_fired().size(), 2u);
}

TEST(FaultInjector, TransientAndStickyIoErrors) {
  FaultPlan plan;
  Fault transient;
  transient.kind = FaultKind::kIoError;
  transient.op = DiskOp::kSync;
  transient.file = "Log";
  transient.at_disk_op = 2;
  transient.drop_dirty = true;
  Fault sticky = transient;
  sticky.op = DiskOp::kRead;
  sticky.file = "kv";
  sticky.at_disk_op = 1;
  sticky.sticky = true;
  plan.faults = {transient, sticky};
  FaultInjector inj(plan);
  EXPECT_EQ(inj.on_disk_op(FsOp::kSync, "WiredTigerLog.1").error, 0);
  EXPECT_EQ(inj.on_disk_op(FsOp::kSync, "kv.wt").error, 0);  // other file
  const FaultDecision d = inj.on_disk_op(FsOp::kSync, "WiredTigerLog.1");
  EXPECT_EQ(d.error, EIO);
  EXPECT_TRUE(d.drop_dirty);
  EXPECT_EQ(inj.on_disk_op(FsOp::kSync, "WiredTigerLog.1").error, 0);  // transient: once
  for (int i = 0; i < 3; ++i) EXPECT_EQ(inj.on_disk_op(FsOp::kRead, "kv.wt").error, EIO);  // sticky
  inj.set_enabled(false);
  EXPECT_EQ(inj.on_disk_op(FsOp::kRead, "kv.wt").error, 0);
}

// Issue 14: a sticky error is active from its start until a power cycle (never a process crash,
// which does not call power_cycled), and the injector names it while it lasts.
TEST(FaultInjector, StickyErrorsLastUntilAPowerCycle) {
  FaultPlan plan;
  Fault sticky;
  sticky.kind = FaultKind::kIoError;
  sticky.op = DiskOp::kRead;
  sticky.file = "WiredTigerLog";
  sticky.at_disk_op = 2;
  sticky.sticky = true;
  plan.faults = {sticky};
  FaultInjector inj(plan);
  EXPECT_EQ(inj.on_disk_op(FsOp::kRead, "WiredTigerLog.1").error, 0);
  EXPECT_TRUE(inj.active_sticky_errors().empty());  // not started yet
  inj.power_cycled();  // clears nothing that has not started
  EXPECT_EQ(inj.on_disk_op(FsOp::kRead, "WiredTigerLog.1").error, EIO);
  ASSERT_EQ(inj.active_sticky_errors().size(), 1u);
  EXPECT_NE(inj.active_sticky_errors()[0].find("sticky EIO on read of WiredTigerLog"), std::string::npos);
  EXPECT_EQ(inj.on_disk_op(FsOp::kRead, "WiredTigerLog.1").error, EIO);
  EXPECT_EQ(inj.take_fired().size(), 1u);  // recorded once, when it starts
  inj.power_cycled();
  EXPECT_TRUE(inj.active_sticky_errors().empty());
  EXPECT_EQ(inj.on_disk_op(FsOp::kRead, "WiredTigerLog.1").error, 0);
}

TEST(FaultInjector, WindowsAnswerByTime) {
  FaultPlan plan;
  Fault slow;
  slow.kind = FaultKind::kLatency;
  slow.at_ns = 100;
  slow.until_ns = 200;
  slow.factor = 10;
  Fault full = slow;
  full.kind = FaultKind::kDiskFull;
  full.capacity_bytes = 4096;
  plan.faults = {slow, full};
  FaultInjector inj(plan);
  EXPECT_EQ(inj.latency_factor(99), 1.0);
  EXPECT_EQ(inj.latency_factor(150), 10.0);
  EXPECT_EQ(inj.latency_factor(200), 1.0);
  EXPECT_EQ(inj.capacity_at(150), 4096u);
  EXPECT_FALSE(inj.capacity_at(250).has_value());
}

// An anchored crash comes `disk_ops` mutating operations after the first one of the nth
// occurrence of its event: a checkpoint's begins after the world notes it, a log switch's and an
// eviction pass's are the operations the injector sees.
Fault anchored(CrashAnchor event, uint64_t nth, uint64_t disk_ops) {
  Fault f;
  f.kind = FaultKind::kCrash;
  f.after = Anchor{event, nth, disk_ops};
  return f;
}

TEST(FaultInjector, AnchoredCrashesCountFromTheirEvent) {
  FaultPlan plan;
  plan.faults = {anchored(CrashAnchor::kCheckpointStart, 2, 1), anchored(CrashAnchor::kLogSwitch, 1, 0),
                 anchored(CrashAnchor::kEvictionPass, 2, 1), anchored(CrashAnchor::kRollback, 1, 0)};
  FaultInjector inj(plan);
  inj.note(CrashAnchor::kCheckpointStart);                       // the first: not this one
  EXPECT_FALSE(inj.on_disk_op(FsOp::kWrite, "kv.wt").crash);     // op 1
  inj.note(CrashAnchor::kCheckpointStart);                       // the second: its first op is 2
  EXPECT_FALSE(inj.on_disk_op(FsOp::kWrite, "kv.wt").crash);     // op 2
  EXPECT_FALSE(inj.on_disk_op(FsOp::kRead, "kv.wt").crash);      // reads do not count
  EXPECT_TRUE(inj.on_disk_op(FsOp::kWrite, "kv.wt").crash);      // op 3: one after the first
  EXPECT_FALSE(inj.on_disk_op(FsOp::kCreate, "WiredTigerTmplog.0000000001").crash);  // the first log is no switch
  EXPECT_TRUE(inj.on_disk_op(FsOp::kCreate, "WiredTigerTmplog.0000000002").crash);   // disk_ops 0: the creation itself
  EXPECT_FALSE(inj.on_disk_op(FsOp::kWrite, "kv.wt", "wt:evict-server").crash);  // pass 1
  EXPECT_FALSE(inj.on_disk_op(FsOp::kWrite, "kv.wt", "wt:evict-server").crash);
  EXPECT_FALSE(inj.on_disk_op(FsOp::kWrite, "kv.wt", "writer-0").crash);          // the pass ends
  EXPECT_FALSE(inj.on_disk_op(FsOp::kWrite, "kv.wt", "wt:evict-server").crash);  // pass 2 begins
  EXPECT_TRUE(inj.on_disk_op(FsOp::kWrite, "kv.wt", "wt:evict-server").crash);   // one after its first
  inj.note(CrashAnchor::kRollback);                                              // the world's, as a checkpoint's
  EXPECT_TRUE(inj.on_disk_op(FsOp::kCreate, "minvalid.wt").crash);               // disk_ops 0: its first op
  EXPECT_EQ(inj.take_fired().size(), 4u);
  EXPECT_EQ(inj.anchor_counts(), (std::array<uint64_t, kCrashAnchorCount>{2, 1, 2, 1}));
}

// WiredTiger 3.2.1 switches log files by writing WiredTigerTmplog.N, renaming it to
// WiredTigerLog.N, and having its log-close server sync (then close) the file before: a crash
// anywhere in between is one during the switch; the closing sync is its last operation.
TEST(FaultInjector, ALogSwitchLastsFromTheNewFileToTheOldOnesClosingSync) {
  FaultInjector inj(FaultPlan{});
  inj.on_disk_op(FsOp::kCreate, "WiredTigerTmplog.0000000001");
  EXPECT_FALSE(inj.in_log_switch());  // the first log file switches from nothing
  inj.on_disk_op(FsOp::kSync, "WiredTigerLog.0000000001");
  EXPECT_FALSE(inj.in_log_switch());
  inj.on_disk_op(FsOp::kCreate, "WiredTigerTmplog.0000000002");
  EXPECT_TRUE(inj.in_log_switch());
  inj.on_disk_op(FsOp::kRename, "WiredTigerLog.0000000002");
  inj.on_disk_op(FsOp::kWrite, "kv.wt");
  inj.on_disk_op(FsOp::kSync, "WiredTigerLog.0000000002");  // the new file's sync closes nothing
  EXPECT_TRUE(inj.in_log_switch());
  inj.on_disk_op(FsOp::kSync, "WiredTigerLog.0000000001");  // the old file's closing sync
  EXPECT_TRUE(inj.in_log_switch());                         // still part of the switch
  inj.on_disk_op(FsOp::kWrite, "WiredTigerLog.0000000002");
  EXPECT_FALSE(inj.in_log_switch());
  inj.on_disk_op(FsOp::kCreate, "WiredTigerTmplog.0000000003");
  EXPECT_TRUE(inj.in_log_switch());
  inj.node_crashed();  // the switch dies with the process
  EXPECT_FALSE(inj.in_log_switch());
  EXPECT_EQ(inj.anchor_counts()[static_cast<size_t>(CrashAnchor::kLogSwitch)], 2u);
}

TEST(Swarm, AnchoredCrashesAreDrawnOnlyWhenAsked) {
  SwarmSpec spec;
  spec.crashes_max = 3;
  size_t anchored_crashes = 0;
  for (uint64_t seed = 1; seed <= 50; ++seed) {
    sim::Rng rng = sim::stream(seed, "fault-plan");
    for (const Fault& f : draw_plan(spec, rng, 10 * sim::kNsPerSec).faults) anchored_crashes += f.after ? 1 : 0;
  }
  EXPECT_EQ(anchored_crashes, 0u);
  spec.crash_anchor_chance = 1.0;
  spec.anchor_disk_ops_max = 4;
  std::set<CrashAnchor> events;
  for (uint64_t seed = 1; seed <= 50; ++seed) {
    sim::Rng rng = sim::stream(seed, "fault-plan");
    for (const Fault& f : draw_plan(spec, rng, 10 * sim::kNsPerSec).faults) {
      if (f.kind != FaultKind::kCrash) continue;
      ASSERT_TRUE(f.after.has_value());
      EXPECT_FALSE(f.at_disk_op || f.at_ns);
      EXPECT_TRUE(f.after->nth >= 1 && f.after->nth <= spec.anchor_nth_max);
      EXPECT_LT(f.after->disk_ops, 4u);
      events.insert(f.after->event);
    }
  }
  EXPECT_EQ(events.size(), 3u);
}

TEST(Swarm, DifferentSeedsDrawDifferentMixes) {
  SwarmSpec spec;
  spec.latency_chance = 0.5;
  std::set<std::string> plans;
  for (uint64_t seed = 1; seed <= 30; ++seed) {
    sim::Rng rng = sim::stream(seed, "fault-plan");
    plans.insert(to_json(draw_plan(spec, rng, 10 * sim::kNsPerSec)).dump());
  }
  EXPECT_GT(plans.size(), 20u);
}

}  // namespace
}  // namespace wtsim::faults
