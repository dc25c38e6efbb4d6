// world/commit_event.h: a commit's event hashed from its fields is the hash of its JSON, for every
// mix of fields a commit can have (the trace hash of every run that keeps no events rests on it),
// and a trace that keeps its events hashes them as one that keeps none.
#include "world/commit_event.h"

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <memory>
#include <string>

#include "traces/canonical_hash.h"

namespace wtsim::world {
namespace {

// Keys and field names: plain ASCII, text JSON escapes, and names that sort among the history's
// own fields ("durable" ... "writes_n").
rc::Gen<std::string> text() {
  return rc::gen::oneOf(rc::gen::container<std::string>(rc::gen::inRange<char>(0x20, 0x7f)),
                        rc::gen::container<std::string>(rc::gen::element<char>('a', 'w', '"', '\\', '\n', '\xff', '|')),
                        rc::gen::element<std::string>("a", "durable_", "f", "ns", "op", "s", "took", "writes_", "z"));
}

std::optional<uint64_t> digest() {
  if (*rc::gen::inRange(0, 4) == 0) return std::nullopt;
  return *rc::gen::arbitrary<uint64_t>();
}

CommitEvent random_event() {
  CommitEvent e;
  const int details = *rc::gen::inRange(0, 4);
  for (int i = 0; i < details; ++i) {
    const std::string key = *text();
    if (key == "durable" || key == "fate" || key == "member" || key == "packed" || key == "seq" || key == "took_us" ||
        key == "why" || key == "writes" || key == "writes_n") {
      continue;  // the history's own fields: a workload never names them
    }
    e.details[key] = *rc::gen::oneOf(rc::gen::map(text(), [](std::string s) { return nlohmann::json(s); }),
                                     rc::gen::map(rc::gen::arbitrary<int64_t>(), [](int64_t n) { return nlohmann::json(n); }));
  }
  if (*rc::gen::arbitrary<bool>()) {
    e.packed = {{"prefix", *text()}, {"id_range", {1, 9}}, {"new", nullptr}, {"old", "--"}};
    e.writes_n = *rc::gen::inRange<uint64_t>(5, 100);
  } else {
    const int writes = *rc::gen::inRange(1, 5);
    for (int i = 0; i < writes; ++i) e.writes.push_back({*text(), digest(), digest()});
  }
  e.seq = *rc::gen::arbitrary<uint64_t>();
  e.durable = *rc::gen::arbitrary<bool>();
  e.member = *rc::gen::element<uint64_t>(0, 1, 2);
  e.fate = *rc::gen::element<const char*>(nullptr, "ok", "info");
  e.why = e.fate != nullptr && *rc::gen::arbitrary<bool>() ? "crash" : nullptr;
  e.took_us = *rc::gen::element<int64_t>(0, 1, 123456);
  return e;
}

RC_GTEST_PROP(CommitEvent, HashedFromItsFieldsIsTheHashOfItsJson, ()) {
  const CommitEvent e = random_event();
  const uint64_t basis = *rc::gen::arbitrary<uint64_t>();
  RC_ASSERT(e.hash_canonical(basis) == traces::hash_canonical(e.to_json(), basis));
}

TEST(CommitEvent, ItsJsonIsTheHistorysCommitEvent) {
  CommitEvent e;
  e.details = {{"value_id", 7}};
  e.writes.push_back({"k1", 0x0123456789abcdefULL, std::nullopt});
  e.seq = 4;
  e.durable = true;
  e.fate = "ok";
  e.took_us = 3;
  EXPECT_EQ(e.to_json().dump(),
            R"({"durable":true,"fate":"ok","seq":4,"took_us":3,"value_id":7,"writes":[["k1","0123456789abcdef",null]]})");
}

// A held commit is one event whether the trace keeps it (built as JSON) or only hashes it.
TEST(CommitEvent, ATraceHashesAHeldCommitAlikeKeptOrNot) {
  const auto run = [](size_t max_events) {
    traces::Trace trace({{"scenario", "t"}}, max_events);
    for (uint64_t seq = 1; seq <= 3; ++seq) {
      auto e = std::make_unique<CommitEvent>();
      e->writes.push_back({"k" + std::to_string(seq), seq, std::nullopt});
      e->seq = seq;
      trace.hold(seq * 1000, "client", "commit", std::move(e));
      if (seq != 2) static_cast<CommitEvent*>(trace.held_details())->fate = "ok";  // completed while held
      trace.event(seq * 1000 + 1, "client", "note", {{"seq", seq}});
    }
    trace.set_verdict({{"ok", true}});
    return std::make_pair(trace.hash(), trace.events().size());
  };
  const auto kept = run(100), hashed = run(0);
  EXPECT_EQ(kept.second, 6u);
  EXPECT_EQ(hashed.second, 0u);
  EXPECT_EQ(kept.first, hashed.first);
}

}  // namespace
}  // namespace wtsim::world
