// The Perfetto export (Chrome trace-event JSON) of real small runs: a crashing run (fault_mix
// seed 3, two crashes) and a short TTL run with metrics samples. Structure checks: every event
// has ph/ts/pid/tid, tracks are named, ts never decreases on a track, spans are well formed and
// where the trace puts them, counters carry the samples' values.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <sstream>

#include "world/world.h"
#include "traces/perfetto.h"

namespace wtsim::traces {
namespace {

const std::string kSource = WTSIM_SOURCE_DIR;

nlohmann::json run(const std::string& scenario, uint64_t seed, const std::vector<std::string>& overrides = {}) {
  const world::Scenario s = world::load_scenario(kSource + "/scenarios/" + scenario, overrides);
  return world::run_scenario(s, seed).trace->to_json();
}

const nlohmann::json& crash_trace() {
  static const nlohmann::json t = run("fault_mix.json", 3);
  return t;
}

// 130 virtual s, a batch a second, documents expire after 30 s: two TTL passes that delete.
const nlohmann::json& ttl_trace() {
  static const nlohmann::json t = run("ttl_vs_manual_delete.json", 1,
                                      {"duration_ms=130000", "workload.think_us=1000000", "workload.batch_size=100", "ttl.expire_after_s=30"});
  return t;
}

nlohmann::json exported(const nlohmann::json& trace) {
  std::ostringstream out;
  const size_t written = write_perfetto(trace, out);
  nlohmann::json j = nlohmann::json::parse(out.str());
  EXPECT_EQ(j.at("traceEvents").size(), written);
  return j;
}

std::vector<nlohmann::json> of_phase(const nlohmann::json& perfetto, const std::string& ph) {
  std::vector<nlohmann::json> out;
  for (const auto& e : perfetto["traceEvents"]) {
    if (e["ph"] == ph) out.push_back(e);
  }
  return out;
}

std::vector<nlohmann::json> of_kind(const nlohmann::json& trace, const std::string& kind) {
  std::vector<nlohmann::json> out;
  for (const auto& e : trace["events"]) {
    if (e["kind"] == kind) out.push_back(e);
  }
  return out;
}

TEST(PerfettoExport, EveryEventHasPhTsPidTid) {
  for (const nlohmann::json* trace : {&crash_trace(), &ttl_trace()}) {
    const nlohmann::json p = exported(*trace);
    ASSERT_GT(p["traceEvents"].size(), 100u);
    for (const auto& e : p["traceEvents"]) {
      ASSERT_TRUE(e.contains("ph") && e["ph"].is_string()) << e.dump();
      ASSERT_TRUE(e.contains("ts") && e["ts"].is_number() && e["ts"].get<double>() >= 0) << e.dump();
      ASSERT_TRUE(e.contains("pid") && e["pid"].is_number_integer()) << e.dump();
      ASSERT_TRUE(e.contains("tid") && e["tid"].is_number_integer()) << e.dump();
      ASSERT_TRUE(e.contains("name") && e["name"].is_string()) << e.dump();
    }
  }
}

TEST(PerfettoExport, EveryActorHasANamedTrack) {
  const nlohmann::json p = exported(crash_trace());
  std::map<int, std::string> names;
  bool process_named = false;
  for (const auto& e : of_phase(p, "M")) {
    if (e["name"] == "thread_name") names[e["tid"].get<int>()] = e["args"]["name"].get<std::string>();
    if (e["name"] == "process_name") process_named = e["args"]["name"] == "wtsim fault_mix seed 3";
  }
  EXPECT_TRUE(process_named);
  for (const auto& e : p["traceEvents"]) {
    if (e["ph"] != "M") {
      ASSERT_TRUE(names.count(e["tid"].get<int>())) << "unnamed track: " << e.dump();
    }
  }
  std::set<std::string> track_names;
  for (const auto& [tid, name] : names) track_names.insert(name);
  for (const auto& e : crash_trace()["events"]) {
    ASSERT_TRUE(track_names.count(e["actor"].get<std::string>())) << "no track for " << e["actor"];
  }
  EXPECT_EQ(track_names.size(), names.size()) << "two tracks with one name";
}

TEST(PerfettoExport, TimestampsNeverDecreaseOnATrack) {
  for (const nlohmann::json* trace : {&crash_trace(), &ttl_trace()}) {
    std::map<int, double> last;
    for (const auto& e : exported(*trace)["traceEvents"]) {
      if (e["ph"] == "M") continue;
      const int tid = e["tid"].get<int>();
      const double ts = e["ts"].get<double>();
      if (last.count(tid)) {
        ASSERT_GE(ts, last[tid]) << e.dump();
      }
      last[tid] = ts;
    }
  }
}

TEST(PerfettoExport, EveryEventButSamplesIsAnInstantWithItsIndex) {
  const nlohmann::json& trace = ttl_trace();
  const auto instants = of_phase(exported(trace), "i");
  std::vector<uint64_t> expected, got;
  for (const auto& e : trace["events"]) {
    if (e["kind"] != "sample") expected.push_back(e["i"].get<uint64_t>());
  }
  for (const auto& e : instants) got.push_back(e["args"]["i"].get<uint64_t>());
  EXPECT_EQ(got, expected);
}

TEST(PerfettoExport, NodeDownSpansRunFromEachCrashToTheNextStart) {
  const nlohmann::json& trace = crash_trace();
  const auto crashes = of_kind(trace, "crash");
  const auto starts = of_kind(trace, "started");
  ASSERT_EQ(crashes.size(), 2u) << "fault_mix seed 3 is expected to crash twice";
  std::vector<nlohmann::json> down;
  for (const auto& e : of_phase(exported(trace), "X")) {
    ASSERT_GE(e["dur"].get<double>(), 0) << e.dump();
    if (e["name"] == "node down") down.push_back(e);
  }
  ASSERT_EQ(down.size(), crashes.size());
  for (size_t k = 0; k < down.size(); ++k) {
    EXPECT_EQ(down[k]["ts"], crashes[k]["t_us"]);
    EXPECT_EQ(down[k]["ts"].get<uint64_t>() + down[k]["dur"].get<uint64_t>(), starts[k + 1]["t_us"].get<uint64_t>());
  }
}

TEST(PerfettoExport, TtlPassesAreSpansEndingAtTheirEvent) {
  const nlohmann::json& trace = ttl_trace();
  const auto passes = of_kind(trace, "ttl_pass");
  ASSERT_EQ(passes.size(), 2u);
  std::vector<nlohmann::json> spans;
  for (const auto& e : of_phase(exported(trace), "X")) {
    if (e["name"] == "ttl_pass") spans.push_back(e);
  }
  ASSERT_EQ(spans.size(), passes.size());
  for (size_t k = 0; k < spans.size(); ++k) {
    const uint64_t took_us = passes[k]["details"]["took_us"].get<uint64_t>();
    EXPECT_GT(took_us, 0u);
    EXPECT_EQ(spans[k]["dur"].get<uint64_t>(), took_us);
    EXPECT_EQ(spans[k]["ts"].get<uint64_t>() + took_us, passes[k]["t_us"].get<uint64_t>());
    EXPECT_EQ(spans[k]["args"]["deleted"], passes[k]["details"]["deleted"]);
  }
}

TEST(PerfettoExport, CountersCarryEverySamplesValues) {
  const nlohmann::json& trace = ttl_trace();
  const auto samples = of_kind(trace, "sample");
  ASSERT_GE(samples.size(), 100u);
  std::map<std::string, std::vector<nlohmann::json>> counters;
  for (const auto& e : of_phase(exported(trace), "C")) {
    for (const auto& [series, v] : e["args"].items()) ASSERT_TRUE(v.is_number()) << e.dump();
    counters[e["name"].get<std::string>()].push_back(e);
  }
  for (const char* panel : {"opcounters", "collStats.count", "wiredTiger cursor calls", "metrics.ttl", "metrics.document", "disk bytes"}) {
    ASSERT_EQ(counters[panel].size(), samples.size()) << panel;
  }
  const nlohmann::json& last = samples.back()["details"];
  const nlohmann::json& ops = counters["opcounters"].back();
  EXPECT_EQ(ops["ts"], samples.back()["t_us"]);
  EXPECT_EQ(ops["args"]["insert"], last["serverStatus"]["opcounters"]["insert"]);
  EXPECT_GT(ops["args"]["insert"].get<double>(), 0);
  EXPECT_EQ(counters["metrics.ttl"].back()["args"]["deletedDocuments"], last["serverStatus"]["metrics"]["ttl"]["deletedDocuments"]);
  EXPECT_EQ(counters["collStats.count"].back()["args"]["test.demo"], last["collStats"]["test.demo"]["count"]);
  EXPECT_EQ(counters["disk bytes"].back()["args"]["table files"], last["disk_bytes"]);
  EXPECT_EQ(counters["wiredTiger cursor calls"].back()["args"]["insert"], last["serverStatus"]["wiredTiger"]["cursor"]["cursor insert calls"]);
}

}  // namespace
}  // namespace wtsim::traces
