// Replica set members in one run (world/replica_set_spec.h, world/node_host.h): the section's
// rules as MongoDB's configuration has them, one member running exactly as a single node, and
// each member's own disk, fault plan, lifecycle and history.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "world/world.h"

namespace wtsim::world {
namespace {

const std::string kSource = WTSIM_SOURCE_DIR;

std::string scenario_error(const std::string& members, const std::string& kind = "documents") {
  try {
    scenario_from_json(nlohmann::json::parse(R"({"name": "rs", "duration_ms": 1000, "workload": {"kind": ")" + kind +
                                             R"("}, "replica_set": {"members": )" + members + "}}"),
                       "rs.json");
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

size_t member_of(const nlohmann::json& e) {
  return e.contains("details") && e["details"].is_object() ? e["details"].value("member", size_t{0}) : 0;
}

// Events by member and kind.
std::map<std::pair<size_t, std::string>, size_t> census(const traces::Trace& trace) {
  std::map<std::pair<size_t, std::string>, size_t> out;
  for (const auto& e : trace.events()) ++out[{member_of(e), e["kind"].get<std::string>()}];
  return out;
}

TEST(ReplicaSetSpec, MongoDBsConfigurationRulesAreRefusedNamingTheField) {
  EXPECT_EQ(scenario_error(R"([{}, {"priority": 0.5}, {"priority": 0, "hidden": true}])"), "");
  EXPECT_NE(scenario_error(R"([{}, {"hidden": true}])").find("rs.json: /replica_set/members/1/priority: a hidden member must have priority 0"),
            std::string::npos);
  EXPECT_NE(scenario_error(R"([{}, {"votes": 0}])").find("/replica_set/members/1/priority: a non-voting member must have priority 0"),
            std::string::npos);
  EXPECT_NE(scenario_error(R"([{}, {"votes": 2}])").find("/replica_set/members/1/votes: must be 0 or 1"), std::string::npos);
  EXPECT_NE(scenario_error(R"([{"priority": 0}, {}])").find("/replica_set/members/0/priority: the first member is the primary"),
            std::string::npos);
  EXPECT_NE(scenario_error(R"([{"fault_plan": []}, {}])").find("/replica_set/members/0/fault_plan"), std::string::npos);
  EXPECT_NE(scenario_error(R"([{}, {"priority": 2000}])").find("/replica_set/members/1/priority: must be in [0, 1000]"),
            std::string::npos);
  EXPECT_NE(scenario_error(R"([{}, {"arbiterOnly": true}])").find("/replica_set/members/1/arbiterOnly"), std::string::npos);
  EXPECT_NE(scenario_error("[]").find("/replica_set/members: must be a list of 1 to 50 members"), std::string::npos);
  EXPECT_NE(scenario_error(R"([{},{},{},{},{},{},{},{}])").find("/replica_set/members: at most 7 members may vote"),
            std::string::npos);
  EXPECT_EQ(scenario_error(R"([{},{},{},{},{},{},{},{"votes": 0, "priority": 0}])"), "");  // the eighth does not vote
  EXPECT_NE(scenario_error("[{}, {}]", "kv").find("not workload kind \"kv\""), std::string::npos);
  EXPECT_EQ(scenario_error("[{}]", "kv"), "");  // one member is a single node, whatever it runs
}

TEST(ReplicaSet, OneMemberRunsExactlyAsASingleNode) {
  const Scenario plain = load_scenario(kSource + "/scenarios/documents.json", {"duration_ms=3000"});
  const Scenario one = load_scenario(kSource + "/scenarios/documents.json", {"duration_ms=3000", R"(replica_set={"members": [{}]})"});
  ASSERT_EQ(one.replica_set.size(), 1u);
  for (uint64_t seed : {1, 2}) {
    const RunResult a = run_scenario(plain, seed), b = run_scenario(one, seed);
    EXPECT_EQ(a.trace->to_json()["events"], b.trace->to_json()["events"]) << "seed " << seed;
    EXPECT_EQ(a.stats.crashes, b.stats.crashes);
  }
}

TEST(ReplicaSet, EachMemberHasItsOwnDiskFaultsLifecycleAndHistory) {
  // The primary takes no fault; member 2 loses power at 1.5 s; member 1 takes none.
  const Scenario s = load_scenario(kSource + "/scenarios/replica_set_members.json",
                                   {"duration_ms=3000", "liveness_ms=2000", "swarm=null", "fault_plan=[]",
                                    R"(replica_set={"members": [{}, {"priority": 0.5}, {"priority": 0, "hidden": true,
                                        "fault_plan": [{"kind": "crash", "at_ms": 1500, "mode": "torn_prefix"}]}]})"});
  const RunResult r = run_scenario(s, 1);
  ASSERT_TRUE(r.ok) << r.violations.front().name() << ": " << r.violations.front().detail;
  const auto n = census(*r.trace);
  EXPECT_EQ(r.stats.crashes, 1u);
  EXPECT_EQ((n.count({2, "crash"}) ? n.at({2, "crash"}) : 0), 1u);
  EXPECT_EQ(n.count({0, "crash"}) + n.count({1, "crash"}), 0u);
  EXPECT_EQ(n.at({2, "started"}), 2u);  // its restart
  EXPECT_EQ(n.at({0, "started"}), 1u);
  EXPECT_EQ(n.at({1, "started"}), 1u);
  // Recovery checks: member 2's after its crash and at its clean reopen; one clean reopen each for the others.
  EXPECT_EQ(n.at({2, "recovery_check"}), 2u);
  EXPECT_EQ(n.at({0, "recovery_check"}), 1u);
  EXPECT_EQ(n.at({1, "recovery_check"}), 1u);
  // The primary's clients commit; a member that is not primary takes no client write.
  EXPECT_GT(n.at({0, "commit"}), 100u);
  EXPECT_EQ(n.count({1, "commit"}) + n.count({2, "commit"}), 0u);
  // Each member checkpoints its own WiredTiger, and its fibers are its own.
  for (size_t m : {0, 1, 2}) EXPECT_GT(n.at({m, "checkpoint"}), 0u) << "member " << m;
  bool m2_fibers = false;
  for (const auto& e : r.trace->events()) m2_fibers |= e["actor"].get<std::string>().find(".m2.g2") != std::string::npos;
  EXPECT_TRUE(m2_fibers) << "member 2's second generation names its fibers";
}

TEST(ReplicaSet, ASecondarysTtlMonitorPassesAndDeletesNothing) {
  const Scenario s = draw_knobs(load_scenario(kSource + "/scenarios/swarm_ttl.json",
                                              {"duration_ms=20000", "liveness_ms=0", "knobs={}", "swarm=null", "fault_plan=[]",
                                               "ttl.expire_after_s=2", "ttl.monitor_sleep_s=2",
                                               R"(replica_set={"members": [{}, {"priority": 0}]})"}),
                                1);
  const RunResult r = run_scenario(s, 1);
  ASSERT_TRUE(r.ok) << r.violations.front().name() << ": " << r.violations.front().detail;
  uint64_t primary_deleted = 0, secondary_passes = 0, secondary_deleted = 0;
  for (const auto& e : r.trace->events()) {
    if (e["kind"] != "ttl_pass") continue;
    const bool secondary = e["actor"].get<std::string>().find(".m1.") != std::string::npos;
    (secondary ? secondary_deleted : primary_deleted) += e["details"]["deleted"].get<uint64_t>();
    secondary_passes += secondary ? 1 : 0;
  }
  EXPECT_GT(primary_deleted, 0u);
  EXPECT_GE(secondary_passes, 5u);
  EXPECT_EQ(secondary_deleted, 0u);
}

}  // namespace
}  // namespace wtsim::world
