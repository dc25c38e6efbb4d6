// Scenarios as scripts (world/script.h): what the parser refuses, with the step and the field;
// that a failed expectation is a violation naming its step; that clients go on after a crash.
#include <gtest/gtest.h>

#include <string>

#include "world/world.h"

namespace wtsim::world {
namespace {

// The error a script's steps give, or "" when they load.
std::string steps_error(const std::string& steps) {
  try {
    scenario_from_json(nlohmann::json::parse(R"({"name":"x","duration_ms":1000,"steps":)" + steps + "}"), "s.json");
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST(Script, BadStepsNameTheStepAndTheField) {
  EXPECT_EQ(steps_error(R"([{"cmd":"insert","ns":"t.c","docs":{"_id":1}}])"), "");
  EXPECT_EQ(steps_error("[]"), "s.json: /steps: expected a non-empty array of steps, found array []");
  EXPECT_NE(steps_error(R"([{"cmd":"find","ns":"t.c"},{"cmd":"instert"}])").find("s.json: /steps/1/cmd: unknown command \"instert\"; the commands are awaitReplication, barrier"),
            std::string::npos);
  EXPECT_EQ(steps_error(R"([{"cmd":"insert","ns":"t.c"}])"), "s.json: /steps/0/docs: required field is missing");
  EXPECT_EQ(steps_error(R"([{"cmd":"insert","ns":"t.c","docs":{},"colour":1}])"), "s.json: /steps/0/colour: unknown field");
  EXPECT_EQ(steps_error(R"([{"cmd":"insert","ns":"tc","docs":{}}])"), "s.json: /steps/0/ns: expected \"db.collection\", found string \"tc\"");
  EXPECT_EQ(steps_error(R"([{"cmd":"update","ns":"t.c","update":{},"multi":"yes"}])"),
            "s.json: /steps/0/multi: expected true or false, found string \"yes\"");
  EXPECT_EQ(steps_error(R"([{"cmd":"createIndex","ns":"t.c","key":{"a":2}}])"), "s.json: /steps/0/key/a: expected 1 or -1, found number 2");
  EXPECT_EQ(steps_error(R"([{"cmd":"barrier","client":1}])"), "s.json: /steps/0/client: a barrier lines up every client: no client field");
  EXPECT_EQ(steps_error(R"([{"cmd":"insert","ns":"t.c","docs":{},"expect":{"docs":[]}}])"),
            "s.json: /steps/0/expect: docs and explain are expectations of a find (docs: or listIndexes)");
  EXPECT_EQ(steps_error(R"([{"cmd":"find","ns":"t.c","expect":{"code":"Oops"}}])").substr(0, 30), "s.json: /steps/0/expect/code: ");
  const std::string metric = steps_error(R"([{"cmd":"find","ns":"t.c","expect":{"metrics":{"/serverStatus/metrics/ttl/pases":1}}}])");
  EXPECT_EQ(metric.substr(0, 82), "s.json: /steps/0/expect/metrics//serverStatus/metrics/ttl/pases: names no metric: ");
  EXPECT_EQ(steps_error(R"([{"cmd":"find","ns":"t.c","expect":{"metrics":{"/collStats/t.c/count":{"min":"a"}}}}])"),
            "s.json: /steps/0/expect/metrics//collStats/t.c/count/min: expected a number, found string \"a\"");
  EXPECT_EQ(steps_error(R"([{"cmd":"sleep","ms":-1}])"), "s.json: /steps/0/ms: expected a non-negative integer, found number -1");
  EXPECT_EQ(steps_error(R"([{"cmd":"pause"}])"), "s.json: /steps/0/member: required field is missing");
  EXPECT_EQ(steps_error(R"([{"cmd":"pause","member":0}])"), "s.json: /steps/0/cmd: pause needs a replica set: replica_set.members with at least 2");
  EXPECT_EQ(steps_error(R"([{"cmd":"pause","member":1}])"), "s.json: /steps/0/cmd: pause needs a replica set: replica_set.members with at least 2");
  try {
    scenario_from_json(nlohmann::json::parse(R"({"name":"x","duration_ms":1,"workload":{"kind":"kv"},"steps":[{"cmd":"flush"}]})"), "s.json");
    ADD_FAILURE() << "steps beside another workload kind were taken";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()), "s.json: /workload/kind: a scenario with steps runs them: leave kind out or make it \"script\"");
  }
}

// The error of steps on a replica set of three members, with elections or without.
std::string replica_steps_error(const std::string& steps, bool elections) {
  const std::string rs = std::string(R"({"members":[{},{},{}])") + (elections ? R"(,"elections":{}})" : "}");
  try {
    scenario_from_json(nlohmann::json::parse(R"({"name":"x","duration_ms":1000,"replica_set":)" + rs + R"(,"steps":)" + steps + "}"), "s.json");
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST(Script, ElectionsTakeNetworkStepsAndRefuseTheNodesOwn) {
  EXPECT_EQ(replica_steps_error(R"([{"cmd":"stepDown","secs":5,"catch_up_secs":0},{"cmd":"pause","member":0}])", true), "");
  EXPECT_EQ(replica_steps_error(R"([{"cmd":"insert","ns":"t.c","docs":{},"w":"majority","wtimeout_ms":100}])", true), "");
  EXPECT_EQ(replica_steps_error(R"([{"cmd":"stepDown"}])", false), "s.json: /steps/0/cmd: stepDown needs replica_set.elections");
  EXPECT_EQ(replica_steps_error(R"([{"cmd":"insert","ns":"t.c","docs":{},"w":1}])", false),
            "s.json: /steps/0/w: a write concern needs replica_set.elections (its commit point)");
  EXPECT_EQ(replica_steps_error(R"([{"cmd":"insert","ns":"t.c","docs":{},"w":2}])", true), "s.json: /steps/0/w: expected 1 or \"majority\", found number 2");
  EXPECT_EQ(replica_steps_error(R"([{"cmd":"stepDown","secs":0}])", true), "s.json: /steps/0/secs: expected seconds in [1, 3600], found number 0");
  EXPECT_EQ(replica_steps_error(R"([{"cmd":"crash"}])", true),
            "s.json: /steps/0/cmd: crash runs on the script's own node: not with replica_set.elections (its clients are on the network)");
  EXPECT_EQ(replica_steps_error(R"([{"cmd":"flush","expect":{"disk_bytes":1}}])", true).substr(0, 29), "s.json: /steps/0/cmd: flush r");
  EXPECT_EQ(replica_steps_error(R"([{"cmd":"sleep","ms":1,"expect":{"disk_bytes":1}}])", true),
            "s.json: /steps/0/expect/disk_bytes: the script's own node's: not with replica_set.elections");
  EXPECT_EQ(replica_steps_error(R"([{"cmd":"heal","expect":{"metrics":{"/collStats/t.c/count":1}}}])", true),
            "s.json: /steps/0/expect/metrics: with replica_set.elections, metrics are those of the member that served a document command");
  EXPECT_EQ(replica_steps_error(R"([{"cmd":"pause","member":0}])", false), "s.json: /steps/0/member: the script runs on member 0: pause another member");
}

TEST(Script, AFailedExpectationIsAViolationNamingItsStep) {
  Scenario s = scenario_from_json(nlohmann::json::parse(R"({"name":"x","duration_ms":1000,"steps":[
      {"cmd":"insert","ns":"t.c","docs":[{"_id":1},{"_id":2}],"expect":{"n":2}},
      {"cmd":"find","ns":"t.c","expect":{"n":3,"metrics":{"/collStats/t.c/count":2}}}]})"),
                                  "s.json");
  RunResult r = run_scenario(s, 1);
  ASSERT_EQ(r.violations.size(), 1u);
  EXPECT_EQ(r.violations.front().property, properties::Property::kScriptExpectations);
  EXPECT_EQ(r.violations.front().detail, "step 1 (find): n: expected 3, got 2");
}

// {"$repeatIndex": k} is the run's index plus k; up to 64 clients.
TEST(Script, ARepeatedStepSeesItsRunIndexAndSixtyFourClientsRun) {
  EXPECT_EQ(steps_error(R"([{"cmd":"flush","client":64}])"), "s.json: /steps/0/client: must be below 64");
  Scenario s = scenario_from_json(nlohmann::json::parse(R"({"name":"x","duration_ms":1000,"steps":[
      {"cmd":"insert","ns":"t.c","docs":{"_id":{"$repeatIndex":1},"sq":[{"$repeatIndex":0}]},"repeat":5},
      {"cmd":"barrier"},
      {"cmd":"find","ns":"t.c","client":63,"sort":{"_id":1},"expect":{"docs":[{"_id":1,"sq":[0]},{"_id":2,"sq":[1]},{"_id":3,"sq":[2]},
                                                                               {"_id":4,"sq":[3]},{"_id":5,"sq":[4]}]}}]})"),
                                  "s.json");
  const RunResult r = run_scenario(s, 1);
  EXPECT_TRUE(r.ok) << (r.violations.empty() ? "" : r.violations.front().detail);
  uint64_t checked = 0;
  for (const auto& e : r.trace->events()) checked += e["kind"] == "script_step" && e["details"]["cmd"] == "find" && e["details"]["held"] == true;
  EXPECT_EQ(checked, 1u);
}

TEST(Script, ClientsGoOnAfterACrashAndTheWriteAcknowledgedBeforeItIsThere) {
  Scenario s = scenario_from_json(nlohmann::json::parse(R"({"name":"x","duration_ms":2000,"steps":[
      {"cmd":"insert","ns":"t.c","docs":{"_id":1},"j":true},
      {"cmd":"crash","mode":"torn_prefix"},
      {"cmd":"find","ns":"t.c","expect":{"docs":[{"_id":1}]}},
      {"cmd":"insert","ns":"t.c","docs":{"_id":2,"at":{"$now":-5}}},
      {"cmd":"find","ns":"t.c","filter":{"_id":2},"expect":{"n":1}}]})"),
                                  "s.json");
  RunResult r = run_scenario(s, 1);
  EXPECT_TRUE(r.ok) << (r.violations.empty() ? "" : r.violations.front().detail);
  EXPECT_EQ(r.stats.crashes, 1u);
  uint64_t steps = 0;
  for (const auto& e : r.trace->events()) steps += e["kind"] == "script_step" && e["details"]["held"] == true;
  EXPECT_EQ(steps, 4u);  // the crash step itself ends in the crash
}


// runTtlPass deletes at once, from a bound of the pass's start minus expireAfterSeconds cut to
// whole seconds (1.9 is 1: the document 1.5 s old goes, with 1.9 s it would stay).
TEST(Script, RunTtlPassDeletesAtOnceByTheWholeSecondsOfTheBound) {
  EXPECT_EQ(steps_error(R"([{"cmd":"runTtlPass","expect":{"reply":{"/ok":1},"n":0}}])"), "");
  EXPECT_EQ(steps_error(R"([{"cmd":"waitTtlPass","expect":{"reply":{"/ok":1}}}])"),
            "s.json: /steps/0/expect/reply: reply is an expectation of collMod, find, findAndModify and runTtlPass");
  EXPECT_EQ(replica_steps_error(R"([{"cmd":"runTtlPass"}])", true).substr(0, 34), "s.json: /steps/0/cmd: runTtlPass r");
  Scenario s = scenario_from_json(nlohmann::json::parse(R"({"name":"x","duration_ms":20000,"steps":[
      {"cmd":"setParameter","ttlMonitorEnabled":false},
      {"cmd":"insert","ns":"t.c","docs":[{"_id":1,"at":{"$now":-500}},{"_id":2,"at":{"$now":-1500}},{"_id":3,"at":{"$now":-2500}}]},
      {"cmd":"createIndex","ns":"t.c","key":{"at":1},"expireAfterSeconds":1.9},
      {"cmd":"runTtlPass","expect":{"n":2,"reply":{"/ok":1}}},
      {"cmd":"find","ns":"t.c","filter":{"_id":1},"expect":{"n":1}},
      {"cmd":"find","ns":"t.c","expect":{"n":1}},
      {"cmd":"sleep","ms":1000},
      {"cmd":"runTtlPass","expect":{"n":1}},
      {"cmd":"find","ns":"t.c","expect":{"n":0}}]})"),
                                  "s.json");
  const RunResult r = run_scenario(s, 1);
  EXPECT_TRUE(r.ok) << (r.violations.empty() ? "" : r.violations.front().detail);
  std::vector<int64_t> deleted, held;
  for (const auto& e : r.trace->events()) {
    if (e["kind"] == "ttl_pass") deleted.push_back(e["details"]["deleted"].get<int64_t>());
    if (e["kind"] == "script_step" && e["details"]["cmd"] == "runTtlPass") held.push_back(e["details"]["held"].get<bool>());
  }
  EXPECT_EQ(deleted, (std::vector<int64_t>{2, 1}));  // the two passes of the steps, no monitor's
  EXPECT_EQ(held, (std::vector<int64_t>{1, 1}));
}

// create's clusteredIndex has MongoDB 5.3's one form and no padded collection; findAndModify's
// fields refuse the projection operators that are not modelled.
TEST(Script, ClusteredIndexAndProjectionFieldsAreChecked) {
  EXPECT_EQ(steps_error(R"([{"cmd":"create","ns":"t.c","clusteredIndex":{"key":{"a":1},"unique":true}}])").substr(0, 37),
            "s.json: /steps/0/clusteredIndex: expe");
  EXPECT_EQ(steps_error(R"([{"cmd":"create","ns":"t.c","padded":true,"clusteredIndex":{"key":{"_id":1},"unique":true}}])"),
            "s.json: /steps/0/clusteredIndex: a padded (MMAPv1) collection cannot be clustered");
  EXPECT_EQ(steps_error(R"([{"cmd":"findAndModify","ns":"t.c","remove":true,"fields":{"a":{"$slice":2}}}])").substr(0, 34),
            "s.json: /steps/0/fields/a: expecte");
  EXPECT_EQ(steps_error(R"([{"cmd":"findAndModify","ns":"t.c","remove":true,"fields":{"a":{"$pop":1}}}])"), "");  // MongoDB's BadValue
}

// {"$fill": [text, n]} writes a big value small; a malformed generator, or create's flags beside
// power_of_2_sizes, is bad input naming the field; a find's reply holds its documents.
TEST(Script, FillWritesBigValuesAndBadGeneratorsAreRefused) {
  EXPECT_EQ(steps_error(R"([{"cmd":"insert","ns":"t.c","docs":{"s":{"$fill":["a",-1]}}}])"),
            "s.json: /steps/0/docs/s/$fill: expected [\"text\", copies], at most 16 MB in all, found array [\"a\",-1]");
  EXPECT_EQ(steps_error(R"([{"cmd":"find","ns":"t.c","filter":{"at":{"$lt":{"$now":1.5}}}}])"),
            "s.json: /steps/0/filter/at/$lt/$now: expected an integer (milliseconds for $now), found number 1.5");
  EXPECT_EQ(steps_error(R"([{"cmd":"create","ns":"t.c","flags":1,"power_of_2_sizes":true}])"),
            "s.json: /steps/0/flags: give flags or power_of_2_sizes, not both");
  EXPECT_EQ(steps_error(R"([{"cmd":"create","ns":"t.c","flags":4}])").substr(0, 28), "s.json: /steps/0/flags: expe");
  Scenario s = scenario_from_json(nlohmann::json::parse(R"({"name":"x","duration_ms":1000,"steps":[
      {"cmd":"insert","ns":"t.c","docs":{"_id":1,"s":{"$fill":["ab",3]}}},
      {"cmd":"find","ns":"t.c","expect":{"docs":[{"_id":1,"s":{"$fill":["ab",3]}}]}},
      {"cmd":"find","ns":"t.c","showRecordId":true,"expect":{"reply":{"/cursor/firstBatch/0/s":"ababab","/ok":1}}},
      {"cmd":"find","ns":"t.c","expect":{"reply":{"/cursor/firstBatch/0/$recordId":null}}}]})"),
                                  "s.json");
  const RunResult r = run_scenario(s, 1);
  EXPECT_TRUE(r.ok) << (r.violations.empty() ? "" : r.violations.front().detail);
  uint64_t held = 0;
  for (const auto& e : r.trace->events()) held += e["kind"] == "script_step" && e["details"]["held"] == true;
  EXPECT_EQ(held, 4u);
}

}  // namespace
}  // namespace wtsim::world
