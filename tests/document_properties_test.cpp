// The document engine's per-event properties (properties/document_properties.h), each on the
// event that must pass and on the ones that must fail.
#include <gtest/gtest.h>

#include "properties/document_properties.h"

namespace wtsim::properties {
namespace {

using engine::Document;

constexpr int64_t kNowMs = 1'000'000;

TtlDelete ttl_delete(const Document& id, const Document* value, bool primary = true) {
  TtlDelete d;
  d.ns = "test.demo";
  d.id = &id;
  d.field = "created_at";
  d.indexed_value = value;
  d.now_ms = kNowMs;
  d.expire_after_s = 60;
  d.on_primary = primary;
  return d;
}

TEST(DocumentProperties, ATtlDeleteIsSafeOnlyForADateStrictlyBelowTheBound) {
  const Document id = 7;
  const Document old_date = engine::make_date(kNowMs - 60'001);
  const Document at_bound = engine::make_date(kNowMs - 60'000);
  const Document text = "2020-01-01";
  const Document array = Document::array({5, engine::make_date(kNowMs - 90'000)});
  EXPECT_FALSE(check_ttl_delete(ttl_delete(id, &old_date)));
  EXPECT_FALSE(check_ttl_delete(ttl_delete(id, &array))) << "an array with an expired Date expires";
  for (const Document* v : {&at_bound, &text, static_cast<const Document*>(nullptr)}) {
    const auto f = check_ttl_delete(ttl_delete(id, v));
    ASSERT_TRUE(f) << (v ? v->dump() : "missing");
    EXPECT_EQ(f->first, Property::kTtlSafety);
    EXPECT_NE(f->second.find("bound 940000"), std::string::npos) << f->second;
  }
  const auto secondary = check_ttl_delete(ttl_delete(id, &old_date, /*primary=*/false));
  ASSERT_TRUE(secondary);
  EXPECT_NE(secondary->second.find("secondary"), std::string::npos);
}

TEST(DocumentProperties, AnIncrementCountsOnceFromTheLastCommittedImage) {
  const Document three = 3, four = 4, text = "x";
  EXPECT_FALSE(check_increment("k", 2, &three, 1));
  EXPECT_FALSE(check_increment("k", std::nullopt, &three, 1)) << "no previous image: nothing to compare";
  EXPECT_FALSE(check_increment("k", 2, &three, 0)) << "not an $inc";
  EXPECT_FALSE(check_increment("k", 2, &text, 1));
  const auto lost = check_increment("k", 3, &three, 1);  // a lost update: the same counter twice
  ASSERT_TRUE(lost);
  EXPECT_EQ(lost->first, Property::kIncrementsCountedOnce);
  EXPECT_EQ(lost->second, "k: counter went 3 -> 3 for $inc 1");
  EXPECT_TRUE(check_increment("k", 2, &four, 1)) << "a doubled update";
}

std::string bson_of(const Document& doc) {
  const std::vector<uint8_t> b = engine::to_bson(doc);
  return std::string(b.begin(), b.end());
}

TEST(DocumentProperties, AFindSeesOnlyMatchingVersionsItsSnapshotMay) {
  models::KvModel model;
  const auto key_of = [](const Document& id) { return "test.c|" + id.dump(); };
  const Document v1 = {{"_id", 1}, {"g", 0}, {"n", 1}};
  const Document v2 = {{"_id", 1}, {"g", 0}, {"n", 2}};
  for (const Document* v : {&v1, &v2}) {
    const uint64_t seq = model.next_seq();
    model.begin_commit({{key_of(1), bson_of(*v)}}, true);
    model.ack(seq);
  }
  const models::ReadScope read(model);
  const Document filter = {{"g", 0}};
  EXPECT_FALSE(check_find(model, filter, {v2}, read.token(), key_of));
  const auto stale = check_find(model, filter, {v1}, read.token(), key_of);
  ASSERT_TRUE(stale) << "v2 was acknowledged before the find began";
  EXPECT_EQ(stale->first, Property::kReadsSeeCommitted);
  const Document never = {{"_id", 1}, {"g", 0}, {"n", 9}};
  EXPECT_TRUE(check_find(model, filter, {never}, read.token(), key_of)) << "a version no commit wrote";
  const auto unmatched = check_find(model, {{"g", 1}}, {v2}, read.token(), key_of);
  ASSERT_TRUE(unmatched);
  EXPECT_NE(unmatched->second.find("does not match on g"), std::string::npos);
  // A condition with operators is not judged as an equality (a script's {"$lt": ...}); the
  // version still is.
  const Document range = {{"n", {{"$lt", 5}}}};
  EXPECT_FALSE(check_find(model, range, {v2}, read.token(), key_of));
  EXPECT_TRUE(check_find(model, range, {never}, read.token(), key_of));
}

}  // namespace
}  // namespace wtsim::properties
