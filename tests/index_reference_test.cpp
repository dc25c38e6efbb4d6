// index_keys_follow_documents (properties/index_reference.h): the property's own key generator,
// the digest comparison of an index with its documents, and the generator against the engine's
// (written apart, they must agree wherever the reference judges).
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include "engine/index_keys.h"
#include "engine/key_string.h"
#include "properties/index_reference.h"

namespace wtsim::properties {
namespace {

using engine::Document;
using engine::IndexSpec;

IndexSpec index_on(std::vector<std::pair<std::string, int>> fields, bool unique = false) {
  IndexSpec spec;
  spec.name = "i";
  spec.fields = std::move(fields);
  spec.unique = unique;
  return spec;
}

TEST(IndexReference, AMissingFieldIndexesAsNull) {
  const auto keys = reference_index_keys(index_on({{"a", 1}}), {{"_id", 1}});
  ASSERT_TRUE(keys);
  EXPECT_EQ(*keys, std::set<std::string>{engine::key_of(nullptr)});
}

TEST(IndexReference, AnArrayGivesOneKeyPerDistinctElement) {
  const auto keys = reference_index_keys(index_on({{"tags", 1}}), {{"_id", 1}, {"tags", {3, 1, 3}}});
  ASSERT_TRUE(keys);
  EXPECT_EQ(*keys, (std::set<std::string>{engine::key_of(1), engine::key_of(3)}));
}

TEST(IndexReference, ACompoundKeyExpandsItsOneArrayField) {
  const auto keys = reference_index_keys(index_on({{"g", 1}, {"tags", -1}}), {{"_id", 1}, {"g", 2}, {"tags", {5, 6}}});
  ASSERT_TRUE(keys);
  EXPECT_EQ(keys->size(), 2u);
  std::string expected;
  engine::append_key_value(expected, 2);
  engine::append_key_value(expected, 6, /*descending=*/true);
  EXPECT_EQ(keys->count(expected), 1u);
}

TEST(IndexReference, APartialIndexHoldsOnlyWhatItsFilterMatches) {
  IndexSpec spec = index_on({{"a", 1}});
  spec.partial_filter = Document{{"b", {{"$exists", true}}}};
  EXPECT_EQ(reference_index_keys(spec, {{"_id", 1}, {"a", 1}})->size(), 0u);
  EXPECT_EQ(reference_index_keys(spec, {{"_id", 1}, {"a", 1}, {"b", 0}})->size(), 1u);
}

TEST(IndexReference, WhatItDoesNotModelIsNotJudged) {
  EXPECT_FALSE(reference_index_keys(index_on({{"a", 1}}), {{"_id", 1}, {"a", Document::array()}}));  // undefined
  EXPECT_FALSE(reference_index_keys(index_on({{"a", 1}, {"b", 1}}), {{"_id", 1}, {"a", {1}}, {"b", {2}}}));  // parallel
  EXPECT_FALSE(reference_index_keys(index_on({{"a.x", 1}}), {{"_id", 1}, {"a", {{{"x", 1}}}}}));  // through an array
}

// An index fed the entries its documents give holds; one entry short, or one too many, does not.
TEST(IndexReferenceCheck, ComparesAnIndexWithItsDocuments) {
  const std::vector<IndexSpec> indexes = {index_on({{"_id", 1}}, /*unique=*/true), index_on({{"tags", 1}})};
  const Document a = {{"_id", 1}, {"tags", {1, 2}}}, b = {{"_id", 2}, {"tags", 7}};
  const auto feed = [&](IndexReferenceCheck& check, bool drop_one, bool add_one) {
    check.add_record("r1", a);
    check.add_record("r2", b);
    check.add_entry(0, engine::key_of(1), "r1");
    check.add_entry(0, engine::key_of(2), "r2");
    check.add_entry(1, engine::key_of(1) + "r1", "r1");
    if (!drop_one) check.add_entry(1, engine::key_of(2) + "r1", "r1");
    check.add_entry(1, engine::key_of(7) + "r2", "r2");
    if (add_one) check.add_entry(1, engine::key_of(8) + "r2", "r2");
  };
  IndexReferenceCheck whole("t.c", indexes);
  feed(whole, false, false);
  EXPECT_TRUE(whole.findings().empty());
  IndexReferenceCheck short_one("t.c", indexes, {1});
  feed(short_one, true, false);
  ASSERT_EQ(short_one.findings().size(), 1u);
  EXPECT_EQ(short_one.findings()[0].first, Property::kIndexKeysFollowDocuments);
  EXPECT_NE(short_one.findings()[0].second.find("missing"), std::string::npos);
  IndexReferenceCheck extra("t.c", indexes, {1});
  feed(extra, false, true);
  ASSERT_EQ(extra.mismatched(), std::set<size_t>{1});
  EXPECT_NE(extra.findings()[0].second.find("no document gives"), std::string::npos);
}

TEST(IndexReferenceCheck, AnIndexWithADocumentItCannotModelIsNotJudged) {
  const std::vector<IndexSpec> indexes = {index_on({{"a", 1}})};
  IndexReferenceCheck check("t.c", indexes);
  check.add_record("r1", {{"_id", 1}, {"a", Document::array()}});
  check.add_entry(0, "whatever", "r1");
  EXPECT_TRUE(check.findings().empty());
}

// Random documents of scalars and small arrays on random one- and two-field indexes.
Document random_value(int pick) {
  switch (((pick % 5) + 5) % 5) {
    case 0: return pick % 7;
    case 1: return "s" + std::to_string(pick % 3);
    case 2: return Document::array({pick % 2, pick % 3, 4});
    case 3: return nullptr;
    default: return 1.5;
  }
}

RC_GTEST_PROP(IndexReference, AgreesWithTheEngineOnRandomDocuments, (const std::vector<int>& picks, bool compound, bool descending)) {
  Document doc = {{"_id", 1}};
  for (size_t i = 0; i < picks.size() && i < 3; ++i) doc["f" + std::to_string(i)] = random_value(picks[i]);
  IndexSpec spec = index_on({{"f0", descending ? -1 : 1}});
  if (compound) spec.fields.push_back({"f1", 1});
  const auto expected = reference_index_keys(spec, doc);
  RC_PRE(expected.has_value());
  RC_ASSERT(*expected == engine::index_keys(spec, doc));
}

}  // namespace
}  // namespace wtsim::properties
