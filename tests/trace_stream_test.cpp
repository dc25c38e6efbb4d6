// Streaming traces (JSON Lines): the same run gives the same events and hash in both forms, the
// reader names the line of a problem, replay compares a JSONL trace on the fly.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "runs/replay.h"
#include "world/world.h"
#include "traces/trace_reader.h"
#include "traces/trace_stream.h"

namespace wtsim::world {

using namespace runs;  // replay and shrink drive whole runs of this world
namespace {

const std::string kSource = WTSIM_SOURCE_DIR;

std::string temp(const std::string& name) { return ::testing::TempDir() + "/wtsim_stream_" + name; }

// One run streamed to `path` (as `wtsim run --trace X.jsonl` does); returns its hash.
std::string streamed_run(const Scenario& s, uint64_t seed, const std::string& path) {
  traces::JsonlTraceWriter w(path);
  RunResult r = run_scenario(s, seed, nullptr, nullptr, &w);
  EXPECT_TRUE(r.trace->events().empty());  // nothing kept in memory
  w.finish(r.trace->verdict(), r.trace->hash());
  return r.trace->hash();
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buf;
  buf << in.rdbuf();
  return buf.str();
}

std::string error_of(const std::string& path) {
  try {
    traces::read_trace(path);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST(TraceStream, JsonAndJsonLinesGiveTheSameEventsAndHash) {
  const Scenario s = load_scenario(kSource + "/scenarios/documents.json");  // WiredTiger's statistics and file sizes
  RunResult in_memory = run_scenario(s, 2);
  const std::string jsonl = temp("same.jsonl");
  const std::string hash = streamed_run(s, 2, jsonl);
  EXPECT_EQ(hash, in_memory.trace->hash());
  ASSERT_TRUE(traces::is_jsonl_trace(jsonl));
  const traces::LoadedTrace loaded = traces::read_trace(jsonl);
  const nlohmann::json doc = in_memory.trace->to_json();
  EXPECT_EQ(loaded.doc["trace_hash"], hash);
  EXPECT_EQ(loaded.doc["events"], doc["events"]);
  EXPECT_EQ(loaded.doc["header"], doc["header"]);
  EXPECT_EQ(loaded.doc["verdict"], doc["verdict"]);
  // An in-memory trace written as JSON Lines is the same file as the streamed one.
  const std::string written = temp("written.jsonl");
  traces::write_jsonl(*in_memory.trace, written);
  EXPECT_EQ(read_text(written), read_text(jsonl));
  std::remove(jsonl.c_str());
  std::remove(written.c_str());
}

TEST(TraceStream, InvalidUtf8InADetailIsWrittenAndHashedAlikeInBothForms) {
  // Bytes from a corrupted file can reach an event's details; neither form may throw on them.
  const nlohmann::json header = {{"seed", 1}, {"scenario", {{"name", "x"}}}, {"fault_plan", nlohmann::json::array()}};
  const std::string jsonl = temp("utf8.jsonl"), json = temp("utf8.json");
  traces::JsonlTraceWriter w(jsonl);
  traces::Trace streamed(header);
  streamed.stream_to(&w);
  traces::Trace in_memory(header);
  for (traces::Trace* t : {&streamed, &in_memory}) {
    t->event(1000, "checker", "violation", {{"found", std::string("k\xff\xfe")}});
    t->set_verdict({{"ok", false}});
  }
  w.finish(streamed.verdict(), streamed.hash());
  in_memory.write(json);
  EXPECT_EQ(streamed.hash(), in_memory.hash());
  EXPECT_EQ(traces::read_trace(jsonl).doc["trace_hash"], in_memory.hash());
  const traces::LoadedTrace back = traces::read_trace(json);
  EXPECT_EQ(back.doc["events"][0]["details"]["found"], "k\ufffd\ufffd");
  std::remove(jsonl.c_str());
  std::remove(json.c_str());
}

// A run that keeps no trace hashes each event from its parts without building it; the hash must
// be the one nlohmann's serialisation of the built event gives (the in-memory trace's).
RC_GTEST_PROP(TraceStream, HashingEventsFromTheirPartsEqualsHashingTheBuiltEvents, ()) {
  const nlohmann::json header = {{"seed", *rc::gen::arbitrary<uint32_t>()}};
  traces::HashOnlySink sink;
  traces::Trace parts(header), built(header);
  parts.stream_to(&sink);
  const auto text = rc::gen::oneOf(rc::gen::element<std::string>("writer-1.g0", "commit", ""),
                                   rc::gen::arbitrary<std::string>());  // quotes, control bytes, bad UTF-8
  const int n = *rc::gen::inRange(0, 20);
  for (int i = 0; i < n; ++i) {
    const int64_t at_ns = *rc::gen::inRange<int64_t>(0, int64_t{1} << 50);
    const std::string actor = *text, kind = *text;
    nlohmann::json details = nlohmann::json::object();
    const int shape = *rc::gen::inRange(0, 4);
    if (shape == 1) details = {{*text, *rc::gen::arbitrary<int64_t>()}, {"seq", *rc::gen::arbitrary<uint64_t>()}};
    if (shape == 2) details = {{"writes", {{*text, nullptr, 1.5}}}, {"ok", *rc::gen::arbitrary<bool>()}};
    if (shape == 3) details = nullptr;
    for (traces::Trace* t : {&parts, &built}) t->event(at_ns, actor, kind, details);
  }
  parts.set_verdict({{"ok", true}});
  built.set_verdict({{"ok", true}});
  RC_ASSERT(parts.events().empty());  // hashed from parts: nothing built, nothing kept
  RC_ASSERT(parts.hash() == built.hash());
}

TEST(TraceStream, TruncatedOrEditedJsonLinesAreRejectedNamingTheLine) {
  const Scenario s = load_scenario(kSource + "/scenarios/smoke.json");
  const std::string path = temp("cut.jsonl");
  streamed_run(s, 4, path);
  const std::string text = read_text(path);
  const size_t lines = static_cast<size_t>(std::count(text.begin(), text.end(), '\n'));
  // Cut in the middle of line 11: the incomplete last line is named.
  size_t at = 0;
  for (int i = 0; i < 10; ++i) at = text.find('\n', at) + 1;
  std::ofstream(path, std::ios::trunc) << text.substr(0, at + 20);
  EXPECT_EQ(error_of(path), path + ": line 11: an incomplete record at the end of the file: truncated (missing final record)");
  // Whole lines, without the end record.
  std::ofstream(path, std::ios::trunc) << text.substr(0, text.rfind('\n', text.size() - 2) + 1);
  EXPECT_EQ(error_of(path), path + ": line " + std::to_string(lines) + ": the file ends here: truncated (missing final record)");
  // An edited event: the hash, checked at the end record, no longer matches.
  std::string edited = text;
  edited.replace(edited.find("\"kind\":\"commit\""), 15, "\"kind\":\"COMMIT\"");
  std::ofstream(path, std::ios::trunc) << edited;
  EXPECT_NE(error_of(path).find(": line " + std::to_string(lines) + ": /trace_hash: recorded "), std::string::npos);
  std::remove(path.c_str());
}

TEST(TraceStream, ReplayComparesAJsonLinesTraceOnTheFly) {
  const Scenario s = load_scenario(kSource + "/scenarios/negative_lying_sync.json");
  const std::string path = temp("replay.jsonl");
  const std::string hash = streamed_run(s, 3, path);
  ReplayResult same = replay_file(path);
  EXPECT_FALSE(same.divergence.has_value());
  EXPECT_FALSE(same.run.ok);  // the negative control fails, identically
  EXPECT_EQ(same.run.trace->hash(), hash);
  EXPECT_TRUE(same.run.trace->events().empty());  // the re-run streamed too

  // A recorded trace with one event more than the run gives: the divergence is past the end.
  const Scenario shorter = [&] {
    nlohmann::json j = s.source;
    j["duration_ms"] = 4000;
    return scenario_from_json(j, "shorter");
  }();
  RunResult r = run_scenario(shorter, 3);
  nlohmann::json extra = {{"i", r.trace->event_count()}, {"t_us", 9999999}, {"actor", "x"}, {"kind", "extra"}};
  traces::Trace padded(r.trace->header());
  for (const auto& e : r.trace->events()) {
    padded.event(e["t_us"].get<int64_t>() * 1000, e["actor"], e["kind"], e.value("details", nlohmann::json::object()));
  }
  padded.event(extra["t_us"].get<int64_t>() * 1000, "x", "extra");
  padded.set_verdict(r.trace->verdict());
  traces::write_jsonl(padded, path);
  ReplayResult longer = replay_file(path);
  ASSERT_TRUE(longer.divergence.has_value());
  EXPECT_EQ(longer.divergence->event_index, r.trace->event_count());
  EXPECT_TRUE(longer.divergence->got.is_null());
  std::remove(path.c_str());
}

}  // namespace
}  // namespace wtsim::world

namespace wtsim::traces {
namespace {

// The hash covers every event whatever the form: a trace that keeps 5 events and drops 3 hashes
// as a streamed one and a hash-only one of the same 8 (explore compares these across forms), and
// its file still reads back (the hash of the dropped events is taken on trust).
TEST(TraceHash, DoesNotDependOnHowManyEventsAreKept) {
  const nlohmann::json header = {{"seed", 1}, {"scenario", {{"name", "x"}}}, {"fault_plan", nlohmann::json::array()}};
  Trace kept_some(header, 5), kept_all(header);
  HashOnlySink sink;
  Trace hashed(header);
  hashed.stream_to(&sink);
  for (Trace* t : {&kept_some, &kept_all, &hashed}) {
    for (int i = 0; i < 8; ++i) t->event(i * 1000, "client-" + std::to_string(i % 2), "commit", {{"n", i}});
    t->set_verdict({{"ok", true}});
  }
  EXPECT_EQ(kept_some.events().size(), 5u);
  EXPECT_EQ(kept_some.dropped_events(), 3u);
  EXPECT_EQ(kept_some.hash(), kept_all.hash());
  EXPECT_EQ(kept_some.hash(), hashed.hash());
  Trace other(header);
  for (int i = 0; i < 8; ++i) other.event(i * 1000, "client-" + std::to_string(i % 2), "commit", {{"n", i == 7 ? 70 : i}});
  other.set_verdict({{"ok", true}});
  EXPECT_NE(other.hash(), kept_all.hash());  // a dropped event's content is in the hash
  EXPECT_NO_THROW(validate_trace(kept_some.to_json()));
}

}  // namespace
}  // namespace wtsim::traces
