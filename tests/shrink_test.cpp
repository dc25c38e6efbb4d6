// Shrinking: the generic reductions on synthetic predicates, then a real failing run (the lying
// sync negative control, padded with irrelevant faults and a longer duration) shrunk to a tiny
// run that still fails the same property and replays identically.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstdio>
#include <fstream>
#include <iostream>

#include "runs/forked_batch.h"
#include "runs/replay.h"
#include "runs/shrink.h"
#include "traces/trace_reader.h"

namespace wtsim::world {

using namespace runs;  // replay and shrink drive whole runs of this world
namespace {

const std::string kSource = WTSIM_SOURCE_DIR;
const std::string kProperty = "recovered_state_is_prefix";

bool contains(const std::vector<size_t>& set, size_t item) { return std::find(set.begin(), set.end(), item) != set.end(); }

TEST(Shrink, DdminFindsTheTwoItemsThatMatter) {
  size_t calls = 0;
  const auto fails = [&](const std::vector<size_t>& s) { return ++calls, contains(s, 2) && contains(s, 5); };
  EXPECT_EQ(ddmin(8, fails), (std::vector<size_t>{2, 5}));
  EXPECT_LT(calls, 40u);
  EXPECT_EQ(ddmin(5, [](const std::vector<size_t>& s) { return contains(s, 3); }), (std::vector<size_t>{3}));
  // Everything matters: nothing is dropped.
  EXPECT_EQ(ddmin(3, [](const std::vector<size_t>& s) { return s.size() == 3; }), (std::vector<size_t>{0, 1, 2}));
}

TEST(Shrink, BisectDownFindsTheSmallestFailingValue) {
  EXPECT_EQ(bisect_down(1000, 1, [](uint64_t v) { return v >= 37; }), 37u);
  EXPECT_EQ(bisect_down(1000, 0, [](uint64_t) { return true; }), 0u);
  EXPECT_EQ(bisect_down(1000, 0, [](uint64_t v) { return v == 1000; }), 1000u);
  size_t calls = 0;
  EXPECT_EQ(bisect_down(10, 10, [&](uint64_t) { return ++calls, true; }), 10u);
  EXPECT_EQ(calls, 0u);
}

// With a slack divisor the bisection stops once the interval is within 1/d of its failing end:
// fewer runs, a value still failing and close above the exact one.
TEST(Shrink, BisectDownWithSlackStopsCloseAboveTheSmallestValue) {
  size_t exact_calls = 0, slack_calls = 0;
  EXPECT_EQ(bisect_down(60000, 1, [&](uint64_t v) { return ++exact_calls, v >= 5895; }), 5895u);
  const uint64_t found = bisect_down(60000, 1, [&](uint64_t v) { return ++slack_calls, v >= 5895; }, 32);
  EXPECT_GE(found, 5895u) << "what it returns still fails";
  EXPECT_LE(found, 5895u + 5895u / 16) << "and lies within the slack";
  EXPECT_LT(slack_calls, exact_calls);
}

// ddmin with each round's subsets as one batch gives ddmin's own result, whichever the predicate.
TEST(Shrink, DdminBatchedMatchesDdmin) {
  for (size_t items : {1u, 2u, 7u, 8u, 13u}) {
    for (size_t a = 0; a < items; ++a) {
      const size_t b = (a * 5 + 3) % items;
      const auto fails = [&](const std::vector<size_t>& s) { return contains(s, a) && contains(s, b); };
      size_t batches = 0;
      const std::vector<size_t> batched = ddmin_batched(items, [&](const std::vector<std::vector<size_t>>& subsets) -> std::optional<size_t> {
        ++batches;
        for (size_t i = 0; i < subsets.size(); ++i) {
          if (fails(subsets[i])) return i;
        }
        return std::nullopt;
      });
      EXPECT_EQ(batched, ddmin(items, fails)) << items << " items, " << a << " and " << b << " matter";
      EXPECT_TRUE(contains(batched, a) && contains(batched, b));
    }
  }
}

// Two probes a round try what one probe a round tries, in the same order (each round's values up
// to its first failing one), in fewer rounds when probes do not fail.
TEST(Shrink, BisectDownBatchedTriesTheSameValuesInFewerRounds) {
  for (uint64_t smallest : {1u, 2u, 37u, 999u, 1000u}) {
    for (uint64_t slack : {0u, 32u}) {
      std::vector<uint64_t> tried[3];
      size_t rounds[3] = {0, 0, 0};
      const auto search = [&](size_t probes) {
        return bisect_down_batched(
            1000, 1,
            [&](const std::vector<uint64_t>& values) -> std::optional<size_t> {
              ++rounds[probes];
              EXPECT_LE(values.size(), probes);
              EXPECT_TRUE(std::is_sorted(values.begin(), values.end()));
              for (size_t i = 0; i < values.size(); ++i) {
                tried[probes].push_back(values[i]);
                if (values[i] >= smallest) return i;
              }
              return std::nullopt;
            },
            slack, probes);
      };
      const uint64_t found = search(1);
      EXPECT_EQ(search(2), found);
      EXPECT_EQ(found, bisect_down(1000, 1, [&](uint64_t v) { return v >= smallest; }, slack));
      if (slack == 0) {
        EXPECT_EQ(found, smallest);
      }
      EXPECT_EQ(tried[2], tried[1]) << smallest;
      EXPECT_LE(rounds[2], rounds[1]);
      if (smallest == 1000) {
        EXPECT_LT(rounds[2], rounds[1]) << "nothing below fails: every round takes two steps";
      }
    }
  }
}

// Children's reports come back in the jobs' order whatever order they finish in; a crashed child
// reports nothing; stopping the batch starts no more and kills the ones running.
TEST(ForkedBatch, ReportsInOrderAndStops) {
  std::vector<size_t> taken;
  ForkedBatch b;
  b.count = 6;
  b.parallel = 2;
  b.job = [](size_t i) -> ReportWords {
    if (i == 2) std::abort();  // a crash
    usleep(static_cast<useconds_t>((6 - i) * 20'000));  // later jobs finish sooner
    return {i * 10, 0, 0, 0};
  };
  size_t started = 0;
  b.may_start = [&] { return ++started, true; };
  b.take = [&](size_t i, const ChildReport& r) {
    taken.push_back(i);
    EXPECT_EQ(r.completed, i != 2);
    if (r.completed) {
      EXPECT_EQ(r.words[0], i * 10);
    }
    return i < 3;
  };
  EXPECT_EQ(run_forked_batch(b), 4u);
  EXPECT_EQ(taken, (std::vector<size_t>{0, 1, 2, 3}));
  EXPECT_LE(started, 6u);
  // A budget that says no after two: the rest never start.
  taken.clear();
  started = 0;
  b.job = [](size_t i) -> ReportWords { return {i, 0, 0, 0}; };
  b.may_start = [&] { return ++started <= 2; };
  b.take = [&](size_t i, const ChildReport&) { return taken.push_back(i), true; };
  EXPECT_EQ(run_forked_batch(b), 2u);
  EXPECT_EQ(taken, (std::vector<size_t>{0, 1}));
}

// The negative control run from a swarm scenario (as explore's traces are), with the lying-sync
// plan padded by three faults that play no part and twice the duration.
nlohmann::json padded_failing_header() {
  std::ifstream in(kSource + "/scenarios/negative_lying_sync.json");
  nlohmann::json j = nlohmann::json::parse(in);
  faults::FaultPlan plan = faults::plan_from_json(j["fault_plan"], "/fault_plan");
  j.erase("fault_plan");
  j["swarm"] = {{"crashes_max", 1}};
  j["duration_ms"] = 20000;
  const nlohmann::json noise = nlohmann::json::parse(R"([
    {"kind": "latency", "at_ms": 3000, "until_ms": 3500, "factor": 5},
    {"kind": "io_error", "op": "read", "file": "no-such-file", "at_disk_op": 5},
    {"kind": "crash", "at_ms": 12000, "mode": "torn_prefix"}])");
  for (const auto& f : noise) plan.faults.push_back(faults::fault_from_json(f, "/noise"));
  const Scenario s = scenario_from_json(j, "padded");
  RunResult r = run_scenario(s, 2, &plan);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.violations.at(0).name(), kProperty);
  return r.trace->header();
}

TEST(Shrink, ShrinksThePaddedNegativeControlToAFewEvents) {
  const nlohmann::json header = padded_failing_header();
  ShrinkResult r = shrink(header, kProperty, {200, 60});
  std::cout << "shrink: events " << r.before.events << " -> " << r.after.events << ", client operations "
            << r.before.operations << " -> " << r.after.operations << ", faults " << r.before.faults << " -> " << r.after.faults << ", duration "
            << r.before.duration_ms << " -> " << r.after.duration_ms << " ms, " << r.runs << " runs, " << r.wall_s
            << " s\n";
  ASSERT_TRUE(r.reproduced);
  EXPECT_LE(r.runs, 200u);
  // The issue's goal: at most 5 % of the events or at most 20 operations.
  EXPECT_LE(r.after.events * 20, r.before.events);
  EXPECT_LE(r.after.operations, 20u);
  EXPECT_EQ(r.after.faults, 2u);  // the lying sync and one crash; the padding is gone
  EXPECT_LT(r.after.duration_ms, 20000u);

  // The minimal run fails the same property, its header describes it by itself (explicit plan,
  // no swarm), and it replays identically.
  const RunResult& m = r.minimal;
  EXPECT_TRUE(std::any_of(m.violations.begin(), m.violations.end(), [](const auto& v) { return v.name() == kProperty; }));
  const nlohmann::json& h = m.trace->header();
  EXPECT_FALSE(h["scenario"].contains("swarm"));
  EXPECT_EQ(h["scenario"]["fault_plan"], h["fault_plan"]);
  EXPECT_EQ(h["seed"], 2);
  const std::string path = ::testing::TempDir() + "/wtsim_shrink_min.json";
  m.trace->write(path);
  ReplayResult again = replay_file(path);
  EXPECT_FALSE(again.divergence.has_value());
  EXPECT_FALSE(again.run.ok);
  EXPECT_EQ(again.run.trace->hash(), m.trace->hash());
  std::remove(path.c_str());
}

// Two jobs try the candidates one job tries, in the same order (a batch's reports are taken in
// order; a search's batch is what it would probe next): two shrinks that end at a fixpoint (not
// cut by the budget), one with each, end on the same run, failing the same property. (How many
// runs each started may differ: a child started ahead is killed once an earlier one is kept.)
TEST(Shrink, TwoJobsEndOnTheRunOneJobEndsOn) {
  const nlohmann::json header = padded_failing_header();
  ShrinkResult one = shrink(header, kProperty, {500, 120, 1});
  ShrinkResult two = shrink(header, kProperty, {500, 120, 2});
  ASSERT_TRUE(one.reproduced && two.reproduced);
  ASSERT_FALSE(one.budget_exhausted || two.budget_exhausted) << "a fixpoint, not a budget's cut";
  EXPECT_EQ(two.minimal.trace->hash(), one.minimal.trace->hash());
  EXPECT_LE(two.after.operations, 20u);
  EXPECT_TRUE(std::any_of(two.minimal.violations.begin(), two.minimal.violations.end(), [](const auto& v) { return v.name() == kProperty; }));
  std::cout << "one job: " << one.runs << " runs, " << one.wall_s << " s; two jobs: " << two.runs << " runs, " << two.wall_s << " s\n";
}

TEST(Shrink, TimeDividedScalesEveryTimeOfTheRunTogether) {
  ShrinkCandidate c;
  c.scenario = nlohmann::json::parse(R"({"duration_ms": 90000, "node": {"checkpoint_interval_ms": 500, "journal_commit_interval_ms": 100},
    "workload": {"think_us": 5000, "stop_inserts_at_ms": 60000},
    "ttl": {"expire_after_s": 30, "monitor_sleep_s": 10, "touch_every_ms": 5},
    "backup": {"start_ms": 20000, "copy_mb_per_s": 2, "hot_docs": 800}})");
  c.plan.faults.push_back(faults::fault_from_json(nlohmann::json::parse(R"({"kind": "crash", "at_ms": 20021})"), "/f"));
  c.plan.faults.push_back(faults::fault_from_json(nlohmann::json::parse(R"({"kind": "crash", "at_disk_op": 7})"), "/g"));
  const std::optional<ShrinkCandidate> q = time_divided(c, 16);
  ASSERT_TRUE(q.has_value());
  const nlohmann::json& s = q->scenario;
  EXPECT_EQ(s["duration_ms"], 5625);
  EXPECT_EQ(s["node"]["checkpoint_interval_ms"], 31);
  EXPECT_EQ(s["workload"]["stop_inserts_at_ms"], 3750);
  EXPECT_EQ(s["ttl"]["expire_after_s"], 1);  // 30 / 16, whole seconds, at least 1
  EXPECT_EQ(s["ttl"]["monitor_sleep_s"], 1);
  EXPECT_EQ(s["backup"]["start_ms"], 1250);
  EXPECT_EQ(s["backup"]["copy_mb_per_s"], 32);  // the copy takes a sixteenth of the time too
  // Client pauses, counts and the journal's interval stay.
  EXPECT_EQ(s["workload"]["think_us"], 5000);
  EXPECT_EQ(s["ttl"]["touch_every_ms"], 5);
  EXPECT_EQ(s["backup"]["hot_docs"], 800);
  EXPECT_EQ(s["node"]["journal_commit_interval_ms"], 100);
  // The plan moves with the run, and the scenario records it.
  ASSERT_EQ(q->plan.faults.size(), 2u);
  EXPECT_EQ(*q->plan.faults[0].at_ns, 1251 * sim::kNsPerMs);  // whole milliseconds, as the header records them
  EXPECT_EQ(*q->plan.faults[1].at_disk_op, 7u);
  EXPECT_EQ(s["fault_plan"], faults::to_json(q->plan));
  EXPECT_FALSE(s.contains("swarm"));
  // A replica set's member plans and network faults move with the run.
  c.scenario["replica_set"] = nlohmann::json::parse(R"({"members": [{}, {"fault_plan": [{"kind": "crash", "at_ms": 2500},
    {"kind": "crash", "at_disk_op": 40}]}], "network_faults": [{"kind": "isolate", "member": 2, "at_ms": 4000, "until_ms": 6000}]})");
  const nlohmann::json rs = time_divided(c, 4)->scenario["replica_set"];
  EXPECT_EQ(rs["members"][1]["fault_plan"][0]["at_ms"], 625);
  EXPECT_EQ(rs["members"][1]["fault_plan"][1]["at_disk_op"], 40);
  EXPECT_EQ(rs["network_faults"][0]["at_ms"], 1000);
  EXPECT_EQ(rs["network_faults"][0]["until_ms"], 1500);
  EXPECT_EQ(rs["network_faults"][0]["member"], 2);
  // Its elections, write concern timeout and latency too, as low as the scenario reader accepts;
  // the liveness phase with the run, and none stays none.
  c.scenario["liveness_ms"] = 8000u;  // unsigned, as a parsed scenario's
  c.scenario["replica_set"].update(nlohmann::json::parse(R"({"elections": {"heartbeat_interval_ms": 500, "election_timeout_ms": 3000},
    "wtimeout_ms": 2000, "latency_min_ms": 1, "latency_max_ms": 42})"));
  const nlohmann::json quarter = time_divided(c, 4)->scenario;
  EXPECT_EQ(quarter["liveness_ms"], 2000);
  EXPECT_EQ(quarter["replica_set"]["elections"]["heartbeat_interval_ms"], 125);
  EXPECT_EQ(quarter["replica_set"]["elections"]["election_timeout_ms"], 750);
  EXPECT_EQ(quarter["replica_set"]["wtimeout_ms"], 500);
  EXPECT_EQ(quarter["replica_set"]["latency_min_ms"], 0);
  EXPECT_EQ(quarter["replica_set"]["latency_max_ms"], 10);
  const nlohmann::json sixteenth = time_divided(c, 16)->scenario;
  EXPECT_EQ(sixteenth["replica_set"]["elections"]["heartbeat_interval_ms"], 100);  // the reader's minimum
  EXPECT_EQ(sixteenth["replica_set"]["elections"]["election_timeout_ms"], 200);    // two heartbeats
  ShrinkCandidate failover;
  failover.scenario = nlohmann::json::parse(std::ifstream(kSource + "/scenarios/failover.json"));
  const nlohmann::json failover_64 = time_divided(failover, 64)->scenario;
  EXPECT_EQ(failover_64["liveness_ms"], 400);  // 8000 / 64 = 125, raised to two election timeouts of 200
  EXPECT_NO_THROW(world::recorded_scenario(failover_64, "failover divided by 64"));
  c.scenario["liveness_ms"] = 0u;
  EXPECT_EQ(time_divided(c, 4)->scenario["liveness_ms"], 0);
  // A duration shorter than the divisor does not divide.
  c.scenario["duration_ms"] = 15;
  EXPECT_FALSE(time_divided(c, 16).has_value());
}

TEST(Shrink, AFailureThatDoesNotReproduceIsReported) {
  const Scenario s = load_scenario(kSource + "/scenarios/smoke.json");
  RunResult passing = run_scenario(s, 3);
  ASSERT_TRUE(passing.ok);
  ShrinkResult r = shrink(passing.trace->header(), kProperty, {200, 60});
  EXPECT_FALSE(r.reproduced);
  EXPECT_EQ(r.runs, 1u);
  EXPECT_EQ(r.after.events, r.before.events);
}

TEST(Shrink, TheRunCapIsRespected) {
  ShrinkResult r = shrink(padded_failing_header(), kProperty, {5, 60});
  ASSERT_TRUE(r.reproduced);
  EXPECT_EQ(r.runs, 5u);
  EXPECT_TRUE(r.budget_exhausted);
  // Five runs: the reproduction and the time scale pass's four candidates (the coarse pass comes
  // first); the fault plan's pass never started, and what is kept still fails.
  EXPECT_EQ(r.after.faults, r.before.faults);
  EXPECT_LE(r.after.events, r.before.events);
  EXPECT_TRUE(std::any_of(r.minimal.violations.begin(), r.minimal.violations.end(),
                          [](const auto& v) { return v.name() == kProperty; }));
}

}  // namespace
}  // namespace wtsim::world
