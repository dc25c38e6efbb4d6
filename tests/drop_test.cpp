// drop: the collection, its indexes and documents go in one durable commit, the oplog holds a
// delete of each document (so that a secondary applying it ends with what the primary has), and
// a collection made again under the name starts empty.
#include <gtest/gtest.h>

#include "tests/oplog_test_util.h"

namespace wtsim::engine {
namespace {

const char* kNs = "test.dropped";

TEST(Drop, TheCollectionGoesAtOnceAndDurably) {
  EngineHarness h;
  h.run([&](OperationContext& op) {
    DocumentEngine& e = h.engine();
    EXPECT_EQ(e.drop_collection(op, kNs).code, ErrorCode::kNamespaceNotFound);
    ASSERT_TRUE(e.create_index(op, kNs, {"a_1", {{"a", 1}}, false, std::nullopt, ""}).ok());
    ASSERT_TRUE(e.insert_many(op, kNs, {{{"_id", 1}, {"a", 1}}, {{"_id", 2}, {"a", 2}}}, {}).ok());
    EXPECT_TRUE(e.drop_collection(op, kNs).ok());
    EXPECT_EQ(e.catalog().find(kNs), nullptr);
    EXPECT_TRUE(e.find(op, kNs, {}).docs.empty());
    EXPECT_EQ(e.drop_collection(op, kNs).code, ErrorCode::kNamespaceNotFound);
  });
  h.crash_and_recover();  // the drop was flushed: it survives a power loss
  h.run([&](OperationContext& op) {
    DocumentEngine& e = h.engine();
    EXPECT_EQ(e.catalog().find(kNs), nullptr);
    ASSERT_TRUE(e.insert_many(op, kNs, {{{"_id", 1}}}, {}).ok());  // made again: empty, no secondary index
    EXPECT_EQ(e.find(op, kNs, {}).docs, (std::vector<Document>{{{"_id", 1}}}));
    ASSERT_EQ(e.catalog().find(kNs)->indexes.size(), 1u);  // _id's only
    EXPECT_TRUE(e.catalog().find(kNs)->indexes.front().is_id());
    EXPECT_TRUE(e.validate(op, kNs).valid);
  });
}

TEST(Drop, TheOplogDeletesEachDocument) {
  EngineHarness h;
  h.run([&](OperationContext& op) {
    ASSERT_TRUE(h.engine().insert_many(op, kNs, {{{"_id", 1}}, {{"_id", "b"}}, {{"_id", 3}}}, {}).ok());
  });
  const uint64_t before = h.engine().next_oplog_ts() - 1;
  h.run([&](OperationContext& op) { ASSERT_TRUE(h.engine().drop_collection(op, kNs).ok()); });
  const std::vector<OplogEntry> entries = oplog_after(h, before);
  ASSERT_EQ(entries.size(), 3u);
  std::vector<Document> deleted;
  for (const OplogEntry& entry : entries) {
    EXPECT_EQ(entry.op, "d");
    EXPECT_EQ(entry.ns, kNs);
    deleted.push_back(entry.o.at("_id"));
  }
  EXPECT_EQ(deleted, (std::vector<Document>{1, "b", 3}));  // the record store's order: as inserted
}

}  // namespace
}  // namespace wtsim::engine
