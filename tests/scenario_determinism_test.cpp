// Determinism is the product: for every shipped scenario (found in scenarios/ and its folders, so a new one is
// covered the day it lands), the same seed gives the same trace hash, twice in one process: every
// event and the verdict, byte for byte, except the values measured from WiredTiger's side (file
// sizes, its own statistics), which the hash leaves out by design (traces/trace.h). Long
// scenarios run shortened (the overrides below).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "world/world.h"

namespace wtsim::world {
namespace {

const std::string kSource = WTSIM_SOURCE_DIR;

// Names relative to scenarios/, without ".json" ("smoke", "jstests/ttl1").
std::vector<std::string> shipped_scenarios() {
  std::vector<std::string> names;
  const std::filesystem::path root = kSource + "/scenarios";
  for (const auto& e : std::filesystem::recursive_directory_iterator(root)) {
    if (e.path().extension() == ".json") names.push_back(std::filesystem::relative(e.path(), root).replace_extension().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

// Keeps each run to a few wall seconds whatever the scenario's own scale.
std::vector<std::string> shortening(const std::string& name) {
  const Scenario s = load_scenario(kSource + "/scenarios/" + name + ".json");
  std::vector<std::string> o = {"duration_ms=" + std::to_string(std::min<int64_t>(s.duration_ns / sim::kNsPerMs, 15000))};
  // With elections, the phase is two election timeouts at least (the scenario reader's floor).
  const sim::Nanos liveness_ns = std::max<sim::Nanos>(5 * sim::kNsPerSec, s.replica_set.elections ? 2 * s.replica_set.election_timeout_ns : 0);
  if (s.liveness_ns > 0) o.push_back("liveness_ms=" + std::to_string(std::min(s.liveness_ns, liveness_ns) / sim::kNsPerMs));
  if (s.workload.kind == WorkloadKind::kTimeSeries) o.push_back("workload.batch_size=20");
  if (s.workload.kind == WorkloadKind::kTimeSeries) o.push_back("ttl.expire_after_s=5");
  if (s.workload.kind == WorkloadKind::kTimeSeries) o.push_back("ttl.monitor_sleep_s=2");
  if (s.workload.kind == WorkloadKind::kPadding) o.push_back("workload.total_documents=2000");
  if (s.workload.kind == WorkloadKind::kBackup) o.push_back("backup.start_ms=4000");
  if (s.workload.kind == WorkloadKind::kBackup) o.push_back("backup.copy_mb_per_s=20");
  return o;
}

// The events as the hash sees them: "measured" values aside (traces/trace.h says why).
nlohmann::json witness(nlohmann::json events) {
  for (auto& e : events) {
    if (e.contains("details") && e["details"].is_object()) e["details"].erase("measured");
  }
  return events;
}

class EveryScenario : public ::testing::TestWithParam<std::string> {};

TEST_P(EveryScenario, TheSameSeedGivesAByteIdenticalTrace) {
  const Scenario s = load_scenario(kSource + "/scenarios/" + GetParam() + ".json", shortening(GetParam()));
  for (uint64_t seed : {1, 2}) {
    const Scenario drawn = draw_knobs(s, seed);
    const RunResult a = run_scenario(drawn, seed);
    const RunResult b = run_scenario(drawn, seed);
    ASSERT_GT(a.trace->events().size(), 2u);
    // Nothing is left outside the hash: WiredTiger's threads are fibers, so what they shift
    // (file sizes, statistics, messages) is as deterministic as the rest.
    for (const auto& e : a.trace->events()) {
      ASSERT_FALSE(e.contains("details") && e["details"].is_object() && e["details"].contains("measured")) << e.dump();
    }
    ASSERT_FALSE(a.trace->to_json()["verdict"].contains("measured"));
    if (a.trace->hash() == b.trace->hash()) continue;
    const nlohmann::json ja = a.trace->to_json(), jb = b.trace->to_json();
    const nlohmann::json ea = witness(ja["events"]), eb = witness(jb["events"]);
    size_t i = 0;
    while (i < ea.size() && i < eb.size() && ea[i] == eb[i]) ++i;
    ADD_FAILURE() << GetParam() << " seed " << seed << ": traces differ (hash " << a.trace->hash() << " vs "
                  << b.trace->hash() << "), first at event " << i << ":\n  "
                  << (i < ea.size() ? ea[i].dump() : std::string("(end)")) << "\n  "
                  << (i < eb.size() ? eb[i].dump() : std::string("(end)")) << "\n  verdicts: " << ja["verdict"].dump()
                  << "\n            " << jb["verdict"].dump();
  }
}

INSTANTIATE_TEST_SUITE_P(Scenarios, EveryScenario, ::testing::ValuesIn(shipped_scenarios()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string name = info.param;
                           std::replace(name.begin(), name.end(), '/', '_');  // a test name has no '/'
                           return name;
                         });

}  // namespace
}  // namespace wtsim::world
