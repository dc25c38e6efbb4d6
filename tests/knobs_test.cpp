// Swarm knobs (world/knobs.h), BUGGIFY (sim/buggify.h) and the liveness phase
// (world/liveness.cpp).
#include <gtest/gtest.h>

#include <set>

#include "sim/buggify.h"
#include "runs/replay.h"
#include "world/world.h"

namespace wtsim::world {

using namespace runs;  // replay and shrink drive whole runs of this world
namespace {

const std::string kSource = WTSIM_SOURCE_DIR;

Scenario with_knobs() {
  return scenario_from_json(nlohmann::json::parse(R"({
    "name": "k", "duration_ms": 2000,
    "workload": {"kind": "documents", "writers": 2, "keys": 50},
    "knobs": {"node.cache_mb": {"min": 2, "max": 64},
              "node.lock_policy": {"one_of": ["document", "collection"]},
              "workload.durable_fraction": {"min": 0.0, "max": 1.0}},
    "fault_plan": []})"),
                            "k.json");
}

TEST(Knobs, EachSeedDrawsWithinTheDeclaredRangesAndTheSameSeedDrawsTheSame) {
  const Scenario s = with_knobs();
  std::set<std::string> policies;
  std::set<uint64_t> caches;
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    const Scenario a = draw_knobs(s, seed), b = draw_knobs(s, seed);
    EXPECT_EQ(a.source, b.source);
    EXPECT_GE(a.node.cache_mb, 2u);
    EXPECT_LE(a.node.cache_mb, 64u);
    EXPECT_GE(a.workload.durable_fraction, 0.0);
    EXPECT_LE(a.workload.durable_fraction, 1.0);
    EXPECT_TRUE(a.knobs.empty());
    EXPECT_FALSE(a.source.contains("knobs"));
    EXPECT_EQ(a.source["knobs_drawn"]["node.cache_mb"], a.node.cache_mb);
    policies.insert(a.node.lock_policy == engine::LockPolicy::kDocument ? "document" : "collection");
    caches.insert(a.node.cache_mb);
  }
  EXPECT_EQ(policies.size(), 2u);  // both choices drawn
  EXPECT_GT(caches.size(), 10u);   // the range is really sampled
}

TEST(Knobs, TheTraceHeaderHoldsTheDrawnScenarioSoReplayDoesNotDrawAgain) {
  const RunResult r = run_scenario(draw_knobs(with_knobs(), 7), 7);
  const nlohmann::json doc = r.trace->to_json();
  const nlohmann::json& scenario = doc["header"]["scenario"];
  EXPECT_FALSE(scenario.contains("knobs"));
  EXPECT_EQ(scenario["node"]["cache_mb"], scenario["knobs_drawn"]["node.cache_mb"]);
  const ReplayResult again = replay(doc, "k.json");
  EXPECT_FALSE(again.divergence.has_value());
}

TEST(Knobs, ARecordedScenarioWithKnobsLeftIsRefusedNamingTheField) {
  nlohmann::json doc = run_scenario(draw_knobs(with_knobs(), 7), 7).trace->to_json();
  doc["header"]["scenario"]["knobs"] = with_knobs().source["knobs"];  // as if never drawn
  try {
    replay(doc, "k.json");
    FAIL() << "a header scenario with knobs left must be refused";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("k.json: /header/scenario/knobs"), std::string::npos) << e.what();
  }
  // Drawn, it replays: the refusal is about the knobs alone.
  doc["header"]["scenario"].erase("knobs");
  EXPECT_FALSE(replay(doc, "k.json").divergence.has_value());
}

TEST(Buggify, OffNeverFiresAndOnDecidesPerSiteDeterministically) {
  sim::Buggify off(false, 1);
  for (int i = 0; i < 100; ++i) EXPECT_FALSE(off.fire("site"));
  EXPECT_TRUE(off.report().empty());
  uint64_t fired_sites = 0;
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    sim::Buggify a(true, seed), b(true, seed);
    for (int i = 0; i < 200; ++i) {
      for (const char* site : {"x", "y", "z"}) ASSERT_EQ(a.fire(site), b.fire(site));
    }
    const nlohmann::json report = a.report();
    EXPECT_EQ(report, b.report());
    for (const auto& [site, n] : report.items()) {
      EXPECT_GT(n.get<uint64_t>(), 20u);  // an enabled site fires about a quarter of the time
      EXPECT_LT(n.get<uint64_t>(), 90u);
      ++fired_sites;
    }
  }
  EXPECT_GT(fired_sites, 15u);  // about a quarter of 120 site decisions
  EXPECT_LT(fired_sites, 50u);
  EXPECT_FALSE(sim::buggify(nullptr, "x"));  // engines outside the simulator
}

TEST(Liveness, ANodeThatConvergesAfterTheFaultsPasses) {
  const Scenario s = load_scenario(kSource + "/scenarios/swarm_ttl.json", {"duration_ms=20000", "liveness_ms=30000"});
  for (uint64_t seed = 1; seed <= 4; ++seed) {
    const RunResult r = run_scenario(draw_knobs(s, seed), seed);
    ASSERT_TRUE(r.ok) << "seed " << seed << ": " << r.violations.front().detail;
    bool converged = false;
    for (const auto& e : r.trace->events()) converged = converged || e["kind"] == "converged";
    EXPECT_TRUE(converged) << "seed " << seed;
  }
}

TEST(Liveness, ATtlMonitorThatDoesNotRunInTimeIsALivenessViolation) {
  // A pass every 60 s cannot follow a 10 s liveness window: the property must say so.
  const Scenario s = load_scenario(kSource + "/scenarios/swarm_ttl.json",
                                   {"duration_ms=5000", "liveness_ms=10000", "knobs={}", "ttl.monitor_sleep_s=60", "fault_plan=[]", "swarm=null"});
  const RunResult r = run_scenario(s, 1);
  ASSERT_EQ(r.violations.size(), 1u);
  EXPECT_EQ(r.violations[0].property, properties::Property::kLiveness);
  EXPECT_NE(r.violations[0].detail.find("no complete TTL pass since the faults stopped"), std::string::npos);
}

}  // namespace
}  // namespace wtsim::world
