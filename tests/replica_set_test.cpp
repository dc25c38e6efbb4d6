// Replica set members in one run (world/replica_set_spec.h, world/node_host.h): the section's
// rules as MongoDB's configuration has them, one member running exactly as a single node, and
// each member's own disk, fault plan, lifecycle and history.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>

#include "faults/network.h"
#include "world/knobs.h"
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
  if (e["kind"] == "convergence_check" || e["kind"] == "convergence_skipped") return 0;  // the run's
  return e.contains("details") && e["details"].is_object() ? e["details"].value("member", size_t{0}) : 0;
}

// The convergence checks of a run: member -> (its digest, the primary's).
std::map<size_t, std::pair<std::string, std::string>> convergence(const traces::Trace& trace) {
  std::map<size_t, std::pair<std::string, std::string>> out;
  for (const auto& e : trace.events()) {
    if (e["kind"] != "convergence_check") continue;
    const auto& d = e["details"];
    out[d["member"].get<size_t>()] = {d["state_digest"].get<std::string>(), d["primary_digest"].get<std::string>()};
  }
  return out;
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
  // The primary's clients commit; the other members commit only what they apply: their oplog
  // fetchers, and at the end the catch-up before their final checks (the director's).
  EXPECT_GT(n.at({0, "commit"}), 100u);
  for (const auto& e : r.trace->events()) {
    if (e["kind"] != "commit" || member_of(e) == 0) continue;
    const std::string actor = e["actor"].get<std::string>();
    EXPECT_TRUE(actor.rfind("oplog-fetcher.m", 0) == 0 || actor == "director") << e.dump();
  }
  // And they end holding the primary's documents.
  EXPECT_EQ(n.at({0, "convergence_check"}), 2u);
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

TEST(ReplicaSet, MembersReplicateThePrimaryAndConvergeThroughTheirOwnCrashes) {
  // The primary takes no fault (no divergence); the others crash as their plans say.
  const Scenario s = load_scenario(kSource + "/scenarios/replica_set_members.json", {"swarm=null", "fault_plan=[]"});
  for (uint64_t seed = 1; seed <= 4; ++seed) {
    const RunResult r = run_scenario(s, seed);
    ASSERT_TRUE(r.ok) << "seed " << seed << ": " << r.violations.front().name() << ": " << r.violations.front().detail;
    EXPECT_GE(r.stats.crashes, 2u);
    const auto checks = convergence(*r.trace);
    ASSERT_EQ(checks.size(), 2u) << "seed " << seed;
    for (const auto& [member, digests] : checks) EXPECT_EQ(digests.first, digests.second) << "seed " << seed << " member " << member;
  }
}

TEST(ReplicaSet, AMemberThatAppliedWhatThePrimaryLostRollsBackAndConverges) {
  // The primary loses power with a second of unflushed commits that its members already applied.
  const Scenario s = load_scenario(kSource + "/scenarios/replica_set_members.json",
                                   {"swarm=null", "node.journal_commit_interval_ms=5000", "workload.durable_fraction=0",
                                    R"(fault_plan=[{"kind": "crash", "at_ms": 3000, "mode": "drop_unsynced"}])",
                                    R"(replica_set={"members": [{}, {"priority": 0.5}, {"priority": 0, "hidden": true}]})"});
  const RunResult r = run_scenario(s, 1);
  ASSERT_TRUE(r.ok) << r.violations.front().name() << ": " << r.violations.front().detail;
  std::map<size_t, nlohmann::json> rollback_of;
  size_t required = 0, skipped = 0;
  for (const auto& e : r.trace->events()) {
    if (e["kind"] == "rollback_required") {
      ++required;
      EXPECT_NE(e["details"]["why"].get<std::string>().find("term"), std::string::npos) << e.dump();
    }
    if (e["kind"] == "rollback") rollback_of[e["details"]["member"].get<size_t>()] = e["details"];
    skipped += e["kind"] == "convergence_skipped" ? 1 : 0;
  }
  EXPECT_EQ(required, 2u);
  ASSERT_EQ(rollback_of.size(), 2u);
  for (const auto& [member, d] : rollback_of) {
    EXPECT_GT(d["entries"].get<uint64_t>(), 10u) << "a second of writes went: member " << member;
    EXPECT_GT(d["documents"].get<uint64_t>(), 0u);
    EXPECT_GT(d["min_valid_ts"].get<uint64_t>(), d["common_ts"].get<uint64_t>());
  }
  EXPECT_EQ(skipped, 0u);
  const auto checks = convergence(*r.trace);
  ASSERT_EQ(checks.size(), 2u);
  for (const auto& [member, digests] : checks) EXPECT_EQ(digests.first, digests.second) << "member " << member;
}

TEST(Network, DelaysAreDrawnPerLinkWithinTheRangeAndCutLinksLoseMessages) {
  faults::Network a(7, 3, 1 * sim::kNsPerMs, 5 * sim::kNsPerMs), b(7, 3, 1 * sim::kNsPerMs, 5 * sim::kNsPerMs);
  std::set<sim::Nanos> seen;
  for (int i = 0; i < 200; ++i) {
    const auto d = a.delay(1, 0);
    ASSERT_TRUE(d.has_value());
    EXPECT_EQ(d, b.delay(1, 0));  // the same seed, the same delays
    EXPECT_GE(*d, 1 * sim::kNsPerMs);
    EXPECT_LE(*d, 5 * sim::kNsPerMs);
    seen.insert(*d);
  }
  EXPECT_GT(seen.size(), 100u);
  // A draw on one link shifts no other: link 2->0 of `a` is where `b`'s is.
  EXPECT_EQ(a.delay(2, 0), b.delay(2, 0));
  a.cut(1, 0);  // one way
  EXPECT_FALSE(a.delay(1, 0).has_value());
  EXPECT_TRUE(a.delay(0, 1).has_value());
  a.isolate(2);
  EXPECT_FALSE(a.delay(0, 2).has_value());
  EXPECT_FALSE(a.delay(2, 1).has_value());
  a.heal();
  EXPECT_TRUE(a.delay(1, 0).has_value() && a.delay(2, 1).has_value());
}

TEST(ReplicaSet, AnIsolatedMemberAppliesNothingUntilTheNetworkHealsThenCatchesUp) {
  const Scenario s = load_scenario(kSource + "/scenarios/replica_set_members.json",
                                   {"swarm=null", "fault_plan=[]", "duration_ms=6000", "liveness_ms=3000",
                                    R"(replica_set={"members": [{}, {"priority": 0.5}, {"priority": 0, "hidden": true}],
                                        "network_faults": [{"kind": "isolate", "member": 2, "at_ms": 1000, "until_ms": 4000}]})"});
  const RunResult r = run_scenario(s, 1);
  ASSERT_TRUE(r.ok) << r.violations.front().name() << ": " << r.violations.front().detail;
  std::vector<std::string> phases;
  uint64_t applied_while_cut = 0, applied_after = 0, other_applied_while_cut = 0;
  for (const auto& e : r.trace->events()) {
    if (e["kind"] == "network") phases.push_back(e["details"]["phase"].get<std::string>());
    if (e["kind"] != "commit") continue;
    const int64_t t_us = e["t_us"].get<int64_t>();
    const bool cut = t_us > 1'100'000 && t_us < 4'000'000;  // a batch in flight at the cut may land
    if (member_of(e) == 2 && cut) ++applied_while_cut;
    if (member_of(e) == 2 && t_us >= 4'000'000) ++applied_after;
    if (member_of(e) == 1 && cut) ++other_applied_while_cut;
  }
  EXPECT_EQ(phases, (std::vector<std::string>{"start", "end"}));
  EXPECT_EQ(applied_while_cut, 0u);
  EXPECT_GT(other_applied_while_cut, 100u);  // member 1 goes on
  EXPECT_GT(applied_after, 100u);            // member 2 catches up after the heal
  const auto checks = convergence(*r.trace);
  ASSERT_EQ(checks.size(), 2u);
  for (const auto& [member, digests] : checks) EXPECT_EQ(digests.first, digests.second) << "member " << member;
}

TEST(ReplicaSetSpec, NetworkFaultsAreCheckedNamingTheField) {
  const auto error = [](const std::string& faults) {
    return scenario_error(R"([{}, {}, {"priority": 0}], "network_faults": )" + faults);
  };
  EXPECT_EQ(error(R"([{"kind": "partition", "side": [0], "at_ms": 1, "until_ms": 2}])"), "");
  EXPECT_NE(error(R"([{"kind": "isolate", "member": 3, "at_ms": 1, "until_ms": 2}])").find("/replica_set/network_faults/0/member: must be a member: below 3"),
            std::string::npos);
  EXPECT_NE(error(R"([{"kind": "cut", "from": 1, "to": 1, "at_ms": 1, "until_ms": 2}])").find("/network_faults/0/to"), std::string::npos);
  EXPECT_NE(error(R"([{"kind": "partition", "side": [0, 1, 2], "at_ms": 1, "until_ms": 2}])").find("/network_faults/0/side: must be"),
            std::string::npos);
  EXPECT_NE(error(R"([{"kind": "isolate", "member": 1, "at_ms": 5, "until_ms": 5}])").find("/network_faults/0/until_ms: must be after at_ms"),
            std::string::npos);
  EXPECT_NE(error(R"([{"kind": "flood", "at_ms": 1, "until_ms": 2}])").find("/network_faults/0/kind"), std::string::npos);
  EXPECT_EQ(error(R"([{"kind": "pause", "member": 0, "at_ms": 1, "until_ms": 2}])"), "");
  EXPECT_NE(error(R"([{"kind": "pause", "member": 3, "at_ms": 1, "until_ms": 2}])").find("/network_faults/0/member: must be a member: below 3"),
            std::string::npos);
  EXPECT_NE(error(R"([{"kind": "pause", "at_ms": 1, "until_ms": 2}])").find("/network_faults/0/member"), std::string::npos);
}

TEST(ReplicaSetSwarm, EachSeedDrawsMemberPlansAndNetworkWindowsIntoTheRecordedScenario) {
  const Scenario s = load_scenario(kSource + "/scenarios/swarm_replica_set.json");
  ASSERT_TRUE(s.replica_set.swarm.has_value());
  nlohmann::json no_pauses_json = s.source;
  no_pauses_json["replica_set"]["swarm"]["pauses_max"] = 0;
  no_pauses_json["replica_set"]["swarm"]["step_downs_max"] = 0;
  const Scenario no_pauses = scenario_from_json(no_pauses_json, "no_pauses.json");
  std::set<std::string> plans;
  size_t windows = 0, pauses = 0;
  for (uint64_t seed = 1; seed <= 30; ++seed) {
    const Scenario a = draw_knobs(s, seed), b = draw_knobs(s, seed);
    EXPECT_EQ(a.source, b.source) << "seed " << seed << ": drawn once, the same every time";
    EXPECT_FALSE(a.replica_set.swarm.has_value());
    EXPECT_FALSE(a.source["replica_set"].contains("swarm"));
    for (size_t m : {1, 2}) {
      ASSERT_TRUE(a.source["replica_set"]["members"][m].contains("fault_plan")) << "seed " << seed;
      plans.insert(a.source["replica_set"]["members"][m]["fault_plan"].dump());
    }
    EXPECT_EQ(a.source["knobs_drawn"]["replica_set.network_faults"], a.source["replica_set"]["network_faults"]);
    // Up to 3 windows of cut links, then up to 2 pauses and up to 2 step-downs, each from its own
    // stream: the links' windows are those the seed draws without the others.
    const auto& drawn = a.replica_set.network_faults;
    const auto count = [&](NetworkFault::Kind kind) {
      return static_cast<size_t>(std::count_if(drawn.begin(), drawn.end(), [&](const NetworkFault& f) { return f.kind == kind; }));
    };
    const size_t paused = count(NetworkFault::Kind::kPause), step_downs = count(NetworkFault::Kind::kStepDown);
    const size_t links = drawn.size() - paused - step_downs;
    EXPECT_LE(links, 3u);
    EXPECT_LE(paused, 2u);
    EXPECT_LE(step_downs, 2u);
    for (size_t i = 0; i < drawn.size(); ++i) {
      const NetworkFault::Kind want = i < links ? drawn[i].kind : i < links + paused ? NetworkFault::Kind::kPause : NetworkFault::Kind::kStepDown;
      EXPECT_EQ(drawn[i].kind, want) << "seed " << seed << ": links, then pauses, then step-downs";
    }
    pauses += paused + step_downs;
    nlohmann::json link_windows = a.source["replica_set"]["network_faults"];
    link_windows.erase(link_windows.begin() + static_cast<long>(links), link_windows.end());
    EXPECT_EQ(link_windows, draw_knobs(no_pauses, seed).source["replica_set"]["network_faults"]) << "seed " << seed;
    for (const NetworkFault& f : a.replica_set.network_faults) {
      ++windows;
      EXPECT_LT(f.at_ns, f.until_ns);
      EXPECT_LE(f.until_ns, s.duration_ns);
      EXPECT_LE(f.until_ns - f.at_ns, 3000 * sim::kNsPerMs);
    }
    // The recorded scenario replays as drawn; one with a swarm left is refused by name.
    EXPECT_EQ(recorded_scenario(a.source, "t.json").source, a.source);
  }
  EXPECT_GT(plans.size(), 30u) << "seeds draw different member plans";
  EXPECT_GT(windows, 10u);
  EXPECT_GT(pauses, 10u);
  try {
    recorded_scenario(s.source.contains("knobs") ? [&] {
      nlohmann::json j = s.source;
      j.erase("knobs");
      return j;
    }() : s.source, "t.json");
    ADD_FAILURE() << "a recorded scenario with its replica set's swarm left is refused";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("t.json: /header/scenario/replica_set/swarm"), std::string::npos) << e.what();
  }
}

TEST(ReplicaSetSwarm, ItsFieldsAreCheckedNamingThem) {
  const auto error = [](const std::string& swarm) {
    return scenario_error(R"([{}, {}, {"priority": 0}], "swarm": )" + swarm);
  };
  EXPECT_EQ(error(R"({"members": true, "network_faults_max": 16})"), "");
  EXPECT_NE(error(R"({"network_faults_max": 17})").find("/replica_set/swarm/network_faults_max: must be in [0, 16]"), std::string::npos);
  EXPECT_NE(error(R"({"network_fault_ms_max": 99})").find("/replica_set/swarm/network_fault_ms_max: must be in [100, 600000]"),
            std::string::npos);
  EXPECT_NE(error(R"({"partitions": 2})").find("/replica_set/swarm/partitions"), std::string::npos);
  EXPECT_NE(error(R"({"pauses_max": 17})").find("/replica_set/swarm/pauses_max: must be in [0, 16]"), std::string::npos);
  EXPECT_NE(error(R"({"step_downs_max": 17})").find("/replica_set/swarm/step_downs_max: must be in [0, 16]"), std::string::npos);
}

TEST(ReplicaSet, TheHiddenMemberRunsTheBackupWhileItAppliesAndItsRestoreHolds) {
  const Scenario s = load_scenario(kSource + "/scenarios/replica_set.json",
                                   {"duration_ms=60000", "backup.start_ms=20000", "workload.think_us=10000"});
  ASSERT_EQ(s.backup.member, 2u);
  const RunResult r = run_scenario(s, 1);
  ASSERT_TRUE(r.ok) << r.violations.front().name() << ": " << r.violations.front().detail;
  std::map<std::string, std::set<size_t>> members_of;  // backup event kind -> members that traced it
  uint64_t applied_during_copy = 0;
  int64_t start_us = -1, done_us = -1;
  for (const auto& e : r.trace->events()) {
    const std::string kind = e["kind"].get<std::string>();
    if (kind == "backup_start" || kind == "table_released" || kind == "backup_done" || kind == "restore_checked") {
      members_of[kind].insert(e["details"].value("member", size_t{0}));
    }
    if (kind == "backup_start") start_us = e["t_us"].get<int64_t>();
    if (kind == "backup_done") done_us = e["t_us"].get<int64_t>();
    if (kind == "commit" && member_of(e) == 2 && start_us >= 0 && done_us < 0) ++applied_during_copy;
  }
  for (const char* kind : {"backup_start", "table_released", "backup_done", "restore_checked"}) {
    EXPECT_EQ(members_of[kind], std::set<size_t>{2}) << kind << ": on the hidden member only";
  }
  EXPECT_GT(applied_during_copy, 100u) << "the member kept applying the primary's oplog while it copied";
  const auto checks = convergence(*r.trace);
  ASSERT_EQ(checks.size(), 2u);
  for (const auto& [member, digests] : checks) EXPECT_EQ(digests.first, digests.second) << "member " << member;
}

// The hidden member votes, so it has a vote record (replset_election) that no catalog row names:
// its release-mode backup copies and releases it with the catalog, and backup_leaves_no_pin,
// which reads every file WiredTiger's metadata lists, finds no pin left.
TEST(ReplicaSet, AReleaseModeBackupReleasesTheMembersVoteRecordToo) {
  const Scenario s = load_scenario(kSource + "/scenarios/failover.json", {});
  ASSERT_EQ(s.backup.mode, BackupMode::kRelease);
  const RunResult r = run_scenario(s, 1);
  ASSERT_TRUE(r.ok) << r.violations.front().name() << ": " << r.violations.front().detail;
  std::set<std::string> released;
  for (const auto& e : r.trace->events()) {
    if (e["kind"] == "table_released") released.insert(e["details"]["table"].get<std::string>());
  }
  EXPECT_EQ(released.count("table:replset_election"), 1u);
  EXPECT_EQ(released.count("table:_catalog"), 1u);
}

TEST(ReplicaSetSpec, TheBackupMemberMustBeAMember) {
  const auto error = [](const std::string& member) {
    try {
      scenario_from_json(nlohmann::json::parse(R"({"name": "rs", "duration_ms": 1000, "workload": {"kind": "backup"}, "backup": {"member": )" + member +
                                               R"(}, "replica_set": {"members": [{}, {"priority": 0, "hidden": true}]}})"),
                         "rs.json");
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_EQ(error("1"), "");
  EXPECT_NE(error("2").find("rs.json: /backup/member: must be a member: below 2"), std::string::npos) << error("2");
}

}  // namespace
}  // namespace wtsim::world

namespace wtsim::world {
namespace {

Scenario script_on_two_members(const std::string& steps, const std::string& extra = "") {
  return scenario_from_json(nlohmann::json::parse(R"({"name": "rs_script", "duration_ms": 20000, "replica_set": {"members": [{}, {"priority": 0.5}])" +
                                                  extra + R"(}, "steps": )" + steps + "}"),
                            "rs_script.json");
}

TEST(ReplicaSetScript, AStepAddressesAMemberThatExists) {
  try {
    script_on_two_members(R"([{"cmd": "find", "ns": "test.c", "member": 2}])");
    ADD_FAILURE() << "member 2 of two";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("rs_script.json: /steps/0/member: must be a member: below 2"), std::string::npos) << e.what();
  }
}

TEST(ReplicaSetScript, AwaitReplicationWaitsForEveryMemberOrTimesOut) {
  // Member 1 cut off from 1 s to 10 s: the first wait times out, the second (after the heal) holds,
  // and a find on member 1 then sees the insert made while it was cut off.
  const Scenario s = script_on_two_members(R"([
      {"cmd": "sleep", "ms": 2000},
      {"cmd": "insert", "ns": "test.c", "docs": [{"_id": 1}, {"_id": 2}]},
      {"cmd": "awaitReplication", "timeout_ms": 500, "expect": {"code": "WriteConcernFailed"}},
      {"cmd": "find", "ns": "test.c", "member": 1, "expect": {"code": "HostUnreachable"}},
      {"cmd": "sleep", "ms": 9000},
      {"cmd": "awaitReplication", "expect": {"code": "OK"}},
      {"cmd": "find", "ns": "test.c", "member": 1, "expect": {"n": 2}}])",
                                           R"(, "network_faults": [{"kind": "isolate", "member": 1, "at_ms": 1000, "until_ms": 10000}])");
  const RunResult r = run_scenario(s, 1);
  EXPECT_TRUE(r.ok) << (r.violations.empty() ? "" : r.violations.front().detail);
  size_t held = 0;
  for (const auto& e : r.trace->events()) held += e["kind"] == "script_step" && e["details"]["held"] == true;
  EXPECT_EQ(held, 7u) << "every step held, the timed-out wait and the unreachable member as expected";
}

TEST(ReplicaSetScript, PartitionStepsAreCheckedWhenTheScenarioIsRead) {
  const auto error = [](const std::string& step, size_t members = 2) {
    try {
      std::string list = "[{}";
      for (size_t m = 1; m < members; ++m) list += R"(, {"priority": 0.5})";
      scenario_from_json(nlohmann::json::parse(R"({"name": "rs_script", "duration_ms": 1000, "replica_set": {"members": )" + list +
                                               R"(]}, "steps": [)" + step + "]}"),
                         "rs_script.json");
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_EQ(error(R"({"cmd": "partition", "isolate": 1})"), "");
  EXPECT_EQ(error(R"({"cmd": "partition", "side": [0, 2]})", 3), "");
  EXPECT_EQ(error(R"({"cmd": "partition", "from": 0, "to": 1})"), "");
  EXPECT_EQ(error(R"({"cmd": "replSetGetStatus", "member": 1, "expect": {"state": "SECONDARY", "entries_behind": {"max": 3}}})"), "");
  EXPECT_NE(error(R"({"cmd": "partition"})").find("rs_script.json: /steps/0: a partition takes one of isolate, side, or from and to"), std::string::npos);
  EXPECT_NE(error(R"({"cmd": "partition", "isolate": 1, "side": [0]})").find("/steps/0: a partition takes one of"), std::string::npos);
  EXPECT_NE(error(R"({"cmd": "partition", "from": 1})").find("/steps/0/to: required field is missing"), std::string::npos);
  EXPECT_NE(error(R"({"cmd": "partition", "from": 1, "to": 1})").find("/steps/0/to: must differ from from"), std::string::npos);
  EXPECT_NE(error(R"({"cmd": "partition", "isolate": 2})").find("/steps/0/isolate: must be a member: below 2"), std::string::npos);
  EXPECT_NE(error(R"({"cmd": "partition", "side": [0, 1]})").find("/steps/0/side: must leave a member on the other side"), std::string::npos);
  EXPECT_NE(error(R"({"cmd": "partition", "side": []})").find("/steps/0/side: expected a non-empty array of members"), std::string::npos);
  EXPECT_NE(error(R"({"cmd": "heal"})", 1).find("/steps/0/cmd: heal needs a replica set"), std::string::npos);
  EXPECT_NE(error(R"({"cmd": "replSetGetStatus", "expect": {"state": "ARBITER"}})").find("/steps/0/expect/state: expected PRIMARY, SECONDARY, DOWN or RECOVERING"),
            std::string::npos);
  EXPECT_NE(error(R"({"cmd": "find", "ns": "t.c", "expect": {"state": "PRIMARY"}})").find("/steps/0/expect: state and entries_behind are expectations of replSetGetStatus"),
            std::string::npos);
}

// The shipped script_partition.json holds, and each of its partition expectations can fail: a
// script whose heal is left out sees member 2 stay behind.
TEST(ReplicaSetScript, APartitionLeavesAMemberBehindUntilTheHeal) {
  const std::string source = WTSIM_SOURCE_DIR;
  const Scenario s = load_scenario(source + "/scenarios/script_partition.json");
  const RunResult r = run_scenario(s, 1);
  EXPECT_TRUE(r.ok) << (r.violations.empty() ? "" : r.violations.front().detail);
  std::vector<std::string> network;
  for (const auto& e : r.trace->events()) {
    if (e["kind"] == "network") network.push_back(e["details"]["kind"].get<std::string>() + ":" + e["details"]["phase"].get<std::string>());
  }
  EXPECT_EQ(network, (std::vector<std::string>{"isolate:start", "isolate:end", "cut:start", "cut:end"}));
  nlohmann::json steps = s.source["steps"];
  steps.erase(11);  // the first heal
  ASSERT_EQ(s.source["steps"][11]["cmd"], "heal");
  nlohmann::json unhealed = s.source;
  unhealed["steps"] = steps;
  const RunResult behind = run_scenario(scenario_from_json(unhealed, "unhealed"), 1);
  EXPECT_FALSE(behind.ok);
  bool stayed_behind = false;
  for (const auto& v : behind.violations) stayed_behind |= v.detail.find("entries_behind: expected 0, got 10") != std::string::npos;
  EXPECT_TRUE(stayed_behind);
}

}  // namespace
}  // namespace wtsim::world
