// writes_follow_commands (properties/write_reference.h): the reference of MongoDB's write
// semantics on its own, the judge of one committed change, and the reference against the
// engine's update code on random updates (two implementations written apart must agree).
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include "engine/update_ops.h"
#include "properties/write_reference.h"

namespace wtsim::properties {
namespace {

using engine::Document;
namespace ref = reference;

Document date(int64_t ms) { return {{"$date", ms}}; }

TEST(WriteReference, EqualityMatchesTheValueOrAnyArrayElementAndNullMatchesMissing) {
  const Document doc = {{"_id", 1}, {"a", 5}, {"tags", {1, 7}}, {"sub", {{"x", "s"}}}};
  EXPECT_EQ(ref::matches(doc, {{"a", 5}}), true);
  EXPECT_EQ(ref::matches(doc, {{"a", 5.0}}), true);  // numbers compare by value in a query
  EXPECT_EQ(ref::matches(doc, {{"a", 6}}), false);
  EXPECT_EQ(ref::matches(doc, {{"tags", 7}}), true);
  EXPECT_EQ(ref::matches(doc, {{"sub.x", "s"}}), true);
  EXPECT_EQ(ref::matches(doc, {{"missing", nullptr}}), true);
  EXPECT_EQ(ref::matches(doc, {{"a", nullptr}}), false);
}

TEST(WriteReference, RangesCompareOnlyWithinAClass) {
  const Document doc = {{"_id", 1}, {"at", date(1000)}, {"n", 3}, {"s", "b"}};
  EXPECT_EQ(ref::matches(doc, {{"at", {{"$lt", date(1001)}}}}), true);
  EXPECT_EQ(ref::matches(doc, {{"at", {{"$lt", date(1000)}}}}), false);  // strict
  EXPECT_EQ(ref::matches(doc, {{"at", {{"$lt", 5000}}}}), false);        // a Date is not a number
  EXPECT_EQ(ref::matches(doc, {{"n", {{"$gte", 3}, {"$lt", 4}}}}), true);
  EXPECT_EQ(ref::matches(doc, {{"s", {{"$gt", "a"}}}}), true);
  EXPECT_EQ(ref::matches(doc, {{"missing", {{"$lt", 1}}}}), false);
}

TEST(WriteReference, InNeExistsFollowEquality) {
  const Document doc = {{"_id", 1}, {"a", 2}, {"tags", {4, 5}}};
  EXPECT_EQ(ref::matches(doc, {{"a", {{"$in", {1, 2}}}}}), true);
  EXPECT_EQ(ref::matches(doc, {{"tags", {{"$in", {9, 5}}}}}), true);
  EXPECT_EQ(ref::matches(doc, {{"tags", {{"$ne", 5}}}}), false);
  EXPECT_EQ(ref::matches(doc, {{"b", {{"$exists", false}}}}), true);
  EXPECT_EQ(ref::matches(doc, {{"a", {{"$exists", true}}}}), true);
}

TEST(WriteReference, WhatItDoesNotModelIsNotJudged) {
  const Document doc = {{"_id", 1}, {"arr", {{{"x", 1}}}}};
  EXPECT_EQ(ref::matches(doc, {{"$or", {{{"a", 1}}}}}), std::nullopt);
  EXPECT_EQ(ref::matches(doc, {{"arr.x", 1}}), std::nullopt);  // a path through an array
  EXPECT_EQ(ref::matches(doc, {{"a", {{"$regex", "x"}}}}), std::nullopt);
  EXPECT_EQ(ref::updated(doc, {{"$push", {{"arr", 2}}}}), std::nullopt);
  EXPECT_EQ(ref::updated(doc, {{"$set", {{"a", 1}}}, {"$inc", {{"a", 1}}}}), std::nullopt);  // a conflict
}

TEST(WriteReference, OperatorsSetUnsetAndIncrement) {
  const Document doc = {{"_id", 1}, {"n", 1}, {"d", 1.5}, {"gone", true}};
  const Document after = *ref::updated(doc, {{"$inc", {{"n", 2}, {"d", 1}, {"new", 4}}}, {"$set", {{"a.b", "x"}}}, {"$unset", {{"gone", ""}}}});
  EXPECT_TRUE(ref::same(after, {{"_id", 1}, {"n", 3}, {"d", 2.5}, {"new", 4}, {"a", {{"b", "x"}}}}));
  EXPECT_TRUE(ref::same(*ref::updated(doc, {{"$inc", {{"n", 1.0}}}}), {{"_id", 1}, {"n", 2.0}, {"d", 1.5}, {"gone", true}}));
}

TEST(WriteReference, RefusedUpdatesGiveNull) {
  const Document doc = {{"_id", 1}, {"s", "x"}, {"z", nullptr}};
  EXPECT_TRUE(ref::updated(doc, {{"$inc", {{"s", 1}}}})->is_null());
  EXPECT_TRUE(ref::updated(doc, {{"$inc", {{"z", 1}}}})->is_null());  // $inc of an existing null
  EXPECT_TRUE(ref::updated(doc, {{"$set", {{"s.t", 1}}}})->is_null());  // through a string
  EXPECT_TRUE(ref::updated(doc, {{"$set", {{"a", 1}}}, {"b", 2}})->is_null());  // operators beside fields
  EXPECT_TRUE(ref::updated(doc, {{"_id", 2}, {"a", 1}})->is_null());  // a replacement may not change _id
}

TEST(WriteReference, ReplacementKeepsIdAndUpsertBaseTakesEqualities) {
  EXPECT_TRUE(ref::same(*ref::updated({{"_id", 7}, {"a", 1}}, {{"b", 2}}), {{"_id", 7}, {"b", 2}}));
  const Document filter = {{"_id", 3}, {"a.b", 1}, {"c", {{"$eq", 2}}}, {"d", {{"$gt", 5}}}};
  EXPECT_TRUE(ref::same(*ref::upsert_base(filter), {{"_id", 3}, {"a", {{"b", 1}}}, {"c", 2}}));
}

TEST(WriteReference, SameTellsIntegersFromDoubles) {
  EXPECT_TRUE(ref::same({{"a", 1}}, {{"a", 1u}}));
  EXPECT_FALSE(ref::same({{"a", 1}}, {{"a", 1.0}}));
  EXPECT_FALSE(ref::same({{"a", 1}}, {{"a", 1}, {"b", 1}}));
}

TEST(CheckWrite, AnInsertStoresADocumentTheClientSent) {
  WriteCommand c = WriteCommand::make_insert("t.c", {{{"_id", 1}, {"a", 1}}, {{"b", 2}}});
  const Document sent = {{"_id", 1}, {"a", 1}}, generated_id = {{"_id", "oid"}, {"b", 2}}, other = {{"_id", 1}, {"a", 2}};
  EXPECT_EQ(check_write(c, nullptr, &sent), std::nullopt);
  EXPECT_EQ(check_write(c, nullptr, &generated_id), std::nullopt);  // the engine chose its _id
  const auto f = check_write(c, nullptr, &other);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->first, Property::kWritesFollowCommands);
  EXPECT_EQ(check_write(c, &sent, nullptr), std::nullopt);  // a capped trim in the insert's unit
  EXPECT_TRUE(check_write(c, &sent, &sent));  // an insert never replaces
}

TEST(CheckWrite, AnUpdateStoresWhatItsOperatorsMakeOfTheMatchedDocument) {
  const Document pre = {{"_id", "d1"}, {"g", 1}, {"n", 4}};
  const Document good = {{"_id", "d1"}, {"g", 7}, {"n", 5}}, set_skipped = {{"_id", "d1"}, {"g", 1}, {"n", 5}};
  const Document update = {{"$inc", {{"n", 1}}}, {"$set", {{"g", 7}}}};
  const Document d1 = {{"_id", "d1"}}, d2 = {{"_id", "d2"}};
  WriteCommand c = WriteCommand::make_update("t.c", d1, update, true, false);
  EXPECT_EQ(check_write(c, &pre, &good), std::nullopt);
  WriteCommand again = WriteCommand::make_update("t.c", d1, update, true, false);
  EXPECT_TRUE(check_write(again, &pre, &set_skipped));
  WriteCommand wrong_doc = WriteCommand::make_update("t.c", d2, update, true, false);
  EXPECT_TRUE(check_write(wrong_doc, &pre, &good));  // the old version does not match the filter
}

TEST(CheckWrite, UpsertsDeletesAndTheOneDocumentLimit) {
  const Document update = {{"$inc", {{"n", 1}}}};
  const Document id9 = {{"_id", 9}}, n1 = {{"n", 1}}, n2 = {{"n", 2}}, none;
  WriteCommand upsert = WriteCommand::make_update("t.c", id9, update, true, false);
  const Document created = {{"_id", 9}, {"n", 1}}, pre = {{"_id", 8}, {"n", 1}}, pre2 = {{"_id", 7}, {"n", 1}};
  EXPECT_EQ(check_write(upsert, nullptr, &created), std::nullopt);
  WriteCommand no_upsert = WriteCommand::make_update("t.c", id9, update, false, false);
  EXPECT_TRUE(check_write(no_upsert, nullptr, &created));
  WriteCommand one = WriteCommand::make_delete("t.c", n1, true);
  EXPECT_EQ(check_write(one, &pre, nullptr), std::nullopt);
  EXPECT_TRUE(check_write(one, &pre2, nullptr));  // justOne deleted a second document
  WriteCommand many = WriteCommand::make_delete("t.c", n1, false);
  EXPECT_EQ(check_write(many, &pre, nullptr), std::nullopt);
  EXPECT_EQ(check_write(many, &pre2, nullptr), std::nullopt);
  WriteCommand unmatched = WriteCommand::make_delete("t.c", n2, false);
  EXPECT_TRUE(check_write(unmatched, &pre, nullptr));
  WriteCommand fam = WriteCommand::make_find_and_modify("t.c", n1, none, true, false);
  EXPECT_EQ(check_write(fam, &pre, nullptr), std::nullopt);
}

// The reference and the engine agree wherever the reference judges: on random flat documents
// and random $set/$unset/$inc updates, and on random equality and range filters.
Document small_value(int pick, int64_t n) {
  switch (pick % 4) {
    case 0: return n;
    case 1: return static_cast<double>(n) + 0.5;
    case 2: return "s" + std::to_string(n % 3);
    default: return date(n);
  }
}

Document random_doc(const std::vector<int>& picks) {
  Document doc = {{"_id", 1}};
  for (size_t i = 0; i < picks.size() && i < 4; ++i) doc["f" + std::to_string(i)] = small_value(picks[i], picks[i] % 5);
  return doc;
}

RC_GTEST_PROP(WriteReference, AgreesWithTheEngineOnRandomUpdates, (const std::vector<int>& fields, const std::vector<int>& ops)) {
  const Document doc = random_doc(fields);
  Document update = Document::object();
  const char* kOps[] = {"$set", "$unset", "$inc"};
  for (size_t i = 0; i < ops.size() && i < 4; ++i) {  // one operator per field: no conflicts
    const int op = ((ops[i] % 3) + 3) % 3;
    update[kOps[op]]["f" + std::to_string(i)] = op == 2 ? Document(ops[i] % 7) : small_value(ops[i], ops[i] % 5);
  }
  RC_PRE(!update.empty());
  const std::optional<Document> expected = ref::updated(doc, update);
  RC_ASSERT(expected.has_value());
  Document engine_doc = doc;
  const std::string error = engine::apply_update(engine_doc, update);
  RC_ASSERT(expected->is_null() == !error.empty());
  if (error.empty()) RC_ASSERT(ref::same(*expected, engine_doc));
}

// The field-by-field check of a flat update agrees with building the expected document, on the
// true version and on versions with a field changed, dropped or added.
RC_GTEST_PROP(WriteReference, TheFlatCheckAgreesWithTheBuiltDocument, (const std::vector<int>& fields, const std::vector<int>& ops, int edit)) {
  const Document doc = random_doc(fields);
  Document update = Document::object();
  const char* kOps[] = {"$set", "$unset", "$inc"};
  for (size_t i = 0; i < ops.size() && i < 4; ++i) {
    const int op = ((ops[i] % 3) + 3) % 3;
    update[kOps[op]]["f" + std::to_string(i)] = op == 2 ? Document(ops[i] % 7) : small_value(ops[i], ops[i] % 5);
  }
  RC_PRE(!update.empty());
  const std::optional<Document> expected = ref::updated(doc, update);
  RC_PRE(expected.has_value() && !expected->is_null());
  std::vector<Document> candidates = {*expected, *expected, *expected, *expected};
  const std::string field = "f" + std::to_string(((edit % 5) + 5) % 5);
  candidates[1][field] = 99;   // a field changed (or added)
  candidates[2].erase(field);  // a field dropped
  candidates[3]["extra"] = 1;  // a field no operator names
  for (const Document& post : candidates) {
    const std::optional<bool> flat = ref::stored_by_flat_update(doc, update, post);
    RC_ASSERT(flat.has_value());
    RC_ASSERT(*flat == ref::same(*expected, post));
  }
}

RC_GTEST_PROP(WriteReference, AgreesWithTheEngineOnRandomFilters, (const std::vector<int>& fields, int field, int op, int value)) {
  const Document doc = random_doc(fields);
  const char* kOps[] = {"$eq", "$ne", "$gt", "$gte", "$lt", "$lte"};
  const Document filter = {{"f" + std::to_string(((field % 4) + 4) % 4), {{kOps[((op % 6) + 6) % 6], small_value(value, value % 5)}}}};
  const std::optional<bool> expected = ref::matches(doc, filter);
  RC_ASSERT(expected.has_value());
  RC_ASSERT(*expected == engine::matches(doc, filter));
}

}  // namespace
}  // namespace wtsim::properties
