// no_orphan_tables (properties/catalog_tables.h) and the engine's start that it judges
// (engine/unnamed_tables.h): a dropped collection's tables stay on disk until the next start,
// which drops every table of the engine's that no catalog row names.
#include "properties/catalog_tables.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "engine/wt_schema.h"
#include "tests/engine_harness.h"

namespace wtsim::engine {
namespace {

std::vector<properties::Finding> findings(OperationContext& op) {
  std::vector<std::string> tables;
  std::vector<std::string> rows;
  EXPECT_EQ(properties::read_tables_and_catalog(op.session(), &tables, &rows), 0);
  EXPECT_FALSE(tables.empty());
  return properties::check_tables_named(tables, rows);
}

bool on_disk(const EngineHarness& h, const std::string& file) {
  const auto& files = h.disk().files();
  return std::any_of(files.begin(), files.end(), [&](const auto& f) { return f.name == file; });
}

TEST(OrphanTables, ADroppedCollectionsTablesGoAtTheNextStart) {
  EngineHarness h;
  std::vector<std::string> tables;  // the collection's, then its indexes'
  h.run([&](OperationContext& op) {
    DocumentEngine& e = h.engine();
    ASSERT_TRUE(e.create_index(op, "db.gone", {"a_1", {{"a", 1}}, false, std::nullopt, ""}).ok());
    ASSERT_TRUE(e.insert_many(op, "db.kept", {{{"_id", 1}}}, {}).ok());
    const CollectionSpec& coll = *e.catalog().find("db.gone");
    tables = {coll.table, coll.indexes[0].table, coll.indexes[1].table};
    EXPECT_TRUE(findings(op).empty());
    ASSERT_TRUE(e.drop_collection(op, "db.gone").ok());
    // Until the next start the tables stay: an operation may still hold a cursor on them.
    const std::vector<properties::Finding> orphans = findings(op);
    ASSERT_EQ(orphans.size(), 3u);
    for (size_t i = 0; i < 3; ++i) {
      EXPECT_EQ(orphans[i].first, properties::Property::kNoOrphanTables);
      EXPECT_NE(orphans[i].second.find(tables[i]), std::string::npos) << orphans[i].second;
    }
  });
  const std::string file = tables[0].substr(6) + ".wt";
  EXPECT_TRUE(on_disk(h, file));
  h.reopen();
  EXPECT_EQ(h.engine().tables_dropped_at_open(), tables);
  EXPECT_FALSE(on_disk(h, file));
  h.run([&](OperationContext& op) {
    EXPECT_TRUE(findings(op).empty());
    EXPECT_NE(h.engine().catalog().find("db.kept"), nullptr);  // a named table stays
    EXPECT_EQ(h.engine().find(op, "db.kept", {}).docs.size(), 1u);
  });
  h.reopen();
  EXPECT_TRUE(h.engine().tables_dropped_at_open().empty());
}

TEST(OrphanTables, TheRemainsOfADdlACrashCutShortGoAtRecovery) {
  EngineHarness h;
  h.run([&](OperationContext& op) {
    // A createIndex cut between its table and its catalog row, after a checkpoint made it durable.
    ASSERT_EQ(create_table(op.session(), "table:i900", "key_format=u,value_format=u"), 0);
    ASSERT_EQ(op.session()->checkpoint(op.session(), nullptr), 0);
  });
  h.crash_and_recover();
  EXPECT_EQ(h.engine().tables_dropped_at_open(), std::vector<std::string>{"table:i900"});
  h.run([&](OperationContext& op) { EXPECT_TRUE(findings(op).empty()); });
}

TEST(OrphanTables, TheEnginesOwnTablesAndAPaddedCollectionsSideTablesAreNamed) {
  EngineHarness h;
  h.config().oplog_term = 1;  // a replica set's member: minValid may exist
  h.reopen();
  h.run([&](OperationContext& op) {
    CollectionOptions padded;
    padded.padded = true;
    ASSERT_TRUE(h.engine().create_collection(op, "db.p", padded).ok());
    ASSERT_TRUE(h.engine().insert_many(op, "db.p", {{{"_id", 1}}}, {}).ok());
    ASSERT_EQ(create_table(op.session(), "table:replset_election", "key_format=q,value_format=q"), 0);
    EXPECT_TRUE(findings(op).empty());
  });
  h.reopen();
  EXPECT_TRUE(h.engine().tables_dropped_at_open().empty());
}

TEST(OrphanTables, TheReferenceReadsTheRowsItself) {
  using properties::check_tables_named;
  const std::string row =
      R"({"ns":"db.c","table":"table:c3","padded":true,"indexes":[{"name":"_id_","table":"table:i4"}]})";
  EXPECT_TRUE(check_tables_named({"table:_catalog", "table:oplog", "table:c3", "table:c3-free", "table:c3-extents", "table:i4"}, {row})
                  .empty());
  const auto unnamed = check_tables_named({"table:c3", "table:i4", "table:i5", "table:scratch"}, {row});
  ASSERT_EQ(unnamed.size(), 2u);
  EXPECT_EQ(unnamed[0].second, "table:i5 is named by no catalog row");
  EXPECT_EQ(unnamed[1].second, "table:scratch is named by no catalog row");
  // A padded flag off: the side tables are no collection's.
  const std::string plain = R"({"ns":"db.c","table":"table:c3","indexes":[]})";
  EXPECT_EQ(check_tables_named({"table:c3", "table:c3-free"}, {plain}).size(), 1u);
  // A row that does not read as a catalog entry: nothing is judged (the recovery checks judge it).
  EXPECT_TRUE(check_tables_named({"table:i5"}, {"{not json"}).empty());
  EXPECT_TRUE(check_tables_named({"table:i5"}, {R"({"ns":"db.c"})"}).empty());
  // Many orphans: each up to the limit, then one count.
  std::vector<std::string> many;
  for (int i = 0; i < 25; ++i) many.push_back("table:i" + std::to_string(100 + i));
  const auto capped = check_tables_named(many, {});
  ASSERT_EQ(capped.size(), 21u);
  EXPECT_EQ(capped.back().second, "25 tables in all are named by no catalog row");
}

}  // namespace
}  // namespace wtsim::engine
