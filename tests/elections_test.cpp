// Elections and failover in a replica set (world/elector.h, world/replica_clients.h): the
// scenario section's rules, a vote that survives a power loss, and a failover run end to end
// (a new primary elected while the old one is cut off, the old one rolling back and taking
// over again, the clients following the primary, w:"majority" writes surviving, the TTL deletes
// following the primary, the hidden member's backup spanning the election).
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <string>

#include "engine/election_state.h"
#include "engine_harness.h"
#include "world/world.h"

namespace wtsim::world {
namespace {

const std::string kSource = WTSIM_SOURCE_DIR;

std::string scenario_error(const std::string& replica_set, const std::string& workload = R"({"kind": "documents"})") {
  try {
    scenario_from_json(nlohmann::json::parse(R"({"name": "rs", "duration_ms": 1000, "workload": )" + workload +
                                             R"(, "replica_set": )" + replica_set + "}"),
                       "rs.json");
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

std::vector<nlohmann::json> events_of(const traces::Trace& trace, const std::string& kind) {
  std::vector<nlohmann::json> out;
  for (const auto& e : trace.events()) {
    if (e["kind"] == kind) out.push_back(e);
  }
  return out;
}

TEST(ElectionsSpec, TheSectionsRulesAreRefusedNamingTheField) {
  EXPECT_EQ(scenario_error(R"({"members": [{}, {}, {}], "elections": {}, "majority_fraction": 0.5})"), "");
  EXPECT_NE(scenario_error(R"({"members": [{}, {}], "elections": {"heartbeat_interval_ms": 50}})")
                .find("rs.json: /replica_set/elections/heartbeat_interval_ms: must be in [100, 60000]"),
            std::string::npos);
  EXPECT_NE(scenario_error(R"({"members": [{}, {}], "elections": {"heartbeat_interval_ms": 1000, "election_timeout_ms": 1500}})")
                .find("/replica_set/elections/election_timeout_ms: must be in [2 x heartbeat_interval_ms"),
            std::string::npos);
  EXPECT_NE(scenario_error(R"({"members": [{}, {}], "elections": {"timeout": 1}})").find("/replica_set/elections/timeout"), std::string::npos);
  EXPECT_NE(scenario_error(R"({"members": [{}, {}], "majority_fraction": 0.5})").find("/replica_set/majority_fraction: needs \"elections\""),
            std::string::npos);
  EXPECT_NE(scenario_error(R"({"members": [{}, {}], "elections": {}, "majority_fraction": 2})").find("/replica_set/majority_fraction: must be in [0, 1]"),
            std::string::npos);
  EXPECT_NE(scenario_error(R"({"members": [{}, {}], "elections": {}})", R"({"kind": "time_series"})").find("/replica_set/elections: a replica set with elections runs"),
            std::string::npos);
  EXPECT_EQ(scenario_error(R"({"members": [{}, {}], "elections": {}, "network_faults": [{"kind": "step_down", "at_ms": 1, "until_ms": 2}]})"), "");
  EXPECT_NE(scenario_error(R"({"members": [{}, {}], "network_faults": [{"kind": "step_down", "at_ms": 1, "until_ms": 2}]})")
                .find("/replica_set/network_faults/0/kind: step_down needs \"elections\""),
            std::string::npos);
  EXPECT_NE(scenario_error(R"({"members": [{}, {}], "swarm": {"step_downs_max": 1}})").find("/replica_set/swarm/step_downs_max: step-downs need"),
            std::string::npos);
}

TEST(ElectionsSpec, TheBackupMemberMayBeTheHiddenOneAndTtlIndexIsForDocuments) {
  const auto load = [](const std::string& extra) {
    return scenario_from_json(nlohmann::json::parse(R"({"name": "rs", "duration_ms": 1000, "workload": {"kind": "documents", "ttl_index": true},
      "replica_set": {"members": [{}, {"priority": 0.5}, {"priority": 0, "hidden": true}, {"priority": 0}], "elections": {}})" + extra + "}"),
                              "rs.json");
  };
  const Scenario hidden = load(R"(, "backup": {"member": "hidden", "copy_kb_per_s": 100})");
  EXPECT_EQ(hidden.backup.member, 2u);
  EXPECT_TRUE(hidden.backup.enabled);
  EXPECT_EQ(hidden.backup.copy_kb_per_s, 100u);
  EXPECT_TRUE(hidden.workload.ttl_index);
  EXPECT_FALSE(load("").backup.enabled) << "a documents workload backs up only with a backup section";
  EXPECT_FALSE(load(R"(, "backup": null)").backup.enabled);
  EXPECT_EQ(load(R"(, "backup": {"copy_mb_per_s": 3})").backup.copy_kb_per_s, 3000u);
  const auto error = [&](const std::string& extra) {
    try {
      load(extra);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(error(R"(, "backup": {"member": "secondary"})").find("rs.json: /backup/member: a member's index, or \"hidden\""), std::string::npos);
  EXPECT_NE(error(R"(, "backup": {"copy_mb_per_s": 1, "copy_kb_per_s": 1})").find("/backup/copy_kb_per_s: give copy_mb_per_s or copy_kb_per_s"),
            std::string::npos);
  EXPECT_NE(error(R"(, "backup": {"copy_kb_per_s": 0})").find("/backup/copy_kb_per_s: must be in [1, 1000000000]"), std::string::npos);
  EXPECT_NE(scenario_error(R"({"members": [{}, {}]})", R"({"kind": "documents"}, "backup": {"member": "hidden"})")
                .find("/backup/member: \"hidden\", but no member of replica_set.members is hidden"),
            std::string::npos);
  EXPECT_NE(scenario_error(R"({"members": [{}]})", R"({"kind": "time_series", "ttl_index": true})").find("/workload/ttl_index: only the \"documents\" workload"),
            std::string::npos);
}

TEST(ElectionState, AVoteWrittenDurablySurvivesAPowerLoss) {
  engine::EngineHarness h;
  h.run([&](engine::OperationContext& op) {
    engine::ElectionRecord none;
    ASSERT_EQ(engine::ElectionState::read(op, &none), 0);
    EXPECT_EQ(none, engine::ElectionRecord{});  // a node that never voted
    ASSERT_EQ(engine::ElectionState::write_durable(op, {7, 2}), 0);
  });
  h.crash_and_recover();
  h.run([&](engine::OperationContext& op) {
    engine::ElectionRecord back;
    ASSERT_EQ(engine::ElectionState::read(op, &back), 0);
    EXPECT_EQ(back, (engine::ElectionRecord{7, 2}));
    ASSERT_EQ(engine::ElectionState::write_durable(op, {8, std::nullopt}), 0);  // a newer term, no vote yet
  });
  h.crash_and_recover();
  h.run([&](engine::OperationContext& op) {
    engine::ElectionRecord back;
    ASSERT_EQ(engine::ElectionState::read(op, &back), 0);
    EXPECT_EQ(back, (engine::ElectionRecord{8, std::nullopt}));
  });
}

TEST(Failover, TheCutOffPrimaryStepsDownANewOneIsElectedAndTheOldOneRollsBackAndTakesOver) {
  const Scenario s = load_scenario(kSource + "/scenarios/failover.json");
  for (uint64_t seed = 1; seed <= 2; ++seed) {
    SCOPED_TRACE(seed);
    const RunResult r = run_scenario(s, seed);
    EXPECT_TRUE(r.ok) << (r.violations.empty() ? "" : r.violations.front().detail);
    // Elected per term: member 0 by replSetInitiate, member 1 while 0 is cut off, then 0 again.
    std::map<uint64_t, size_t> elected;
    for (const auto& e : events_of(*r.trace, "elected")) {
      const auto& d = e["details"];
      EXPECT_TRUE(elected.emplace(d["term"].get<uint64_t>(), d["member"].get<size_t>()).second) << "one primary per term";
      EXPECT_GE(d["votes"].get<size_t>(), d["term"] == 1 ? 1u : 2u) << "a majority of the three voters";
    }
    ASSERT_GE(elected.size(), 3u);
    EXPECT_EQ(elected.at(1), 0u);
    EXPECT_TRUE(std::any_of(elected.begin(), elected.end(), [](const auto& e) { return e.first >= 2 && e.second == 1; }))
        << "member 1 is elected while member 0 is cut off";
    EXPECT_EQ(elected.rbegin()->second, 0u) << "the higher priority takes over once caught up";
    bool old_primary_stepped_down = false, old_primary_rolled_back = false;
    for (const auto& e : events_of(*r.trace, "stepped_down")) old_primary_stepped_down |= e["details"]["member"] == 0 && e["details"]["term"] == 1;
    for (const auto& e : events_of(*r.trace, "rollback")) old_primary_rolled_back |= e["details"]["member"] == 0;
    EXPECT_TRUE(old_primary_stepped_down);
    EXPECT_TRUE(old_primary_rolled_back) << "its w:1 writes made while cut off are not the new primary's";
    // Below its last rollback's minValid a member is RECOVERING: it stands for no election.
    for (const auto& stand : events_of(*r.trace, "election_start")) {
      const auto& who = stand["details"]["member"];
      std::optional<uint64_t> min_valid_ts;
      for (const auto& rb : events_of(*r.trace, "rollback")) {
        if (rb["details"]["member"] == who && rb["i"] < stand["i"]) min_valid_ts = rb["details"]["min_valid_ts"].get<uint64_t>();
      }
      if (min_valid_ts) EXPECT_GE(stand["details"]["applied_ts"].get<uint64_t>(), *min_valid_ts) << stand.dump();
    }
    // The clients followed the primary: acknowledged writes on member 1 while it was primary.
    std::map<size_t, size_t> ok_by_member;
    size_t majority_acks = 0, unknown = 0, majority_reads = 0, majority_reads_with_point = 0;
    std::map<uint64_t, nlohmann::json> invoke_of;
    for (const auto& e : events_of(*r.trace, "client_invoke")) invoke_of[e["details"]["seq"].get<uint64_t>()] = e["details"];
    for (const auto& e : events_of(*r.trace, "client_complete")) {
      const auto& d = e["details"];
      const nlohmann::json& invoke = invoke_of.at(d["seq"].get<uint64_t>());
      if (d["fate"] == "ok") ++ok_by_member[d["member"].get<size_t>()];
      if (d["fate"] == "ok" && invoke.value("w", nlohmann::json()) == "majority" && d.contains("entry")) ++majority_acks;
      if (d["fate"] == "ok" && invoke.value("read_concern", "") == "majority") {
        ++majority_reads;
        majority_reads_with_point += d.contains("read_point");  // none only before the first write
      }
      if (d["fate"] == "unknown") ++unknown;
    }
    EXPECT_GT(majority_reads, 10u);
    EXPECT_GT(majority_reads_with_point * 10, majority_reads * 9);
    EXPECT_GT(ok_by_member[1], 0u);
    EXPECT_GT(ok_by_member[0], 0u);
    EXPECT_EQ(ok_by_member.count(2), 0u) << "the hidden member serves no client";
    EXPECT_GT(majority_acks, 10u);
    EXPECT_GT(unknown, 0u) << "w:\"majority\" writes on the cut-off primary time out: their fate is unknown";
  }
}

// The TTL deletes follow the primary: member 0's monitor deletes until it steps down, member 1's
// while it is primary, member 0's again after its takeover; the hidden member's never. Its hot
// backup spans the election, and restores exactly its snapshot.
TEST(Failover, TtlDeletesFollowThePrimaryAndTheHiddenMembersBackupSpansTheElection) {
  const Scenario s = load_scenario(kSource + "/scenarios/failover.json");
  for (uint64_t seed = 1; seed <= 2; ++seed) {
    SCOPED_TRACE(seed);
    const RunResult r = run_scenario(s, seed);
    ASSERT_TRUE(r.ok) << (r.violations.empty() ? "" : r.violations.front().detail);
    std::vector<std::pair<int64_t, size_t>> deleting;  // (time, member) of passes that deleted
    for (const auto& e : events_of(*r.trace, "ttl_pass")) {
      if (e["details"]["deleted"].get<uint64_t>() > 0) deleting.emplace_back(e["t_us"].get<int64_t>(), e["details"].value("member", size_t{0}));
    }
    ASSERT_FALSE(deleting.empty());
    std::vector<size_t> deleters;  // the members in the order they took over
    for (const auto& [t_us, member] : deleting) {
      if (deleters.empty() || deleters.back() != member) deleters.push_back(member);
    }
    EXPECT_EQ(deleters, (std::vector<size_t>{0, 1, 0}));
    const auto elected = events_of(*r.trace, "elected");
    const int64_t member1_elected_us = std::find_if(elected.begin(), elected.end(), [](const auto& e) { return e["details"]["member"] == 1; })
                                           ->at("t_us")
                                           .get<int64_t>();
    for (const auto& [t_us, member] : deleting) {
      if (member == 1) EXPECT_GT(t_us, member1_elected_us) << "member 1 deletes only once elected";
    }
    const auto start = events_of(*r.trace, "backup_start"), done = events_of(*r.trace, "backup_done");
    ASSERT_EQ(start.size(), 1u);
    ASSERT_EQ(done.size(), 1u);
    EXPECT_EQ(start[0]["details"]["member"], 2);
    EXPECT_LT(start[0]["t_us"].get<int64_t>(), member1_elected_us);
    EXPECT_GT(done[0]["t_us"].get<int64_t>(), member1_elected_us) << "the backup spans the election";
    EXPECT_EQ(events_of(*r.trace, "restore_checked").size(), 1u);
  }
}

// A stalled primary (a pause, not a cut): its links stay up but it answers nothing, so the others
// elect a new primary, which takes writes without waiting for its fetch from the stalled one; once
// the old one goes on it learns the newer term and steps down. While paused none of its actors
// runs, and requests sent to it are answered only after it goes on.
TEST(Failover, APausedPrimaryIsReplacedAndStepsDownWhenItGoesOn) {
  const Scenario s = load_scenario(kSource + "/scenarios/failover.json",
                                   {"duration_ms=12000", "backup=null",
                                    R"(replica_set.network_faults=[{"kind": "pause", "member": 0, "at_ms": 3000, "until_ms": 8000}])"});
  for (uint64_t seed = 1; seed <= 2; ++seed) {
    SCOPED_TRACE(seed);
    const RunResult r = run_scenario(s, seed);
    EXPECT_TRUE(r.ok) << (r.violations.empty() ? "" : r.violations.front().detail);
    constexpr int64_t kPauseUs = 3'000'000, kResumeUs = 8'000'000;
    const auto pauses = events_of(*r.trace, "pause");
    ASSERT_EQ(pauses.size(), 2u);
    EXPECT_EQ(pauses[0]["t_us"], kPauseUs);
    EXPECT_EQ(pauses[1]["details"]["phase"], "end");
    bool replaced_while_paused = false, writable_while_paused = false;
    for (const auto& e : events_of(*r.trace, "elected")) {
      const int64_t t_us = e["t_us"];
      replaced_while_paused |= e["details"]["member"] == 1 && t_us > kPauseUs && t_us < kResumeUs;
    }
    for (const auto& e : events_of(*r.trace, "primary_writable")) {
      const int64_t t_us = e["t_us"];
      writable_while_paused |= e["details"]["member"] == 1 && t_us > kPauseUs && t_us < kResumeUs;
    }
    EXPECT_TRUE(replaced_while_paused);
    EXPECT_TRUE(writable_while_paused) << "the new primary's drain waits for no answer from the stalled one";
    bool stepped_down_after = false;
    for (const auto& e : events_of(*r.trace, "stepped_down")) {
      if (e["details"]["member"] != 0) continue;
      EXPECT_GE(e["t_us"].get<int64_t>(), kResumeUs) << "a stalled member does nothing, stepping down included";
      stepped_down_after |= e["details"]["from"] == "primary";
    }
    EXPECT_TRUE(stepped_down_after);
    for (const char* kind : {"ttl_pass_start", "checkpoint_start"}) {
      for (const auto& e : events_of(*r.trace, kind)) {
        const int64_t t_us = e["t_us"];
        const bool member0 = e.value("details", nlohmann::json::object()).value("member", size_t{0}) == 0;
        EXPECT_FALSE(member0 && t_us > kPauseUs && t_us < kResumeUs) << kind << " on the paused member at " << t_us;
      }
    }
    std::set<uint64_t> to_member0_before_resume;  // requests sent to member 0 before it went on
    for (const auto& e : events_of(*r.trace, "client_invoke")) {
      if (e["details"]["member"] == 0 && e["t_us"].get<int64_t>() < kResumeUs) to_member0_before_resume.insert(e["details"]["seq"].get<uint64_t>());
    }
    size_t outstanding = 0;  // of those, the ones that had not completed when it stalled
    for (const auto& e : events_of(*r.trace, "client_complete")) {
      const int64_t t_us = e["t_us"];
      constexpr int64_t kOnTheWayUs = 100'000;  // an answer sent before the pause still arrives
      if (to_member0_before_resume.count(e["details"]["seq"].get<uint64_t>()) == 0 || t_us <= kPauseUs + kOnTheWayUs) continue;
      EXPECT_GE(t_us, kResumeUs) << "answered while paused";
      ++outstanding;
    }
    EXPECT_GT(outstanding, 0u);
    EXPECT_GT(r.trace->verdict()["coverage"].value("paused_primary_replaced", 0), 0);
  }
}

// replSetStepDown: the primary takes no writes until a secondary has caught up, then steps down;
// another member is elected, the old primary stands for nothing during its stepDownSecs and then
// takes over again by priority. Nothing it acknowledged is rolled back (a secondary had it all).
// A step-down sent to a secondary fails and changes nothing.
TEST(Failover, AStepDownHandsOverOnceCaughtUpAndTheOldPrimaryWaitsOutItsStepDownSecs) {
  const Scenario s = load_scenario(kSource + "/scenarios/failover.json",
                                   {"duration_ms=14000", "backup=null",
                                    R"(replica_set.network_faults=[{"kind": "step_down", "at_ms": 4000, "until_ms": 9000},
                                                                   {"kind": "step_down", "member": 2, "at_ms": 5000, "until_ms": 6000}])"});
  for (uint64_t seed = 1; seed <= 2; ++seed) {
    SCOPED_TRACE(seed);
    const RunResult r = run_scenario(s, seed);
    EXPECT_TRUE(r.ok) << (r.violations.empty() ? "" : r.violations.front().detail);
    constexpr int64_t kCommandUs = 4'000'000, kStandAgainUs = 9'000'000;
    const auto commands = events_of(*r.trace, "step_down");
    ASSERT_EQ(commands.size(), 4u);  // two windows, each a start and an end
    EXPECT_EQ(commands[0]["details"]["member"], 0) << "the primary of its time";
    int64_t stepped_down_us = -1;
    for (const auto& e : events_of(*r.trace, "stepped_down")) {
      if (e["details"]["member"] == 0 && e["details"]["why"] == "replSetStepDown") stepped_down_us = e["t_us"];
    }
    ASSERT_GE(stepped_down_us, kCommandUs);
    EXPECT_LT(stepped_down_us, kCommandUs + 10'000'000) << "within secondaryCatchUpPeriodSecs";
    for (const auto& e : events_of(*r.trace, "client_complete")) {  // no write taken while it waited
      const int64_t t_us = e["t_us"];
      if (t_us > kCommandUs + 100'000 && t_us < stepped_down_us && e["details"]["member"] == 0) {
        EXPECT_NE(e["details"]["fate"], "ok") << "at " << t_us;
      }
    }
    bool other_elected = false, retaken = false;
    for (const auto& e : events_of(*r.trace, "elected")) {
      const int64_t t_us = e["t_us"];
      other_elected |= e["details"]["member"] == 1 && t_us > stepped_down_us;
      retaken |= e["details"]["member"] == 0 && t_us >= kStandAgainUs;
    }
    EXPECT_TRUE(other_elected);
    EXPECT_TRUE(retaken) << "priority takeover once its stepDownSecs are over";
    for (const auto& e : events_of(*r.trace, "election_start")) {
      const int64_t t_us = e["t_us"];
      EXPECT_FALSE(e["details"]["member"] == 0 && t_us > stepped_down_us && t_us < kStandAgainUs) << "stood during its stepDownSecs";
    }
    for (const auto& e : events_of(*r.trace, "rollback")) EXPECT_NE(e["details"]["member"], 0) << "a secondary had everything";
    // With no fault, a member that stands wins: a takeover that could not win stopped at its dry
    // run, and raised no term that would have unseated the primary.
    for (const auto& e : events_of(*r.trace, "election_lost")) EXPECT_TRUE(e["details"].contains("dry_run")) << "lost term " << e["details"]["term"];
    const auto failed = events_of(*r.trace, "step_down_failed");
    ASSERT_EQ(failed.size(), 1u);
    EXPECT_EQ(failed[0]["details"]["member"], 2);
    EXPECT_EQ(failed[0]["details"]["why"].get<std::string>().rfind("NotWritablePrimary", 0), 0u);
    EXPECT_GT(r.trace->verdict()["coverage"].value("primary_stepped_down", 0), 0);
  }
}

// A script on a replica set with elections (world/script_clients.h): scenarios/script_step_down.json
// holds step by step, its client following the primary from member 0 to member 1 and back; the
// same script expecting the old primary to stay primary after its step-down fails at that step.
TEST(Failover, AScriptsClientFollowsThePrimaryThroughAStepDown) {
  nlohmann::json j = nlohmann::json::parse(std::ifstream(kSource + "/scenarios/script_step_down.json"));
  for (uint64_t seed = 1; seed <= 2; ++seed) {
    SCOPED_TRACE(seed);
    const RunResult r = run_scenario(scenario_from_json(j, "script_step_down.json"), seed);
    EXPECT_TRUE(r.ok) << (r.violations.empty() ? "" : r.violations.front().detail);
    std::map<size_t, nlohmann::json> steps;
    for (const auto& e : events_of(*r.trace, "script_step")) steps[e["details"]["step"].get<size_t>()] = e["details"];
    ASSERT_EQ(steps.size(), j["steps"].size());
    for (const auto& [index, d] : steps) EXPECT_TRUE(d["held"] == true && !d.contains("skipped")) << "step " << index;
    EXPECT_EQ(steps[6]["code"], "ExceededTimeLimit");
    EXPECT_EQ(steps[10]["code"], "OK");
    EXPECT_EQ(steps[1]["member"], 0);
    EXPECT_EQ(steps[12]["member"], 1) << "the write after the step-down went to the new primary";
    EXPECT_EQ(events_of(*r.trace, "step_down_failed").size(), 1u);
  }
  j["steps"][11]["expect"]["state"] = "PRIMARY";
  const RunResult r = run_scenario(scenario_from_json(j, "script_step_down.json"), 1);
  ASSERT_EQ(r.violations.size(), 1u);
  EXPECT_EQ(r.violations.front().property, properties::Property::kScriptExpectations);
  EXPECT_EQ(r.violations.front().detail, "step 11 (replSetGetStatus): state: expected \"PRIMARY\", got \"SECONDARY\"");
}

// Without a liveness phase, a run that stops while the set elects (the cut-off primary steps down
// at 5.6 s, the new one elected at 5.8 s is not writable yet when the run stops at 6 s) is not
// judged: no correct set need have a primary then. With one, the phase must leave time for an
// election.
TEST(Failover, AnElectionUnderWayAtTheEndIsNotJudgedWithoutALivenessPhase) {
  const Scenario s = load_scenario(kSource + "/scenarios/failover.json", {"liveness_ms=0", "duration_ms=6000", "backup=null"});
  const RunResult r = run_scenario(s, 1);
  EXPECT_TRUE(r.ok) << (r.violations.empty() ? "" : r.violations.front().detail);
  ASSERT_EQ(events_of(*r.trace, "no_final_primary").size(), 1u);
  EXPECT_TRUE(events_of(*r.trace, "final_oplog").empty());  // nothing to compare the members with
  // A phase shorter than two election timeouts (3 s each here) is refused, naming the field.
  try {
    load_scenario(kSource + "/scenarios/failover.json", {"liveness_ms=5999"});
    ADD_FAILURE() << "a liveness phase of 5999 ms with a 3000 ms election timeout was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("/liveness_ms"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("6000 ms"), std::string::npos) << e.what();
  }
  EXPECT_NO_THROW(load_scenario(kSource + "/scenarios/failover.json", {"liveness_ms=6000"}));
}

TEST(Failover, OneMemberWithElectionsIsItsOwnPrimaryAndMajority) {
  const Scenario s = load_scenario(kSource + "/scenarios/failover.json",
                                   {"duration_ms=3000", "liveness_ms=2000", "backup=null",
                                    R"(replica_set={"members": [{}], "elections": {"heartbeat_interval_ms": 500, "election_timeout_ms": 1000},
                                        "majority_fraction": 1})"});
  const RunResult r = run_scenario(s, 1);
  EXPECT_TRUE(r.ok) << (r.violations.empty() ? "" : r.violations.front().detail);
  EXPECT_EQ(events_of(*r.trace, "elected").size(), 1u);
  size_t ok = 0;
  for (const auto& e : events_of(*r.trace, "client_complete")) ok += e["details"]["fate"] == "ok";
  EXPECT_GT(ok, 100u);
}

}  // namespace
}  // namespace wtsim::world
