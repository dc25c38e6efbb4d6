// finds_return_every_match (properties/find_reference.h): the sort order of its own, and finds
// judged against a model's committed documents, left-out, over-limit, duplicated and out-of-order
// results caught, in-flight versions never a false alarm.
#include <gtest/gtest.h>

#include "engine/document.h"
#include "properties/find_reference.h"

namespace wtsim::properties {
namespace {

using engine::Document;

std::string key_of(const Document& id) { return "t.c|" + id.dump(); }

std::string bson_of(const Document& doc) {
  const std::vector<uint8_t> bytes = engine::to_bson(doc);
  return {bytes.begin(), bytes.end()};
}

// A model holding `docs`, each acknowledged.
models::KvModel model_of(const std::vector<Document>& docs) {
  models::KvModel model;
  for (const Document& doc : docs) model.ack(model.begin_commit({{key_of(doc["_id"]), bson_of(doc)}}, true));
  return model;
}

std::optional<Finding> judge(const models::KvModel& model, const engine::FindRequest& req, const std::vector<Document>& docs,
                             uint64_t token) {
  return check_find_complete(model, FindOutcome{&req, &docs, token, "t.c|"}, key_of);
}

engine::FindRequest find_of(Document filter, uint64_t limit = 0) {
  engine::FindRequest req;
  req.filter = std::move(filter);
  req.limit = limit;
  return req;
}

TEST(SortOrder, NullBeforeNumbersBeforeStringsAndUnorderedTypesUnjudged) {
  const Document null = nullptr, one = 1, two_and_a_half = 2.5, a = "a", b = "b", arr = Document::array({1});
  EXPECT_LT(*reference::sort_order(nullptr, &one), 0);
  EXPECT_EQ(*reference::sort_order(nullptr, &null), 0);
  EXPECT_LT(*reference::sort_order(&one, &two_and_a_half), 0);
  EXPECT_GT(*reference::sort_order(&a, &two_and_a_half), 0);
  EXPECT_LT(*reference::sort_order(&a, &b), 0);
  EXPECT_EQ(reference::sort_order(&arr, &one), std::nullopt);
}

TEST(FindsReturnEveryMatch, AFindWithoutALimitReturnsEveryMatchingDocument) {
  const Document d1 = {{"_id", 1}, {"g", 1}}, d2 = {{"_id", 2}, {"g", 1}}, d3 = {{"_id", 3}, {"g", 2}};
  models::KvModel model = model_of({d1, d2, d3});
  const uint64_t token = model.begin_read();
  const engine::FindRequest req = find_of({{"g", 1}});
  EXPECT_EQ(judge(model, req, {d1, d2}, token), std::nullopt);
  const std::optional<Finding> missed = judge(model, req, {d1}, token);
  ASSERT_TRUE(missed);
  EXPECT_EQ(missed->first, Property::kFindsReturnEveryMatch);
  EXPECT_NE(missed->second.find("\"_id\":2"), std::string::npos) << missed->second;
}

TEST(FindsReturnEveryMatch, ALimitBoundsTheResultAndAFullPageNeedsNoMore) {
  const Document d1 = {{"_id", 1}, {"g", 1}}, d2 = {{"_id", 2}, {"g", 1}}, d3 = {{"_id", 3}, {"g", 1}};
  models::KvModel model = model_of({d1, d2, d3});
  const uint64_t token = model.begin_read();
  EXPECT_EQ(judge(model, find_of({{"g", 1}}, 2), {d3, d1}, token), std::nullopt);
  EXPECT_TRUE(judge(model, find_of({{"g", 1}}, 2), {d1}, token));          // one of two allowed
  EXPECT_TRUE(judge(model, find_of({{"g", 1}}, 2), {d1, d2, d3}, token));  // over the limit
  EXPECT_TRUE(judge(model, find_of({{"g", 1}}), {d1, d1, d2, d3}, token)); // a duplicate
}

TEST(FindsReturnEveryMatch, ASortedFindKeepsTheFirstDocumentsInItsOrder) {
  const Document d1 = {{"_id", 1}, {"n", 5}}, d2 = {{"_id", 2}, {"n", 3}}, d3 = {{"_id", 3}};
  models::KvModel model = model_of({d1, d2, d3});
  const uint64_t token = model.begin_read();
  engine::FindRequest req = find_of(Document::object(), 2);
  req.sort = std::make_pair(std::string("n"), 1);
  EXPECT_EQ(judge(model, req, {d3, d2}, token), std::nullopt);  // a missing field sorts as null, first
  EXPECT_TRUE(judge(model, req, {d2, d3}, token));              // out of order
  EXPECT_TRUE(judge(model, req, {d3, d1}, token));              // kept 5, left out 3
  req.sort->second = -1;
  EXPECT_EQ(judge(model, req, {d1, d2}, token), std::nullopt);
}

TEST(FindsReturnEveryMatch, ADocumentChangingDuringTheFindOrAHintedFindIsNotRequired) {
  const Document d1 = {{"_id", 1}, {"g", 1}}, d2 = {{"_id", 2}, {"g", 1}}, d2_moved = {{"_id", 2}, {"g", 2}};
  models::KvModel model = model_of({d1, d2});
  const uint64_t token = model.begin_read();
  model.ack(model.begin_commit({{key_of(2), bson_of(d2_moved)}}, true));  // after the find began
  EXPECT_EQ(judge(model, find_of({{"g", 1}}), {d1}, token), std::nullopt);
  const uint64_t later = model.begin_read();
  EXPECT_EQ(judge(model, find_of({{"g", 2}}), {d2_moved}, later), std::nullopt);
  EXPECT_TRUE(judge(model, find_of({{"g", 2}}), {}, later));
  engine::FindRequest hinted = find_of({{"g", 2}});
  hinted.hint = "g_1";
  EXPECT_EQ(judge(model, hinted, {}, later), std::nullopt);
}

}  // namespace
}  // namespace wtsim::properties
