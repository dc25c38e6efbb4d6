// The TTL monitor's pass on real WiredTiger: which documents expire, what it counts, and that a
// secondary deletes nothing.
#include <gtest/gtest.h>

#include "tests/engine_harness.h"

namespace wtsim::engine {
namespace {

const char* kNs = "test.ttl";

IndexSpec ttl_index(const std::string& field, Document expire) {
  return IndexSpec{field + "_1", {{field, 1}}, false, expire, ""};
}

// Documents with every kind of value in "at", all old except where noted.
std::vector<Document> mixed_documents(int64_t now_ms) {
  const int64_t old_ms = now_ms - 3'600'000;
  return {
      {{"_id", "old-date"}, {"at", make_date(old_ms)}},
      {{"_id", "new-date"}, {"at", make_date(now_ms)}},
      {{"_id", "number"}, {"at", old_ms}},
      {{"_id", "string"}, {"at", "2020-01-01"}},
      {{"_id", "null"}, {"at", nullptr}},
      {{"_id", "missing"}},
      {{"_id", "array-with-old"}, {"at", {make_date(now_ms), make_date(old_ms)}}},
      {{"_id", "array-all-new"}, {"at", {make_date(now_ms), make_date(now_ms + 1)}}},
  };
}

std::set<std::string> ids(DocumentEngine& e, OperationContext& op) {
  std::set<std::string> out;
  for (const Document& d : e.find(op, kNs, FindRequest{}).docs) out.insert(d["_id"].get<std::string>());
  return out;
}

TEST(Ttl, OnlyDatesBelowTheBoundExpireAndArraysByTheirEarliestDate) {
  EngineHarness h;
  h.run([&](OperationContext& op) {
    DocumentEngine& e = h.engine();
    h.sim().sleep_for(3600 * sim::kNsPerSec);  // so that "an hour ago" is after the epoch start
    ASSERT_TRUE(e.create_index(op, kNs, ttl_index("at", 300)).ok());
    ASSERT_TRUE(e.insert_many(op, kNs, mixed_documents(e.now_ms()), {}).ok());
    const uint64_t removes_before = e.server_status(op)["wiredTiger"]["cursor"]["cursor remove calls"].get<uint64_t>();
    const TtlPassResult r = e.ttl_pass(op, /*primary=*/true);
    const uint64_t removes_after = e.server_status(op)["wiredTiger"]["cursor"]["cursor remove calls"].get<uint64_t>();
    EXPECT_EQ(r.indexes, 1u);
    EXPECT_EQ(r.deleted, 2u);
    EXPECT_EQ(ids(e, op), (std::set<std::string>{"new-date", "number", "string", "null", "missing", "array-all-new"}));
    // Record + one index entry per key: the array document had two keys.
    EXPECT_EQ(removes_after - removes_before, 1 + 1 + 1 + 2);
    EXPECT_EQ(e.metrics().ttl.passes, 1u);
    EXPECT_EQ(e.metrics().ttl.deleted_documents, 2u);
    EXPECT_EQ(e.metrics().opcounters.remove, 0u);  // TTL deletes are not user operations
    EXPECT_EQ(e.metrics().document.deleted, 0u);
    EXPECT_TRUE(e.validate(op, kNs).valid);
  });
}

TEST(Ttl, TheBoundIsStrictAndMovesWithTheClock) {
  EngineHarness h;
  h.run([&](OperationContext& op) {
    DocumentEngine& e = h.engine();
    ASSERT_TRUE(e.create_index(op, kNs, ttl_index("at", 10)).ok());
    const int64_t t0 = e.now_ms();
    ASSERT_TRUE(e.insert_many(op, kNs, {{{"_id", "a"}, {"at", make_date(t0)}}}, {}).ok());
    h.sim().sleep_for(10 * sim::kNsPerSec);  // now - expire == t0: not strictly below
    EXPECT_EQ(e.ttl_pass(op, true).deleted, 0u);
    h.sim().sleep_for(sim::kNsPerMs);
    EXPECT_EQ(e.ttl_pass(op, true).deleted, 1u);
  });
}

TEST(Ttl, CompoundNonNumericAndDroppedIndexesAreSkipped) {
  EngineHarness h;
  h.run([&](OperationContext& op) {
    DocumentEngine& e = h.engine();
    h.sim().sleep_for(3600 * sim::kNsPerSec);
    IndexSpec compound{"at_1_x_1", {{"at", 1}, {"x", 1}}, false, Document(1), ""};
    ASSERT_TRUE(e.create_index(op, kNs, compound).ok());
    ASSERT_TRUE(e.create_index(op, kNs, ttl_index("b", "300")).ok());  // a string: not numeric
    ASSERT_TRUE(e.create_index(op, kNs, ttl_index("c", 1)).ok());
    const Document old = make_date(e.now_ms() - 60'000);
    ASSERT_TRUE(e.insert_many(op, kNs, {{{"_id", "1"}, {"at", old}, {"b", old}}, {{"_id", "2"}, {"c", old}}}, {}).ok());
    ASSERT_TRUE(e.drop_index(op, kNs, "c_1").ok());
    const TtlPassResult r = e.ttl_pass(op, true);
    EXPECT_EQ(r.indexes, 0u);
    EXPECT_EQ(r.deleted, 0u);
    ASSERT_TRUE(e.set_expire_after(op, kNs, "b_1", Document(30)).ok());  // collMod makes it numeric
    EXPECT_EQ(e.ttl_pass(op, true).deleted, 1u);
  });
}

TEST(Ttl, ASecondaryCountsPassesAndDeletesNothing) {
  EngineHarness h;
  h.run([&](OperationContext& op) {
    DocumentEngine& e = h.engine();
    h.sim().sleep_for(3600 * sim::kNsPerSec);
    ASSERT_TRUE(e.create_index(op, kNs, ttl_index("at", 1)).ok());
    ASSERT_TRUE(e.insert_many(op, kNs, {{{"_id", "a"}, {"at", make_date(0)}}}, {}).ok());
    const TtlPassResult r = e.ttl_pass(op, /*primary=*/false);
    EXPECT_EQ(r.indexes, 1u);
    EXPECT_EQ(r.deleted, 0u);
    EXPECT_EQ(e.metrics().ttl.passes, 1u);
    EXPECT_EQ(ids(e, op).size(), 1u);
  });
}

}  // namespace
}  // namespace wtsim::engine
