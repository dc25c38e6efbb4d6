// Partial indexes (MongoDB 3.2's partialFilterExpression): the filters an index takes, the
// documents it holds, the queries it answers, and the TTL monitor deleting only what it holds.
#include <gtest/gtest.h>

#include "engine/partial_filter.h"
#include "tests/engine_harness.h"

namespace wtsim::engine {
namespace {

const char* kNs = "test.partial";

IndexSpec partial_on(const std::string& field, Document filter, bool unique = false) {
  IndexSpec spec{field + "_1", {{field, 1}}, unique, std::nullopt, ""};
  spec.partial_filter = std::move(filter);
  return spec;
}

// The plan's access stage: IXSCAN under a FETCH, or COLLSCAN.
std::string stage_of(const FindResult& r) {
  const Document& plan = r.explain.at("queryPlanner").at("winningPlan");
  return plan.contains("inputStage") ? plan["inputStage"].value("stage", "") : plan.value("stage", "");
}

TEST(PartialIndex, TakesMongoDBsExpressionsAndRefusesTheRest) {
  EXPECT_EQ(partial_filter_error({{"z", {{"$exists", true}}}, {"a", 5}, {"b", {{"$gt", 1}, {"$lte", 9}}}}), "");
  EXPECT_EQ(partial_filter_error({{"z", {{"$exists", false}}}}), "unsupported expression in partial index: z {\"$exists\":false}");
  EXPECT_EQ(partial_filter_error({{"z", {{"$in", {1, 2}}}}}), "unsupported expression in partial index: z {\"$in\":[1,2]}");
  EXPECT_EQ(partial_filter_error({{"$or", Document::array()}}), "unsupported expression in partial index: $or");
  EXPECT_EQ(partial_filter_error(5), "\"partialFilterExpression\" for an index must be a document");
  EngineHarness h;
  h.run([&](OperationContext& op) {
    EXPECT_EQ(h.engine().create_index(op, kNs, partial_on("x", {{"z", {{"$ne", 1}}}})).code, ErrorCode::kCannotCreateIndex);
    EXPECT_EQ(h.engine().catalog().find(kNs)->index("x_1"), nullptr);
  });
}

TEST(PartialIndex, HoldsOnlyMatchingDocumentsAndAnswersOnlyQueriesThatImplyItsFilter) {
  EngineHarness h;
  h.run([&](OperationContext& op) {
    DocumentEngine& e = h.engine();
    ASSERT_TRUE(e.create_index(op, kNs, partial_on("x", {{"z", {{"$exists", true}}}}, /*unique=*/true)).ok());
    // Unique among the documents it holds: two without z may share x.
    ASSERT_TRUE(e.insert_many(op, kNs, {{{"_id", 1}, {"x", 1}}, {{"_id", 2}, {"x", 1}}, {{"_id", 3}, {"x", 1}, {"z", 0}}}, {}).ok());
    EXPECT_EQ(e.insert_many(op, kNs, {{{"_id", 4}, {"x", 1}, {"z", 1}}}, {}).errors.at(0).code, ErrorCode::kDuplicateKey);
    FindRequest plain;
    plain.filter = {{"x", 1}};
    FindResult r = e.find(op, kNs, plain);
    EXPECT_EQ(r.docs.size(), 3u);  // not from the index, which holds one of them
    EXPECT_EQ(stage_of(r), "COLLSCAN");
    FindRequest implied;
    implied.filter = {{"x", 1}, {"z", {{"$exists", true}}}};
    r = e.find(op, kNs, implied);
    EXPECT_EQ(r.docs, (std::vector<Document>{{{"_id", 3}, {"x", 1}, {"z", 0}}}));
    EXPECT_EQ(stage_of(r), "IXSCAN");
    plain.hint = "x_1";
    EXPECT_EQ(e.find(op, kNs, plain).status.code, ErrorCode::kBadValue);
    // An update moving a document into and out of the filter adds and removes its entry.
    // While _id 3 holds x 1 in it, _id 1 cannot join it with the same x (unique).
    EXPECT_EQ(e.update(op, kNs, {{"_id", 1}}, {{"$set", {{"z", 5}}}}, false, false, {}).errors.at(0).code, ErrorCode::kDuplicateKey);
    ASSERT_TRUE(e.update(op, kNs, {{"_id", 3}}, {{"$unset", {{"z", ""}}}}, false, false, {}).ok());
    ASSERT_TRUE(e.update(op, kNs, {{"_id", 1}}, {{"$set", {{"z", 5}}}}, false, false, {}).ok());
    r = e.find(op, kNs, implied);
    ASSERT_EQ(r.docs.size(), 1u);
    EXPECT_EQ(r.docs[0]["_id"], 1);
    const ValidateResult v = e.validate(op, kNs);
    EXPECT_TRUE(v.valid);
    EXPECT_EQ(v.index_entries, 3u + 1u);  // _id's three, x_1's one
  });
}

TEST(PartialIndex, TheTtlMonitorDeletesOnlyTheDocumentsItHolds) {
  EngineHarness h;
  h.run([&](OperationContext& op) {
    DocumentEngine& e = h.engine();
    h.sim().sleep_for(3600 * sim::kNsPerSec);
    IndexSpec ttl = partial_on("x", {{"z", {{"$exists", true}}}});
    ttl.expire_after_seconds = 0;
    ASSERT_TRUE(e.create_index(op, kNs, ttl).ok());
    const Document old = make_date(e.now_ms() - 1000);
    ASSERT_TRUE(e.insert_many(op, kNs, {{{"_id", 1}, {"x", old}, {"z", 2}}, {{"_id", 2}, {"x", old}}}, {}).ok());
    const TtlPassResult pass = e.ttl_pass(op, true);
    EXPECT_EQ(pass.deleted, 1u);
    EXPECT_EQ(e.find(op, kNs, {}).docs, (std::vector<Document>{{{"_id", 2}, {"x", old}}}));
  });
  h.reopen();  // the filter is in the catalog
  h.run([&](OperationContext& op) {
    const IndexSpec* index = h.engine().catalog().find(kNs)->index("x_1");
    ASSERT_NE(index, nullptr);
    EXPECT_EQ(index->partial_filter, (Document{{"z", {{"$exists", true}}}}));
    EXPECT_EQ(h.engine().ttl_pass(op, true).deleted, 0u);
  });
}

}  // namespace
}  // namespace wtsim::engine
