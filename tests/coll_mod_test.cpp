// collMod's index option as MongoDB 3.4 checks it (engine/coll_mod.h): each refusal with its code
// and errmsg leaves the index as it was; a change stores a whole number and replies with the old
// and new values; an unchanged value writes nothing and replies nothing.
#include <gtest/gtest.h>

#include "tests/engine_harness.h"

namespace wtsim::engine {
namespace {

const char* kNs = "test.cm";

CollectionSpec collection() {
  CollectionSpec c;
  c.ns = kNs;
  c.indexes = {IndexSpec{"_id_", {{"_id", 1}}, true, std::nullopt, ""}, IndexSpec{"a_1", {{"a", 1}}, false, Document(50.0), ""},
               IndexSpec{"b_1", {{"b", 1}}, false, std::nullopt, ""}, IndexSpec{"s_1", {{"s", 1}}, false, Document("50"), ""},
               IndexSpec{"a_b", {{"a", 1}, {"b", -1}}, false, Document(10), ""}};
  return c;
}

CollModRequest by_key(Document key, std::optional<Document> expire) { return {std::move(key), std::nullopt, std::move(expire)}; }
CollModRequest by_name(Document name, std::optional<Document> expire) { return {std::nullopt, std::move(name), std::move(expire)}; }

// The refusal's code and errmsg.
std::pair<ErrorCode, std::string> refusal(const CollModRequest& r) {
  const CollModPlan plan = plan_coll_mod(collection(), r);
  EXPECT_FALSE(plan.store.has_value());
  return {plan.result.status.code, plan.result.message};
}

TEST(CollMod, EachRefusalHasMongoDBsCodeAndMessage) {
  using E = ErrorCode;
  const auto invalid = [](const char* m) { return std::pair<ErrorCode, std::string>{E::kInvalidOptions, m}; };
  EXPECT_EQ(refusal({Document{{"a", 1}}, Document("a_1"), Document(5)}), invalid("Cannot specify both key pattern and name."));
  EXPECT_EQ(refusal({std::nullopt, std::nullopt, Document(5)}), invalid("Must specify either index name or key pattern."));
  EXPECT_EQ(refusal(by_name(Document(7), Document(5))), invalid("Index name must be a string."));
  EXPECT_EQ(refusal(by_key(Document("a"), Document(5))), invalid("Key pattern must be an object."));
  EXPECT_EQ(refusal(by_key(Document{{"a", 1}}, std::nullopt)), invalid("no expireAfterSeconds field"));
  EXPECT_EQ(refusal(by_key(Document{{"a", 1}}, Document("100"))), invalid("expireAfterSeconds field must be a number"));
  EXPECT_EQ(refusal(by_key(Document{{"z", 1}}, Document(5))),
            (std::pair<ErrorCode, std::string>{E::kIndexNotFound, "cannot find index {\"z\":1} for ns test.cm"}));
  EXPECT_EQ(refusal(by_name(Document("z_1"), Document(5))),
            (std::pair<ErrorCode, std::string>{E::kIndexNotFound, "cannot find index z_1 for ns test.cm"}));
  EXPECT_EQ(refusal(by_key(Document{{"a", -1}}, Document(5))).first, E::kIndexNotFound) << "the direction is part of the key";
  EXPECT_EQ(refusal(by_key(Document{{"b", 1}}, Document(5))), invalid("no expireAfterSeconds field to update"));
  EXPECT_EQ(refusal(by_name(Document("s_1"), Document(5))), invalid("existing expireAfterSeconds field is not a number"));
  CollectionSpec twice = collection();
  twice.indexes.push_back(IndexSpec{"a_1_again", {{"a", 1}}, false, Document(7), ""});
  EXPECT_EQ(plan_coll_mod(twice, by_key(Document{{"a", 1}}, Document(5))).result.status.code, E::kAmbiguousIndexKeyPattern);
}

TEST(CollMod, AChangeStoresAWholeNumberAndRepliesOldAndNew) {
  const CollModPlan fraction = plan_coll_mod(collection(), by_key(Document{{"a", 1}}, Document(1.9)));
  ASSERT_TRUE(fraction.result.status.ok());
  EXPECT_EQ(fraction.index, "a_1");
  EXPECT_EQ(fraction.store, 1) << "cut toward zero, as a NumberLong";
  EXPECT_EQ(fraction.result.reply, (Document{{"expireAfterSeconds_old", 50.0}, {"expireAfterSeconds_new", 1.9}}));
  EXPECT_EQ(plan_coll_mod(collection(), by_name(Document("a_1"), Document(-0.5))).store, 0);
  const CollModPlan compound = plan_coll_mod(collection(), by_key(Document::parse(R"([["a", 1], ["b", -1]])"), Document(20)));
  EXPECT_EQ(compound.index, "a_b");
  EXPECT_EQ(compound.store, 20);
  const CollModPlan same = plan_coll_mod(collection(), by_name(Document("a_1"), Document(50)));
  ASSERT_TRUE(same.result.status.ok());
  EXPECT_FALSE(same.store.has_value()) << "50 == 50.0: nothing to write";
  EXPECT_EQ(same.result.reply, Document::object());
}

// On the engine: a refusal leaves the catalog row as it was; a change reaches the catalog (and
// the TTL monitor) as the whole number; a missing collection is NamespaceNotFound.
TEST(CollMod, TheEngineWritesOnlyWhatPasses) {
  EngineHarness h;
  h.run([&](OperationContext& op) {
    DocumentEngine& e = h.engine();
    ASSERT_TRUE(e.create_collection(op, kNs).ok());
    ASSERT_TRUE(e.create_index(op, kNs, IndexSpec{"at_1", {{"at", 1}}, false, Document(60), ""}).ok());
    EXPECT_EQ(e.coll_mod(op, "test.none", by_name(Document("at_1"), Document(5))).status.code, ErrorCode::kNamespaceNotFound);
    const CollModResult bad = e.coll_mod(op, kNs, by_name(Document("at_1"), Document("5")));
    EXPECT_EQ(bad.status.code, ErrorCode::kInvalidOptions);
    EXPECT_EQ(e.catalog().find(kNs)->index("at_1")->expire_after_seconds, Document(60));
    const CollModResult ok = e.coll_mod(op, kNs, by_key(Document{{"at", 1}}, Document(2.7)));
    ASSERT_TRUE(ok.status.ok());
    EXPECT_EQ(ok.reply["expireAfterSeconds_new"], 2.7);
    EXPECT_EQ(e.catalog().find(kNs)->index("at_1")->expire_after_seconds, Document(2));
  });
}

// The collection flags (3.4): each one given is written and replied old and new, changed or not;
// an index refusal applies no flag; a padded collection's next record is sized by the new flag.
TEST(CollMod, FlagsAreRepliedOldAndNewAndSizeTheNextRecord) {
  CollModRequest flags;
  flags.index = false;
  flags.use_power_of_2_sizes = Document(true);
  flags.no_padding = Document(0);
  const CollModPlan plan = plan_coll_mod(collection(), flags);
  ASSERT_TRUE(plan.result.status.ok());
  EXPECT_EQ(plan.power_of_2_sizes, true);
  EXPECT_EQ(plan.no_padding, false);
  EXPECT_EQ(plan.result.reply, (Document{{"usePowerOf2Sizes_old", false}, {"usePowerOf2Sizes_new", true}, {"noPadding_old", false}, {"noPadding_new", false}}));
  CollModRequest refused = by_name(Document("b_1"), Document(5));
  refused.use_power_of_2_sizes = Document(true);
  const CollModPlan none = plan_coll_mod(collection(), refused);
  EXPECT_EQ(none.result.status.code, ErrorCode::kInvalidOptions);
  EXPECT_FALSE(none.power_of_2_sizes.has_value());
  EngineHarness h;
  h.run([&](OperationContext& op) {
    DocumentEngine& e = h.engine();
    CollectionOptions padded;
    padded.padded = true;
    ASSERT_TRUE(e.create_collection(op, kNs, padded).ok());
    const auto size_after_insert = [&](int id) {  // collStats size: the records' bytes less their headers
      EXPECT_TRUE(e.insert_many(op, kNs, {{{"_id", id}, {"s", std::string(100, 'x')}}}, {}).ok());
      return e.coll_stats(kNs)["size"].get<int64_t>();
    };
    // A document of 130-odd bytes with its header: aligned to 4, then quantized to a sixteenth of
    // its 256-byte bucket, 144.
    const int64_t first = size_after_insert(1);
    EXPECT_EQ(first, 144 - 16);
    ASSERT_TRUE(e.coll_mod(op, kNs, flags).status.ok());
    EXPECT_EQ(e.coll_stats(kNs)["userFlags"], 1);
    EXPECT_EQ(size_after_insert(2) - first, 256 - 16);  // the first 2^n strictly above its length
  });
  h.reopen();
  EXPECT_TRUE(h.engine().catalog().find(kNs)->power_of_2_sizes);  // in the catalog row
}

}  // namespace
}  // namespace wtsim::engine
