// findAndModify as MongoDB 3.2 answers it: the parser's refusals, the document before or after,
// upserts, a sort's first document, and a missing or capped collection. (A reference model
// compares it operation by operation in engine_model_test.cpp.)
#include <gtest/gtest.h>

#include "tests/engine_harness.h"

namespace wtsim::engine {
namespace {

const char* kNs = "test.fam";

FindAndModifyRequest inc_x(Document query, bool return_new = false, bool upsert = false) {
  FindAndModifyRequest r;
  r.query = std::move(query);
  r.update = Document{{"$inc", {{"x", 1}}}};
  r.return_new = return_new;
  r.upsert = upsert;
  return r;
}

TEST(FindAndModify, RefusesWhatMongoDBsParserRefusesAndChangesNothing) {
  EngineHarness h;
  h.run([&](OperationContext& op) {
    DocumentEngine& e = h.engine();
    ASSERT_TRUE(e.insert_many(op, kNs, {{{"_id", 1}, {"x", 1}}}, {}).ok());
    const auto refusal = [&](FindAndModifyRequest r) {
      const FindAndModifyResult f = e.find_and_modify(op, kNs, r, {});
      EXPECT_TRUE(f.status.ok());
      EXPECT_EQ(f.n, 0u);
      EXPECT_FALSE(f.value.has_value());
      return f.errors.size() == 1 && f.errors[0].code == ErrorCode::kFailedToParse ? f.message : "accepted";
    };
    FindAndModifyRequest neither;
    EXPECT_EQ(refusal(neither), "Either an update or remove=true must be specified");
    FindAndModifyRequest both = inc_x({{"x", 1}});
    both.remove = true;
    EXPECT_EQ(refusal(both), "Cannot specify both an update and remove=true");
    FindAndModifyRequest remove_upsert;
    remove_upsert.remove = remove_upsert.upsert = true;
    EXPECT_EQ(refusal(remove_upsert), "Cannot specify both upsert=true and remove=true");
    FindAndModifyRequest remove_new;
    remove_new.remove = remove_new.return_new = true;
    EXPECT_EQ(refusal(remove_new).substr(0, 43), "Cannot specify both new=true and remove=tru");
    EXPECT_EQ(e.find(op, kNs, {}).docs, (std::vector<Document>{{{"_id", 1}, {"x", 1}}}));
  });
}

TEST(FindAndModify, ReturnsTheDocumentBeforeOrAfterAndTheSortsFirst) {
  EngineHarness h;
  h.run([&](OperationContext& op) {
    DocumentEngine& e = h.engine();
    ASSERT_TRUE(e.insert_many(op, kNs, {{{"_id", 1}, {"p", 5}, {"x", 0}}, {{"_id", 2}, {"p", 9}, {"x", 0}}, {{"_id", 3}, {"p", 1}, {"x", 0}}}, {}).ok());
    FindAndModifyResult f = e.find_and_modify(op, kNs, inc_x({{"_id", 2}}), {});
    EXPECT_EQ(f.value, (Document{{"_id", 2}, {"p", 9}, {"x", 0}}));
    EXPECT_TRUE(f.updated_existing);
    f = e.find_and_modify(op, kNs, inc_x({{"_id", 2}}, /*return_new=*/true), {});
    EXPECT_EQ(f.value, (Document{{"_id", 2}, {"p", 9}, {"x", 2}}));
    FindAndModifyRequest highest = inc_x(Document::object());
    highest.sort = std::make_pair(std::string("p"), -1);
    EXPECT_EQ(e.find_and_modify(op, kNs, highest, {}).value->at("_id"), 2);
    FindAndModifyRequest lowest;
    lowest.remove = true;
    lowest.sort = std::make_pair(std::string("p"), 1);
    f = e.find_and_modify(op, kNs, lowest, {});
    EXPECT_EQ(f.value, (Document{{"_id", 3}, {"p", 1}, {"x", 0}}));
    EXPECT_FALSE(f.updated_existing);
    EXPECT_EQ(e.find(op, kNs, {}).docs.size(), 2u);
    f = e.find_and_modify(op, kNs, inc_x({{"p", 77}}), {});  // no match
    EXPECT_EQ(f.n, 0u);
    EXPECT_FALSE(f.value.has_value());
    EXPECT_EQ(e.metrics().opcounters.query, 1u);  // the one find: findAndModify counts as a command
    EXPECT_EQ(e.metrics().opcounters.command, 1u + 5u);  // the implicit create and five findAndModify
    EXPECT_TRUE(e.validate(op, kNs).valid);
  });
}

TEST(FindAndModify, AnUpsertReturnsNullOrTheInsertedDocument) {
  EngineHarness h;
  h.run([&](OperationContext& op) {
    DocumentEngine& e = h.engine();
    FindAndModifyRequest remove;
    remove.remove = true;
    EXPECT_FALSE(e.find_and_modify(op, "test.none", remove, {}).value.has_value());
    EXPECT_EQ(e.catalog().find("test.none"), nullptr);  // nothing to remove creates nothing
    FindAndModifyResult f = e.find_and_modify(op, kNs, inc_x({{"_id", "a"}}, false, /*upsert=*/true), {});
    EXPECT_FALSE(f.value.has_value());
    EXPECT_EQ(f.n, 1u);
    EXPECT_EQ(f.upserted_ids, (std::vector<Document>{"a"}));
    f = e.find_and_modify(op, kNs, inc_x({{"_id", "b"}}, true, true), {});
    EXPECT_EQ(f.value, (Document{{"_id", "b"}, {"x", 1}}));
    f = e.find_and_modify(op, kNs, inc_x({{"_id", "b"}}, true, true), {});
    EXPECT_EQ(f.value, (Document{{"_id", "b"}, {"x", 2}}));
    EXPECT_TRUE(f.upserted_ids.empty());
    EXPECT_EQ(e.find(op, kNs, {}).docs.size(), 2u);
  });
}

TEST(FindAndModify, ACappedCollectionRefusesRemovalAndGrowth) {
  EngineHarness h;
  h.run([&](OperationContext& op) {
    DocumentEngine& e = h.engine();
    CollectionOptions capped;
    capped.capped_max_docs = 10;
    ASSERT_TRUE(e.create_collection(op, kNs, capped).ok());
    ASSERT_TRUE(e.insert_many(op, kNs, {{{"_id", 1}, {"s", "abc"}}}, {}).ok());
    FindAndModifyRequest remove;
    remove.remove = true;
    FindAndModifyResult f = e.find_and_modify(op, kNs, remove, {});
    ASSERT_EQ(f.errors.size(), 1u);
    EXPECT_EQ(f.errors[0].code, ErrorCode::kIllegalOperation);
    FindAndModifyRequest grow;
    grow.update = Document{{"$set", {{"s", "abcdef"}}}};
    f = e.find_and_modify(op, kNs, grow, {});
    ASSERT_EQ(f.errors.size(), 1u);
    EXPECT_EQ(f.errors[0].code, ErrorCode::kCannotGrowCapped);
    grow.update = Document{{"$set", {{"s", "xyz"}}}};
    EXPECT_TRUE(e.find_and_modify(op, kNs, grow, {}).ok());
    EXPECT_EQ(e.find(op, kNs, {}).docs, (std::vector<Document>{{{"_id", 1}, {"s", "xyz"}}}));
  });
}

}  // namespace
}  // namespace wtsim::engine
