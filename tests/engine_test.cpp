// The document engine on real WiredTiger: CRUD, indexes, explain, validate, locking, conflicts.
#include <gtest/gtest.h>

#include <algorithm>

#include "engine/index_keys.h"
#include "engine/key_string.h"
#include "tests/engine_harness.h"

namespace wtsim::engine {
namespace {

const char* kNs = "test.c";

IndexSpec index_on(const std::string& field, bool unique = false) {
  return IndexSpec{field + "_1", {{field, 1}}, unique, std::nullopt, ""};
}

std::vector<Document> docs(int n, int groups = 5) {
  std::vector<Document> out;
  for (int i = 0; i < n; ++i) out.push_back({{"_id", i}, {"g", i % groups}, {"n", 0}});
  return out;
}

TEST(Engine, InsertThenFindByIdAndByIndexWithExplain) {
  EngineHarness h;
  h.run([&](OperationContext& op) {
    DocumentEngine& e = h.engine();
    ASSERT_TRUE(e.create_index(op, kNs, index_on("g")).ok());
    const WriteResult w = e.insert_many(op, kNs, docs(20), {});
    ASSERT_TRUE(w.ok());
    EXPECT_EQ(w.n, 20u);

    FindRequest by_id;
    by_id.filter = {{"_id", 7}};
    FindResult r = e.find(op, kNs, by_id);
    ASSERT_EQ(r.docs.size(), 1u);
    EXPECT_EQ(r.docs[0]["g"], 2);
    EXPECT_EQ(r.explain["queryPlanner"]["winningPlan"]["stage"], "IDHACK");

    FindRequest by_g;
    by_g.filter = {{"g", 3}};
    r = e.find(op, kNs, by_g);
    ASSERT_EQ(r.docs.size(), 4u);
    const Document& stats = r.explain["executionStats"];
    EXPECT_EQ(stats["nReturned"], 4);
    EXPECT_EQ(stats["totalKeysExamined"], 4);
    EXPECT_EQ(stats["totalDocsExamined"], 4);
    const Document& ixscan = stats["executionStages"]["inputStage"];
    EXPECT_EQ(stats["executionStages"]["stage"], "FETCH");
    EXPECT_EQ(ixscan["stage"], "IXSCAN");
    EXPECT_EQ(ixscan["keysExamined"], 4);  // one interval, n keys in bounds:
    EXPECT_EQ(ixscan["works"], 5);         // keysExamined = n, works = n + 1
    EXPECT_EQ(ixscan["advanced"], 4);
    EXPECT_EQ(ixscan["seeks"], 1);
    EXPECT_EQ(ixscan["isEOF"], 1);
    EXPECT_EQ(e.metrics().opcounters.insert, 20u);
    EXPECT_EQ(e.metrics().document.returned, 5u);
  });
}

TEST(Engine, RangeFiltersSortAndLimitUseTheIndexInOrder) {
  EngineHarness h;
  h.run([&](OperationContext& op) {
    DocumentEngine& e = h.engine();
    ASSERT_TRUE(e.create_index(op, kNs, index_on("t")).ok());
    std::vector<Document> batch;
    for (int i = 0; i < 50; ++i) batch.push_back({{"_id", i}, {"t", make_date(1000 * (50 - i))}});
    ASSERT_TRUE(e.insert_many(op, kNs, batch, {}).ok());
    FindRequest oldest;
    oldest.sort = std::make_pair(std::string("t"), 1);
    oldest.limit = 1;
    FindResult r = e.find(op, kNs, oldest);
    ASSERT_EQ(r.docs.size(), 1u);
    EXPECT_EQ(r.docs[0]["_id"], 49);
    EXPECT_EQ(r.explain["executionStats"]["executionStages"]["stage"], "LIMIT");
    EXPECT_EQ(r.explain["executionStats"]["totalKeysExamined"], 1);

    FindRequest newest = oldest;
    newest.sort = std::make_pair(std::string("t"), -1);
    r = e.find(op, kNs, newest);
    EXPECT_EQ(r.docs.at(0)["_id"], 0);
    EXPECT_EQ(r.explain["queryPlanner"]["winningPlan"]["inputStage"]["inputStage"]["direction"], "backward");

    FindRequest range;
    range.filter = {{"t", {{"$gte", make_date(10000)}, {"$lt", make_date(20000)}}}};
    r = e.find(op, kNs, range);
    EXPECT_EQ(r.docs.size(), 10u);
    EXPECT_EQ(r.explain["executionStats"]["totalKeysExamined"], 10);
  });
}

TEST(Engine, UpdateOperatorsAndUpsert) {
  EngineHarness h;
  h.run([&](OperationContext& op) {
    DocumentEngine& e = h.engine();
    ASSERT_TRUE(e.insert_many(op, kNs, docs(3), {}).ok());
    WriteResult u = e.update(op, kNs, {{"_id", 1}}, {{"$inc", {{"n", 5}}}, {"$set", {{"x.y", "z"}}}, {"$unset", {{"g", ""}}}}, false, false, {});
    ASSERT_TRUE(u.ok());
    EXPECT_EQ(u.n, 1u);
    EXPECT_EQ(u.modified, 1u);
    FindRequest q;
    q.filter = {{"_id", 1}};
    Document d = e.find(op, kNs, q).docs.at(0);
    EXPECT_EQ(d, (Document{{"_id", 1}, {"n", 5}, {"x", {{"y", "z"}}}}));
    u = e.update(op, kNs, {{"_id", 99}}, {{"$inc", {{"n", 1}}}}, true, false, {});
    ASSERT_EQ(u.upserted_ids.size(), 1u);
    q.filter = {{"_id", 99}};
    EXPECT_EQ(e.find(op, kNs, q).docs.at(0), (Document{{"_id", 99}, {"n", 1}}));
    u = e.update(op, kNs, {{"g", 0}}, {{"$set", {{"flag", true}}}}, false, true, {});
    EXPECT_EQ(u.n, 1u);  // only _id 0 still has g == 0 (g of 1 was unset)
    EXPECT_EQ(e.metrics().opcounters.update, 3u);
    EXPECT_EQ(e.remove(op, kNs, {{"n", 0}}, false, {}).n, 2u);
    EXPECT_EQ(e.metrics().document.deleted, 2u);
    EXPECT_TRUE(e.validate(op, kNs).valid);
  });
}

// An engine answer (MongoDB's code) and a WiredTiger failure travel apart: BadValue (2) is not
// errno's ENOENT (2), and a unique index that cannot be built is an answer, not a failure.
TEST(Engine, CommandErrorsAreEngineCodesNeverWiredTigerFailures) {
  EngineHarness h;
  h.run([&](OperationContext& op) {
    DocumentEngine& e = h.engine();
    const Status no_db = e.create_collection(op, "nodot");
    EXPECT_EQ(no_db.code, ErrorCode::kBadValue);
    EXPECT_EQ(no_db.wt_code, 0);
    EXPECT_FALSE(no_db.ok());
    const WriteResult implicit = e.insert_many(op, "nodot", {{{"_id", 1}}}, {});
    ASSERT_EQ(implicit.errors.size(), 1u);
    EXPECT_EQ(implicit.errors[0].code, ErrorCode::kBadValue);
    EXPECT_TRUE(implicit.status.ok());  // the per-document error, not a command failure
    EXPECT_EQ(e.drop_index(op, "test.none", "x_1").code, ErrorCode::kNamespaceNotFound);
    ASSERT_TRUE(e.insert_many(op, kNs, {{{"_id", 1}, {"email", "a"}}, {{"_id", 2}, {"email", "a"}}}, {}).ok());
    EXPECT_EQ(e.drop_index(op, kNs, "x_1").code, ErrorCode::kIndexNotFound);
    EXPECT_EQ(e.set_expire_after(op, kNs, "x_1", Document(5)).code, ErrorCode::kIndexNotFound);
    const Status dup = e.create_index(op, kNs, index_on("email", true));
    EXPECT_EQ(dup.code, ErrorCode::kDuplicateKey);
    EXPECT_EQ(dup.wt_code, 0);
    EXPECT_EQ(e.catalog().find(kNs)->index("email_1"), nullptr);  // rolled back
    EXPECT_TRUE(e.create_index(op, kNs, index_on("_id")).ok());
  });
}

TEST(Engine, UniqueIndexAndIdRejectDuplicates) {
  EngineHarness h;
  h.run([&](OperationContext& op) {
    DocumentEngine& e = h.engine();
    ASSERT_TRUE(e.create_index(op, kNs, index_on("email", true)).ok());
    ASSERT_TRUE(e.insert_many(op, kNs, {{{"_id", 1}, {"email", "a"}}}, {}).ok());
    WriteResult w = e.insert_many(op, kNs, {{{"_id", 2}, {"email", "a"}}, {{"_id", 3}, {"email", "b"}}}, {}, /*ordered=*/true);
    ASSERT_EQ(w.errors.size(), 1u);
    EXPECT_EQ(w.errors[0].code, ErrorCode::kDuplicateKey);
    EXPECT_EQ(w.n, 0u);  // ordered: stops at the first error
    w = e.insert_many(op, kNs, {{{"_id", 1}, {"email", "c"}}, {{"_id", 3}, {"email", "b"}}}, {}, /*ordered=*/false);
    EXPECT_EQ(w.errors.size(), 1u);  // _id 1 exists
    EXPECT_EQ(w.n, 1u);
    EXPECT_TRUE(e.validate(op, kNs).valid);
    EXPECT_EQ(e.coll_stats(kNs)["count"], 2);
  });
}

TEST(Engine, MultikeyIndexDeduplicatesDocuments) {
  EngineHarness h;
  h.run([&](OperationContext& op) {
    DocumentEngine& e = h.engine();
    ASSERT_TRUE(e.create_index(op, kNs, index_on("tags")).ok());
    ASSERT_TRUE(e.insert_many(op, kNs, {{{"_id", 1}, {"tags", {1, 2, 3}}}, {{"_id", 2}, {"tags", {5}}}}, {}).ok());
    FindRequest q;
    q.filter = {{"tags", {{"$gte", 1}, {"$lte", 3}}}};
    FindResult r = e.find(op, kNs, q);
    ASSERT_EQ(r.docs.size(), 1u);
    const Document& ix = r.explain["executionStats"]["executionStages"]["inputStage"];
    EXPECT_EQ(ix["keysExamined"], 3);
    EXPECT_EQ(ix["dupsTested"], 3);
    EXPECT_EQ(ix["dupsDropped"], 2);
    EXPECT_EQ(index_keys(*e.catalog().find(kNs)->index("tags_1"), {{"tags", Document::array()}}).size(), 1u);
  });
}

TEST(Engine, ValidateFindsAMissingIndexEntry) {
  EngineHarness h;
  h.run([&](OperationContext& op) {
    DocumentEngine& e = h.engine();
    ASSERT_TRUE(e.create_index(op, kNs, index_on("g")).ok());
    ASSERT_TRUE(e.insert_many(op, kNs, docs(10), {}).ok());
    ASSERT_TRUE(e.validate(op, kNs).valid);
    // Remove one index entry behind the engine's back.
    const IndexSpec& spec = *e.catalog().find(kNs)->index("g_1");
    int ret = 0;
    WT_CURSOR* c = op.cursor(spec.table, &ret);
    ASSERT_NE(c, nullptr);
    ASSERT_EQ(c->next(c), 0);
    ASSERT_EQ(c->remove(c), 0);
    const ValidateResult v = e.validate(op, kNs);
    EXPECT_FALSE(v.valid);
    ASSERT_FALSE(v.errors.empty());
    EXPECT_NE(v.errors[0].find("g_1"), std::string::npos) << v.errors[0];
  });
}

TEST(Engine, DeleteCostsOneSearchAndOneRemovePlusOneRemovePerIndexKey) {
  EngineHarness h;
  int64_t removes_before = 0, removes_after = 0;
  h.run([&](OperationContext& op) {
    DocumentEngine& e = h.engine();
    ASSERT_TRUE(e.insert_many(op, kNs, docs(30), {}).ok());  // indexes: _id's only
    removes_before = e.server_status(op)["wiredTiger"]["cursor"]["cursor remove calls"].get<int64_t>();
    EXPECT_EQ(e.remove(op, kNs, {{"g", 1}}, false, {}).n, 6u);
    removes_after = e.server_status(op)["wiredTiger"]["cursor"]["cursor remove calls"].get<int64_t>();
  });
  EXPECT_EQ(removes_after - removes_before, 6 * 2);  // the account's "two remove calls for one delete": record and _id entry
}

TEST(Engine, CatalogAndDataSurviveARestart) {
  EngineHarness h;
  h.run([&](OperationContext& op) {
    ASSERT_TRUE(h.engine().create_index(op, kNs, index_on("g")).ok());
    ASSERT_TRUE(h.engine().insert_many(op, kNs, docs(10), {true}).ok());
  });
  h.reopen();
  h.run([&](OperationContext& op) {
    DocumentEngine& e = h.engine();
    ASSERT_NE(e.catalog().find(kNs), nullptr);
    ASSERT_NE(e.catalog().find(kNs)->index("g_1"), nullptr);
    EXPECT_EQ(e.coll_stats(kNs)["count"], 10);
    FindRequest q;
    q.filter = {{"g", 2}};
    EXPECT_EQ(e.find(op, kNs, q).docs.size(), 2u);
    EXPECT_TRUE(e.validate(op, kNs).valid);
    // New idents never collide with old ones.
    ASSERT_TRUE(e.create_collection(op, "test.other").ok());
    EXPECT_NE(e.catalog().find("test.other")->table, e.catalog().find(kNs)->table);
  });
}

std::vector<Document> ids_in_natural_order(DocumentEngine& e, OperationContext& op, const std::string& ns) {
  std::vector<Document> ids;
  for (const Document& d : e.find(op, ns, {}).docs) ids.push_back(d.at("_id"));
  return ids;
}

// MongoDB's WiredTiger record store keys records by RecordId: a scan returns them as inserted, and
// the next RecordId follows the highest stored one after a restart.
TEST(Engine, NaturalOrderIsInsertionOrderAndRecordIdsGoOnAfterARestart) {
  EngineHarness h;
  h.run([&](OperationContext& op) {
    DocumentEngine& e = h.engine();
    ASSERT_TRUE(e.insert_many(op, kNs, {{{"_id", 3}}, {{"_id", 1}}, {{"_id", 2}}}, {true}).ok());
    EXPECT_EQ(ids_in_natural_order(e, op, kNs), (std::vector<Document>{3, 1, 2}));
    ASSERT_TRUE(e.remove(op, kNs, {{"_id", 1}}, true, {true}).ok());
    ASSERT_TRUE(e.insert_many(op, kNs, {{{"_id", 0}}}, {true}).ok());
    EXPECT_EQ(ids_in_natural_order(e, op, kNs), (std::vector<Document>{3, 2, 0}));  // no slot reused
    EXPECT_EQ(e.insert_many(op, kNs, {{{"_id", 2}}}, {true}).errors.at(0).code, ErrorCode::kDuplicateKey);
    FindRequest by_id;
    by_id.filter = {{"_id", 0}};
    by_id.show_record_id = true;
    const FindResult r = e.find(op, kNs, by_id);
    ASSERT_EQ(r.docs.size(), 1u);
    EXPECT_EQ(r.docs[0]["$recordId"], 4);  // the failed duplicate took none
  });
  h.reopen();
  h.run([&](OperationContext& op) {
    DocumentEngine& e = h.engine();
    ASSERT_TRUE(e.insert_many(op, kNs, {{{"_id", -1}}}, {true}).ok());
    FindRequest all;
    all.show_record_id = true;
    std::vector<Document> record_ids;
    for (const Document& d : e.find(op, kNs, all).docs) record_ids.push_back(d.at("$recordId"));
    EXPECT_EQ(record_ids, (std::vector<Document>{1, 3, 4, 5}));
    EXPECT_TRUE(e.validate(op, kNs).valid);
  });
}

// MongoDB's WiredTiger record store deletes a capped collection's oldest documents in the insert
// that takes it past its maximum (cappedDeleteAsNeeded); an update never does.
TEST(Engine, ACappedCollectionLosesItsOldestDocumentsToTheInsertPastItsMaximum) {
  EngineHarness h;
  h.run([&](OperationContext& op) {
    DocumentEngine& e = h.engine();
    CollectionOptions capped;
    capped.capped_max_docs = 3;
    ASSERT_TRUE(e.create_collection(op, kNs, capped).ok());
    ASSERT_TRUE(e.create_index(op, kNs, index_on("g")).ok());
    std::vector<Document> five;
    for (int id = 5; id >= 1; --id) five.push_back({{"_id", id}, {"g", id % 2}});
    ASSERT_TRUE(e.insert_many(op, kNs, five, {true}).ok());
    EXPECT_EQ(ids_in_natural_order(e, op, kNs), (std::vector<Document>{3, 2, 1}));
    EXPECT_EQ(e.coll_stats(kNs)["count"], 3);
    ASSERT_TRUE(e.update(op, kNs, {{"_id", 3}}, {{"$set", {{"g", 2}}}}, false, false, {true}).ok());
    EXPECT_EQ(ids_in_natural_order(e, op, kNs), (std::vector<Document>{3, 2, 1}));
    EXPECT_TRUE(e.validate(op, kNs).valid);  // the trimmed documents' index entries went with them
  });
  h.reopen();
  h.run([&](OperationContext& op) {
    DocumentEngine& e = h.engine();
    ASSERT_TRUE(e.insert_many(op, kNs, {{{"_id", 0}, {"g", 0}}}, {true}).ok());
    EXPECT_EQ(ids_in_natural_order(e, op, kNs), (std::vector<Document>{2, 1, 0}));
    EXPECT_EQ(e.coll_stats(kNs)["count"], 3);
    EXPECT_TRUE(e.validate(op, kNs).valid);
    CollectionOptions clustered_capped;
    clustered_capped.clustered = true;
    clustered_capped.capped_max_docs = 3;
    EXPECT_EQ(e.create_collection(op, "test.cc", clustered_capped).code, ErrorCode::kInvalidOptions);
  });
}

TEST(Engine, AClusteredCollectionIsInIdOrderWithoutAnIdIndex) {
  EngineHarness h;
  h.run([&](OperationContext& op) {
    DocumentEngine& e = h.engine();
    CollectionOptions clustered;
    clustered.clustered = true;
    ASSERT_TRUE(e.create_collection(op, kNs, clustered).ok());
    EXPECT_TRUE(e.catalog().find(kNs)->indexes.empty());
    ASSERT_TRUE(e.insert_many(op, kNs, {{{"_id", 3}}, {{"_id", 1}}, {{"_id", 2}}}, {true}).ok());
    EXPECT_EQ(ids_in_natural_order(e, op, kNs), (std::vector<Document>{1, 2, 3}));
    EXPECT_EQ(e.insert_many(op, kNs, {{{"_id", 2}}}, {true}).errors.at(0).code, ErrorCode::kDuplicateKey);
    EXPECT_EQ(e.coll_stats(kNs)["nindexes"], 1);
  });
}

// docs/findings.md, finding 16: WiredTiger 3.2.1 cannot recover a log file that holds its header alone.
// A new log file is extended with zeros before use, durably, so no crash can leave one so. (A
// clean close trims the old files to their records.)
TEST(Engine, TheLiveLogFileIsDurablyZeroFilledBeyondItsRecords) {
  EngineHarness h;
  h.reopen();
  std::string live;
  for (const auto& f : h.disk().files()) {
    if (f.name.rfind("WiredTigerLog.", 0) == 0) live = std::max(live, f.name);
  }
  ASSERT_EQ(live, "WiredTigerLog.0000000002");
  const std::vector<uint8_t> durable = h.disk().durable_image(live);
  ASSERT_EQ(durable.size(), 100u * 1024);
  EXPECT_EQ(std::count(durable.end() - 1024, durable.end(), 0), 1024);
}

int64_t hammer_one_counter(LockPolicy policy, uint64_t* conflicts, sim::Nanos* elapsed_ns) {
  EngineHarness h(policy, 7);
  h.run([&](OperationContext& op) { ASSERT_TRUE(h.engine().insert_many(op, kNs, docs(1), {}).ok()); });
  const sim::Nanos start = h.sim().now_ns();
  h.run_concurrently(8, [&](int, OperationContext& op) {
    for (int i = 0; i < 25; ++i) {
      const WriteResult w = h.engine().update(op, kNs, {{"_id", 0}}, {{"$inc", {{"n", 1}}}}, false, false, {});
      ASSERT_TRUE(w.ok());
      ASSERT_EQ(w.n, 1u);
    }
  });
  *elapsed_ns = h.sim().now_ns() - start;
  *conflicts = h.engine().metrics().write_conflicts;
  int64_t n = -1;
  h.run([&](OperationContext& op) {
    FindRequest q;
    q.filter = {{"_id", 0}};
    n = h.engine().find(op, kNs, q).docs.at(0)["n"].get<int64_t>();
  });
  return n;
}

TEST(Engine, DocumentLockingRetriesWriteConflictsAndLosesNoIncrement) {
  uint64_t conflicts = 0;
  sim::Nanos elapsed = 0;
  EXPECT_EQ(hammer_one_counter(LockPolicy::kDocument, &conflicts, &elapsed), 200);
  EXPECT_GT(conflicts, 0u);
}

TEST(Engine, CollectionLockingSerializesWritersWithoutConflicts) {
  uint64_t conflicts = 0;
  sim::Nanos elapsed = 0;
  EXPECT_EQ(hammer_one_counter(LockPolicy::kCollection, &conflicts, &elapsed), 200);
  EXPECT_EQ(conflicts, 0u);
}

sim::Nanos bulk_insert_time(LockPolicy policy) {
  EngineHarness h(policy, 3);
  const sim::Nanos start = h.sim().now_ns();
  h.run_concurrently(4, [&](int c, OperationContext& op) {
    std::vector<Document> batch;
    for (int i = 0; i < 200; ++i) batch.push_back({{"_id", c * 1000 + i}, {"g", i}});
    ASSERT_TRUE(h.engine().insert_many(op, kNs, batch, {}).ok());
  });
  return h.sim().now_ns() - start;
}

TEST(Engine, DocumentLockingUsesBothCoresForConcurrentInserts) {
  const double ratio = static_cast<double>(bulk_insert_time(LockPolicy::kCollection)) /
                       static_cast<double>(bulk_insert_time(LockPolicy::kDocument));
  EXPECT_GT(ratio, 1.7);  // 2 cores: about 2x
  EXPECT_LT(ratio, 2.3);
}

TEST(KeyString, EncodingOrderMatchesValueOrder) {
  const std::vector<Document> ordered = {nullptr, -5.5, -1, 0, 2, 2.5, 1e9, "", "a", std::string("a\0b", 3), "ab", "b",
                                         Document::object(), Document::array({1}), false, true,
                                         make_date(-10), make_date(0), make_date(5)};
  for (size_t i = 0; i + 1 < ordered.size(); ++i) {
    EXPECT_LT(compare_values(ordered[i], ordered[i + 1]), 0) << ordered[i] << " vs " << ordered[i + 1];
    EXPECT_LT(key_of(ordered[i]), key_of(ordered[i + 1])) << ordered[i] << " vs " << ordered[i + 1];
    std::string desc_a, desc_b;
    append_key_value(desc_a, ordered[i], true);
    append_key_value(desc_b, ordered[i + 1], true);
    EXPECT_GT(desc_a, desc_b);
    EXPECT_EQ(encoded_value_length(key_of(ordered[i]) + "tail", 0), key_of(ordered[i]).size());
    EXPECT_EQ(encoded_value_length(desc_a + "tail", 0), desc_a.size());
  }
}

}  // namespace
}  // namespace wtsim::engine
