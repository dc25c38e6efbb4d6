// The TTL monitor's pass on real WiredTiger: which documents expire, what it counts, and that a
// secondary deletes nothing.
#include <gtest/gtest.h>

#include "properties/ttl_index_scan.h"
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
    // Record, _id entry, and one TTL index entry per key: the array document had two keys.
    EXPECT_EQ(removes_after - removes_before, (1 + 1 + 1) + (1 + 1 + 2));
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

// MongoDB's monitor reads expireAfterSeconds as a whole number, cut toward zero: 1.9 s expires
// what 1 s does, and -0.5 s what 0 s does (the bound is now).
TEST(Ttl, AFractionalExpireAfterSecondsIsCutTowardZero) {
  for (const auto& [expire, whole_s] : std::vector<std::pair<double, int64_t>>{{1.9, 1}, {-0.5, 0}}) {
    SCOPED_TRACE(expire);
    EngineHarness h;
    h.run([&, expire = expire, whole_s = whole_s](OperationContext& op) {
      DocumentEngine& e = h.engine();
      ASSERT_TRUE(e.create_index(op, kNs, ttl_index("at", expire)).ok());
      const int64_t t0 = e.now_ms();
      ASSERT_TRUE(e.insert_many(op, kNs, {{{"_id", "a"}, {"at", make_date(t0)}}}, {}).ok());
      h.sim().sleep_for(whole_s * sim::kNsPerSec);  // the bound is t0: not strictly below
      EXPECT_EQ(e.ttl_pass(op, true).deleted, 0u);
      h.sim().sleep_for(sim::kNsPerMs);  // with the fraction kept, 1.9 s would wait 899 ms more
      EXPECT_EQ(e.ttl_pass(op, true).deleted, 1u);
    });
  }
}

// A capped collection's TTL index is passed over (MongoDB 3.x's delete refuses a capped
// collection; the monitor logs it and goes on): its documents stay, another collection's go. A
// user's remove on it is IllegalOperation and removes nothing either.
TEST(Ttl, ACappedCollectionKeepsItsExpiredDocumentsAndRefusesRemoves) {
  EngineHarness h;
  h.run([&](OperationContext& op) {
    DocumentEngine& e = h.engine();
    CollectionOptions capped;
    capped.capped_max_docs = 100;
    ASSERT_TRUE(e.create_collection(op, "test.capped", capped).ok());
    ASSERT_TRUE(e.create_index(op, "test.capped", ttl_index("at", 0)).ok());
    ASSERT_TRUE(e.create_index(op, kNs, ttl_index("at", 0)).ok());
    const Document old = make_date(e.now_ms() - 1000);
    ASSERT_TRUE(e.insert_many(op, "test.capped", {{{"_id", 1}, {"at", old}}}, {}).ok());
    ASSERT_TRUE(e.insert_many(op, kNs, {{{"_id", "x"}, {"at", old}}}, {}).ok());
    const TtlPassResult r = e.ttl_pass(op, true);
    EXPECT_EQ(r.indexes, 2u);
    EXPECT_EQ(r.deleted, 1u);
    EXPECT_EQ(e.find(op, "test.capped", FindRequest{}).docs.size(), 1u);
    EXPECT_TRUE(ids(e, op).empty());
    const WriteResult removed = e.remove(op, "test.capped", Document::object(), false, {});
    ASSERT_EQ(removed.errors.size(), 1u);
    EXPECT_EQ(removed.errors.front().code, ErrorCode::kIllegalOperation);
    EXPECT_EQ(removed.errors.front().message, "cannot remove from a capped collection: test.capped");
    EXPECT_EQ(removed.n, 0u);
    EXPECT_EQ(e.find(op, "test.capped", FindRequest{}).docs.size(), 1u);
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

// ttl_bounded_age's reference counts the index's raw entries holding a Date below a bound: one
// per Date (an array's each), ascending or descending, only the documents a partial index holds,
// and after a pass none is left.
TEST(Ttl, TheBoundedAgeReferenceCountsRawEntriesBelowTheBound) {
  EngineHarness h;
  h.run([&](OperationContext& op) {
    DocumentEngine& e = h.engine();
    h.sim().sleep_for(3600 * sim::kNsPerSec);
    ASSERT_TRUE(e.create_index(op, kNs, ttl_index("at", 300)).ok());
    ASSERT_TRUE(e.create_index(op, kNs, IndexSpec{"at_-1", {{"at", -1}}, false, std::nullopt, ""}).ok());
    IndexSpec partial{"at_1_partial", {{"at", 1}}, false, Document(300), ""};
    partial.partial_filter = Document{{"keep", true}};
    ASSERT_TRUE(e.create_index(op, "test.partial", partial).ok());
    const int64_t now_ms = e.now_ms();  // the Dates' reference: inserts move the clock
    const int64_t old_ms = now_ms - 3'600'000;
    std::vector<Document> docs = mixed_documents(now_ms);
    docs.push_back({{"_id", "old-date-2"}, {"at", make_date(old_ms + 1)}});
    ASSERT_TRUE(e.insert_many(op, kNs, docs, {}).ok());
    ASSERT_TRUE(e.insert_many(op, "test.partial", {{{"_id", 1}, {"at", make_date(old_ms)}, {"keep", true}},
                                                   {{"_id", 2}, {"at", make_date(old_ms)}, {"keep", false}}}, {}).ok());
    const CollectionSpec& coll = *e.catalog().find(kNs);
    auto count = [&](const std::string& table, bool descending, int64_t bound_ms) {
      uint64_t n = 0;
      EXPECT_EQ(op.begin(), 0);
      EXPECT_EQ(properties::count_dates_below(op.session(), table, descending, bound_ms, &n), 0);
      op.rollback();
      return n;
    };
    const int64_t bound = now_ms - 300'000;
    for (const auto& [name, descending] : {std::pair{"at_1", false}, std::pair{"at_-1", true}}) {
      const std::string& table = coll.index(name)->table;
      EXPECT_EQ(count(table, descending, bound), 3u) << name;  // old-date, old-date-2, the array's old element
      EXPECT_EQ(count(table, descending, old_ms + 1), 2u) << name;  // strictly below: old-date-2 is not
      EXPECT_EQ(count(table, descending, now_ms + 2), 7u) << name;  // all 7 Dates: 3 alone, 4 in the two arrays
    }
    EXPECT_EQ(count(e.catalog().find("test.partial")->index("at_1_partial")->table, false, bound), 1u);
    ASSERT_TRUE(e.ttl_pass(op, /*primary=*/true).status.ok());
    EXPECT_EQ(count(coll.index("at_1")->table, false, bound), 0u);
    EXPECT_EQ(count(coll.index("at_-1")->table, true, bound), 0u);
  });
}

}  // namespace
}  // namespace wtsim::engine
