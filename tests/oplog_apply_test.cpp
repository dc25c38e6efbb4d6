// Oplog application (DocumentEngine::apply_oplog_entry, read_oplog_after): a replica that
// applies a source's oplog holds the source's documents, its own oplog carries the source's ts
// (so it knows how far it has applied, after a crash too), and an apply that changes nothing
// still records the entry.
#include <gtest/gtest.h>

#include <algorithm>

#include "tests/oplog_test_util.h"

namespace wtsim::engine {
namespace {

const char* kNs = "test.c";

std::vector<Document> all_documents(EngineHarness& h) { return all_documents(h, kNs); }

std::vector<uint64_t> ts_of(const std::vector<OplogEntry>& entries) {
  std::vector<uint64_t> out;
  for (const OplogEntry& e : entries) out.push_back(e.ts);
  return out;
}

// A primary's history: inserts, $inc updates, a replacement, deletes.
void write_history(EngineHarness& primary) {
  primary.run([&](OperationContext& op) {
    DocumentEngine& e = primary.engine();
    std::vector<Document> docs;
    for (int i = 0; i < 20; ++i) docs.push_back({{"_id", i}, {"g", i % 3}, {"n", 0}});
    ASSERT_TRUE(e.insert_many(op, kNs, docs, {}).ok());
    ASSERT_TRUE(e.update(op, kNs, {{"g", 1}}, {{"$inc", {{"n", 5}}}}, false, true, {}).ok());
    ASSERT_TRUE(e.update(op, kNs, {{"_id", 4}}, {{"_id", 4}, {"replaced", true}}, false, false, {}).ok());
    ASSERT_TRUE(e.remove(op, kNs, {{"g", 2}}, false, {}).ok());
  });
}

// What a primary wrote, kept after its harness is gone (one simulator per thread at a time).
struct Source {
  std::vector<OplogEntry> entries;
  std::vector<Document> docs;
  uint64_t next_ts = 0;
};

Source primary_history() {
  EngineHarness primary;
  write_history(primary);
  return {oplog_after(primary, 0), all_documents(primary), primary.engine().next_oplog_ts()};
}

void apply_all(EngineHarness& replica, const std::vector<OplogEntry>& entries) {
  replica.run([&](OperationContext& op) {
    for (const OplogEntry& entry : entries) ASSERT_TRUE(replica.engine().apply_oplog_entry(op, entry).ok()) << entry.ts;
  });
}

TEST(OplogApply, AReplicaHoldsTheSourcesDocumentsAndItsOplogTheSourcesTs) {
  const Source source = primary_history();
  const std::vector<OplogEntry>& entries = source.entries;
  ASSERT_EQ(entries.size(), 20u + 7u + 1u + 6u);  // inserts, g=1 updates, the replacement, g=2 deletes
  EXPECT_EQ(entries.front().op, "u");
  EXPECT_EQ(entries.back().op, "d");
  EngineHarness replica;
  apply_all(replica, entries);
  const std::vector<Document> docs = all_documents(replica);
  EXPECT_EQ(docs, source.docs);
  EXPECT_EQ(docs.size(), 14u);
  EXPECT_EQ(ts_of(oplog_after(replica, 0)), ts_of(entries));
  EXPECT_EQ(replica.engine().next_oplog_ts(), source.next_ts);
  // Reading after a ts gives exactly the entries above it.
  const std::vector<uint64_t> all_ts = ts_of(entries);
  EXPECT_EQ(ts_of(oplog_after(replica, entries[9].ts)), std::vector<uint64_t>(all_ts.begin() + 10, all_ts.end()));
}

TEST(OplogApply, AnApplyThatChangesNothingStillRecordsTheEntry) {
  const Source source = primary_history();
  const std::vector<OplogEntry>& entries = source.entries;
  EngineHarness replica;
  apply_all(replica, entries);
  const uint64_t next = replica.engine().next_oplog_ts();
  // The same image again, and a delete of a document that is gone, at later ts: no change.
  OplogEntry again = entries.front();
  again.ts = next;
  OplogEntry gone = entries.back();
  gone.ts = next + 1;
  apply_all(replica, {again, gone});
  EXPECT_EQ(all_documents(replica), source.docs);
  const std::vector<OplogEntry> marks = oplog_after(replica, next - 1);
  ASSERT_EQ(marks.size(), 2u);
  EXPECT_EQ(marks[0].op, "u");  // copied as they are
  EXPECT_EQ(marks[0].o, again.o);
  EXPECT_EQ(marks[1].op, "d");
  EXPECT_EQ(marks[1].o, gone.o);
  EXPECT_EQ(replica.engine().next_oplog_ts(), next + 2);
}

TEST(OplogApply, AfterACrashTheReplicasOwnOplogSaysWhereToResume) {
  const Source source = primary_history();
  const std::vector<OplogEntry>& entries = source.entries;
  EngineHarness replica;
  const size_t half = entries.size() / 2;
  apply_all(replica, std::vector<OplogEntry>(entries.begin(), entries.begin() + static_cast<long>(half)));
  replica.crash_and_recover();  // unsynced applies are lost: the oplog loses them too
  const uint64_t resume_after = replica.engine().next_oplog_ts() - 1;
  ASSERT_LE(resume_after, entries[half - 1].ts);
  std::vector<OplogEntry> rest;
  for (const OplogEntry& e : entries) {
    if (e.ts > resume_after) rest.push_back(e);
  }
  apply_all(replica, rest);
  EXPECT_EQ(all_documents(replica), source.docs);
  EXPECT_EQ(ts_of(oplog_after(replica, 0)), ts_of(entries));
}

}  // namespace
}  // namespace wtsim::engine
