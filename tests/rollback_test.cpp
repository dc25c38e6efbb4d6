// A member's rollback via refetch (DocumentEngine::begin_rollback, restore_document,
// finish_rollback, note_applied; engine/min_valid.h) and oplog visibility (engine/oplog_holes.h):
// a member that applied entries its source lost ends holding the source's documents and oplog,
// through a crash in the middle of the rollback too; a reader never sees an entry above one
// whose transaction is still open.
#include <gtest/gtest.h>

#include <algorithm>

#include "engine/oplog.h"
#include "properties/min_valid_ledger.h"
#include "tests/oplog_test_util.h"

namespace wtsim::engine {
namespace {

const char* kNs = "test.c";

std::vector<Document> all_documents(EngineHarness& h) { return all_documents(h, kNs); }

std::vector<std::pair<uint64_t, uint64_t>> ids_of(const std::vector<OplogEntry>& entries) {
  std::vector<std::pair<uint64_t, uint64_t>> out;
  for (const OplogEntry& e : entries) out.emplace_back(e.ts, e.term);
  return out;
}

// The source: 10 documents, then updates and a delete, all in term 1.
struct Source {
  std::vector<OplogEntry> entries;
  std::vector<Document> docs;
};

Source source_history() {
  EngineHarness primary;
  primary.config().oplog_term = 1;
  primary.reopen();
  primary.run([&](OperationContext& op) {
    std::vector<Document> docs;
    for (int i = 0; i < 10; ++i) docs.push_back({{"_id", i}, {"v", 0}});
    ASSERT_TRUE(primary.engine().insert_many(op, kNs, docs, {}).ok());
    ASSERT_TRUE(primary.engine().update(op, kNs, {{"_id", 1}}, {{"$set", {{"v", 1}}}}, false, false, {}).ok());
    ASSERT_TRUE(primary.engine().remove(op, kNs, {{"_id", 2}}, true, {}).ok());
    ASSERT_TRUE(primary.engine().update(op, kNs, {{"_id", 3}}, {{"$set", {{"v", 3}}}}, false, false, {}).ok());
  });
  return {oplog_after(primary, 0), all_documents(primary)};
}

// A member that applied the source's first 10 entries, then 3 of a term-2 primary that the
// source never had: a new document, an update, a delete.
void diverge(EngineHarness& member, const Source& source) {
  member.config().oplog_term = 1;
  member.reopen();
  std::vector<OplogEntry> entries(source.entries.begin(), source.entries.begin() + 10);
  entries.push_back({11, 2, kNs, "u", {{"_id", 100}, {"v", 100}}});
  entries.push_back({12, 2, kNs, "u", {{"_id", 4}, {"v", 44}}});
  entries.push_back({13, 2, kNs, "d", {{"_id", 5}}});
  member.run([&](OperationContext& op) {
    for (const OplogEntry& e : entries) ASSERT_TRUE(member.engine().apply_oplog_entry(op, e).ok()) << e.ts;
  });
}

// The source's versions of the documents the divergent entries touched.
const std::vector<std::pair<std::string, Document>> kTouched = {{kNs, 100}, {kNs, 4}, {kNs, 5}};

std::vector<std::optional<Document>> versions(const Source& source) {
  std::vector<std::optional<Document>> out;
  for (const auto& [ns, id] : kTouched) {
    auto it = std::find_if(source.docs.begin(), source.docs.end(), [&](const Document& d) { return d["_id"] == id; });
    out.push_back(it == source.docs.end() ? std::nullopt : std::optional<Document>(*it));
  }
  return out;
}

void restore_all(EngineHarness& member, const Source& source) {
  const std::vector<std::optional<Document>> images = versions(source);
  member.run([&](OperationContext& op) {
    for (size_t i = 0; i < kTouched.size(); ++i) {
      ASSERT_TRUE(member.engine().restore_document(op, kTouched[i].first, kTouched[i].second, images[i]).ok());
    }
  });
}

void apply_from(EngineHarness& member, const Source& source, uint64_t after_ts) {
  member.run([&](OperationContext& op) {
    for (const OplogEntry& e : source.entries) {
      if (e.ts <= after_ts) continue;
      ASSERT_TRUE(member.engine().apply_oplog_entry(op, e).ok()) << e.ts;
    }
    ASSERT_TRUE(member.engine().note_applied(op).ok());
  });
}

TEST(Rollback, AMemberThatAppliedWhatItsSourceLostEndsWithTheSourcesDocumentsAndOplog) {
  const Source source = source_history();
  ASSERT_EQ(source.entries.size(), 13u);
  EngineHarness member;
  diverge(member, source);
  ASSERT_NE(all_documents(member), source.docs);
  const uint64_t top = source.entries.back().ts;
  member.run([&](OperationContext& op) { ASSERT_TRUE(member.engine().begin_rollback(op, top).ok()); });
  restore_all(member, source);
  member.run([&](OperationContext& op) { ASSERT_TRUE(member.engine().finish_rollback(op, 10).ok()); });
  EXPECT_EQ(ids_of(oplog_after(member, 0)), ids_of(std::vector<OplogEntry>(source.entries.begin(), source.entries.begin() + 10)));
  ASSERT_TRUE(member.engine().min_valid().has_value());
  EXPECT_EQ(member.engine().min_valid()->ts, top);
  EXPECT_TRUE(member.engine().min_valid()->truncated);
  EXPECT_EQ(member.engine().next_oplog_ts(), 11u);
  apply_from(member, source, 10);
  EXPECT_EQ(all_documents(member), source.docs);
  EXPECT_EQ(ids_of(oplog_after(member, 0)), ids_of(source.entries));
  EXPECT_FALSE(member.engine().min_valid().has_value()) << "cleared once the applier passed it";
}

TEST(Rollback, ACrashInTheMiddleLeavesTheDivergentEntriesAndTheRollbackIsRedoneWhole) {
  const Source source = source_history();
  EngineHarness member;
  diverge(member, source);
  member.run([&](OperationContext& op) { ASSERT_TRUE(member.engine().begin_rollback(op, 13).ok()); });
  restore_all(member, source);
  member.crash_and_recover();  // before finish_rollback
  std::optional<uint64_t> stored_ts;
  member.run([&](OperationContext& op) { ASSERT_EQ(properties::read_min_valid_ts(op.session(), &stored_ts), 0); });
  EXPECT_EQ(stored_ts, 13u) << "the raw row min_valid_kept reads";
  ASSERT_TRUE(member.engine().min_valid().has_value()) << "minValid was made durable before any document";
  EXPECT_FALSE(member.engine().min_valid()->truncated);
  EXPECT_EQ(member.engine().next_oplog_ts(), 14u) << "the divergent entries are still there";
  member.run([&](OperationContext& op) { ASSERT_TRUE(member.engine().begin_rollback(op, 13).ok()); });
  restore_all(member, source);
  member.run([&](OperationContext& op) { ASSERT_TRUE(member.engine().finish_rollback(op, 10).ok()); });
  member.crash_and_recover();  // after it: durable
  ASSERT_TRUE(member.engine().min_valid().has_value());
  EXPECT_TRUE(member.engine().min_valid()->truncated);
  EXPECT_EQ(member.engine().next_oplog_ts(), 11u);
  apply_from(member, source, 10);
  EXPECT_EQ(all_documents(member), source.docs);
  EXPECT_FALSE(member.engine().min_valid().has_value());
  member.run([&](OperationContext& op) { ASSERT_EQ(properties::read_min_valid_ts(op.session(), &stored_ts), 0); });
  EXPECT_FALSE(stored_ts) << "cleared in the table too";
}

TEST(Rollback, RestoredDocumentsHaveNoOplogEntryAndTheSourceAnswersAbsentOnes) {
  const Source source = source_history();
  EngineHarness member;
  diverge(member, source);
  member.run([&](OperationContext& op) { ASSERT_TRUE(member.engine().begin_rollback(op, 13).ok()); });
  restore_all(member, source);
  EXPECT_EQ(member.engine().next_oplog_ts(), 14u) << "unreplicated writes take no ts";
  std::vector<std::optional<Document>> found;
  member.run([&](OperationContext& op) { ASSERT_EQ(member.engine().documents_by_id(op, kTouched, &found), 0); });
  EXPECT_EQ(found, versions(source));
  EXPECT_FALSE(found[0].has_value());  // _id 100 was never the source's
}

TEST(OplogVisibility, AReaderStopsBelowAnEntryWhoseTransactionIsStillOpen) {
  EngineHarness h;
  EngineConfig config;
  Oplog oplog(config);
  CollectionSpec coll;
  coll.ns = kNs;
  const Document a = {{"_id", 1}}, b = {{"_id", 2}};
  h.run([&](OperationContext& op) {
    ASSERT_EQ(oplog.open(op), 0);
    OperationContext first(h.conn()), second(h.conn()), reader(h.conn());
    ASSERT_EQ(first.begin(), 0);
    ASSERT_EQ(oplog.append(first, coll, &a, nullptr), 0);  // takes ts 1, stays open
    ASSERT_EQ(second.begin(), 0);
    ASSERT_EQ(oplog.append(second, coll, &b, nullptr), 0);  // ts 2
    ASSERT_EQ(second.commit(), 0);
    std::vector<OplogEntry> seen;
    ASSERT_EQ(Oplog::read_after(reader, 0, 10, &seen), 0);
    EXPECT_EQ(seen.size(), 1u) << "committed out of order: ts 2 is readable, ts 1 is not yet";
    EXPECT_EQ(oplog.visible_below(), 1u) << "so a syncing member is served nothing yet";
    ASSERT_EQ(first.commit(), 0);
    EXPECT_EQ(oplog.visible_below(), 3u);
    seen.clear();
    ASSERT_EQ(Oplog::read_after(reader, 0, 10, &seen, oplog.visible_below()), 0);
    EXPECT_EQ(seen.size(), 2u);
    // A rolled-back writer's ts is a hole, and no longer holds readers back.
    ASSERT_EQ(first.begin(), 0);
    ASSERT_EQ(oplog.append(first, coll, &a, nullptr), 0);  // ts 3
    EXPECT_EQ(oplog.visible_below(), 3u);
    first.rollback();
    EXPECT_EQ(oplog.visible_below(), 4u);
  });
}

}  // namespace
}  // namespace wtsim::engine
