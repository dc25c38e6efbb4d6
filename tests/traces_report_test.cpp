// The HTML report's data and embedding: the JSON block cannot be ended early by a "</script>" in
// the data, the page stays small for a big trace (series downsampled, timeline thinned, commits
// counted), and a violation is shown with the events around it. (The page's JavaScript is tested
// in a real browser by tests/report_test.sh.)
#include <gtest/gtest.h>

#include "world/world.h"
#include "traces/report.h"
#include "traces/trace.h"

namespace wtsim::traces {
namespace {

const std::string kSource = WTSIM_SOURCE_DIR;

size_t occurrences(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

nlohmann::json header() {
  return {{"tool", "wtsim"}, {"tool_version", "0.1.0"}, {"wiredtiger_version", "3.2.1"}, {"seed", 7},
          {"scenario", {{"name", "synthetic"}, {"duration_ms", 1000}}}, {"fault_plan", nlohmann::json::array()},
          {"cost_model", {{"cpu_cores", 2}}}};
}

nlohmann::json sample(uint64_t k) {
  return {{"serverStatus", {{"opcounters", {{"insert", k * 10}, {"update", k}}}}},
          {"collStats", {{"test.c", {{"count", k}, {"paddingFactor", 1.0 + static_cast<double>(k % 100) / 100}}}}},
          {"measured", {{"disk_bytes", 4096 * k}}}};
}

// A big synthetic trace: `commits` commits by 4 writers, a WiredTiger message every 10th
// event, a crash every 50,000, and a metrics sample every 40th.
nlohmann::json big_trace(uint64_t commits) {
  Trace t(header());
  for (uint64_t k = 0; k < commits; ++k) {
    const sim::Nanos at_ns = static_cast<sim::Nanos>(k) * 10 * sim::kNsPerUs;
    t.event(at_ns, "writer-" + std::to_string(k % 4) + ".g1", "commit", {{"seq", k + 1}, {"writes", {{"k", "0123456789abcdef", nullptr}}}, {"durable", true}, {"fate", "ok"}});
    if (k % 10 == 0) t.event(at_ns, "wiredtiger", "message", {{"text", "checkpoint progress " + std::to_string(k)}});
    if (k % 40 == 0) t.event(at_ns, "metrics", "sample", sample(k / 40));
    if (k % 50'000 == 49'999) t.event(at_ns, "faults", "crash", {{"cause", "test"}, {"mode", "torn_prefix"}, {"generation", 1}});
  }
  t.set_verdict({{"ok", true}, {"outcome", "finished"}, {"violations", nlohmann::json::array()}, {"stats", {{"virtual_ms", commits / 100}}}});
  return t.to_json();
}

TEST(ReportEmbedding, ScriptSafeJsonHasNoLessThanAndRoundTrips) {
  const nlohmann::json data = {{"text", "</script><script>alert(1)</script><!-- x"}, {"n", 3}};
  const std::string safe = script_safe_json(data);
  EXPECT_EQ(safe.find('<'), std::string::npos);
  EXPECT_EQ(nlohmann::json::parse(safe), data);
}

TEST(ReportEmbedding, ADataStringCannotEndTheDataBlock) {
  Trace t(header());
  t.event(0, "wiredtiger", "message", {{"text", "</script><script>document.body.dataset.status='pwned'</script>"}});
  t.event(0, "wiredtiger", "message", {{"text", "placeholder"}});
  t.set_verdict({{"ok", true}, {"outcome", "finished"}, {"violations", nlohmann::json::array()}, {"stats", nlohmann::json::object()}});
  nlohmann::json trace = t.to_json();
  trace["events"][1]["details"]["text"] = std::string("bad utf-8: \xff\xfe");  // replaced, not thrown on
  const std::string page = report_html(trace);
  const std::string tmpl = kReportTemplate;
  EXPECT_EQ(occurrences(page, "</script>"), occurrences(tmpl, "</script>"));
  EXPECT_EQ(occurrences(page, "<script"), occurrences(tmpl, "<script"));
  EXPECT_EQ(occurrences(page, "__WTSIM_REPORT_DATA__"), 0u);
  EXPECT_NE(page.find("\\u003c/script>"), std::string::npos);
}

TEST(ReportData, BigTraceStaysSmallAndKeepsWhatMatters) {
  const uint64_t commits = 300'000;
  const nlohmann::json trace = big_trace(commits);
  const ReportLimits limits;
  const nlohmann::json d = report_data(trace, limits);

  // Charts: each series downsampled, first and last sample kept.
  ASSERT_FALSE(d["charts"].empty());
  EXPECT_EQ(d["charts"][0]["panel"], "collStats.count");  // the headline panel first
  for (const auto& c : d["charts"]) {
    EXPECT_LE(c["t_us"].size(), limits.points_per_chart) << c["panel"];
    EXPECT_EQ(c["samples"], commits / 40);
    EXPECT_EQ(c["t_us"].front(), 0);
    EXPECT_EQ(c["t_us"].back(), (commits - 40) * 10);
    for (const auto& s : c["series"]) EXPECT_EQ(s["v"].size(), c["t_us"].size());
  }

  // Timeline: messages thinned, every crash kept, every commit counted.
  const nlohmann::json& tl = d["timeline"];
  EXPECT_LE(tl["items"].size(), limits.timeline_items);
  EXPECT_EQ(tl["items_total"], commits / 10 + commits / 50'000);
  size_t crashes = 0;
  for (const auto& item : tl["items"]) crashes += item[2] == "crash";
  EXPECT_EQ(crashes, commits / 50'000);
  uint64_t counted = 0;
  for (const auto& [lane, counts] : tl["commits"].items()) {
    EXPECT_EQ(counts.size(), limits.commit_buckets);
    for (const auto& n : counts) counted += n.get<uint64_t>();
  }
  EXPECT_EQ(counted, commits);
  // writer-0..3, wiredtiger, faults, node (its down times); not metrics: samples are charted.
  EXPECT_EQ(tl["lanes"].size(), 7u);

  const std::string page = report_html(trace);
  EXPECT_LT(page.size(), 5u << 20) << "the page must stay under about 5 MB";
}

TEST(ReportData, AViolationIsShownWithTheEventsAroundIt) {
  const world::Scenario s = world::load_scenario(kSource + "/scenarios/negative_lying_sync.json");
  const nlohmann::json trace = world::run_scenario(s, 1).trace->to_json();
  ASSERT_FALSE(trace["verdict"]["ok"].get<bool>());
  const nlohmann::json d = report_data(trace);
  ASSERT_EQ(d["contexts"].size(), trace["verdict"]["violations"].size());
  const nlohmann::json& c = d["contexts"][0];
  ASSERT_TRUE(c["found"].get<bool>());
  const size_t at = c["at"].get<size_t>();
  EXPECT_EQ(at, 15u);
  EXPECT_EQ(c["events"].size(), 31u);
  EXPECT_EQ(c["events"][at]["kind"], "violation");
  EXPECT_EQ(c["events"][at]["i"], trace["verdict"]["violations"][0]["event"]);
  EXPECT_NE(c["events"][at]["details"].get<std::string>().find("recovered_state_is_prefix"), std::string::npos);
  EXPECT_EQ(d["verdict"]["ok"], false);
}

}  // namespace
}  // namespace wtsim::traces
