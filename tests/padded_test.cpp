// MMAPv1-style record allocation and the padded record store on WiredTiger: allocation sizes,
// extents, free lists, the paddingFactor heuristic, moves, and the layout oracle after each step.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "engine/bson.h"
#include "engine/mmap_allocator.h"
#include "engine/padded_store.h"
#include "models/extent_layout.h"
#include "properties/padded_properties.h"
#include "properties/padded_tables.h"
#include "tests/engine_harness.h"

namespace wtsim::engine {
namespace {

const char* kNs = "pad.c";

TEST(MmapAllocator, AllocationSizesFollowThePaddingMode) {
  MmapAllocator pf;
  EXPECT_EQ(pf.allocation_size(84), 100u);  // len = BSON + 16-byte header, times paddingFactor 1.0
  MmapAllocator pow2({true, false});
  EXPECT_EQ(pow2.allocation_size(84), 128u);   // the first bucket strictly larger than 100
  EXPECT_EQ(pow2.allocation_size(112), 256u);  // 128 is not strictly larger than 128
  MmapAllocator exact({false, true});
  EXPECT_EQ(exact.allocation_size(85), 101u);
}

TEST(MmapAllocator, ExtentsGrowByTheExtentManagersRules) {
  MmapAllocator a;
  std::vector<uint64_t> extents;
  for (int i = 0; i < 20000; ++i) a.allocate(100, &extents, nullptr, nullptr);
  // 100 * 64 = 6400 -> 8 KB; then x4 while below 4,000,000; then x1.35, aligned to 4 KB.
  ASSERT_GE(extents.size(), 4u);
  EXPECT_EQ(extents[0], 8192u);
  EXPECT_EQ(extents[1], 32768u);
  EXPECT_EQ(extents[2], 131072u);
  EXPECT_EQ(extents[3], 524288u);
  EXPECT_EQ(a.storage_bytes(), [&] { uint64_t t = 0; for (auto e : extents) t += e; return t; }());
}

// Best fit within a bucket; a region is split only when the rest is at least 24 bytes and an
// eighth of the record, and 2.6 rounds the record it splits off up to a sixteenth of its bucket.
TEST(MmapAllocator, FreeListBestFitSplitsOrTakesWhole) {
  MmapAllocator a;
  const Region big = a.allocate(400, nullptr, nullptr, nullptr);
  EXPECT_EQ(big.length, 416u);  // 512's sixteenth is 32
  const Region small = a.allocate(104, nullptr, nullptr, nullptr);
  EXPECT_EQ(small.length, 104u);  // a multiple of 128's sixteenth
  a.release(big);
  a.release(small);
  // 100 bytes (rounded to 4): best fit is the 104-byte region, leftover 4 < 24: taken whole.
  Region r = a.allocate(100, nullptr, nullptr, nullptr);
  EXPECT_EQ(r.loc, small.loc);
  EXPECT_EQ(r.length, 104u);
  // 200 bytes from the 416-byte region: leftover >= 24 and >= 200/8: split at 208 (256's sixteenth is 16).
  std::vector<Region> added;
  r = a.allocate(200, nullptr, nullptr, &added);
  EXPECT_EQ(r.loc, big.loc);
  EXPECT_EQ(r.length, 208u);
  ASSERT_EQ(added.size(), 1u);
  EXPECT_EQ(added[0].length, 208u);
}

// 2.6's quantizeAllocationSpace (its unit tests' values, r2.6.0 dbtests/namespacetests.cpp) and
// the 8192-byte first extent every collection gets; use_power_of_2.js's 14 KB document takes a
// 15360-byte record in the second extent. 1.x does neither.
TEST(MmapAllocator, TwoSixQuantizesSplitRecordsAndStartsWithAnEightKilobyteExtent) {
  for (const auto& [n, quantized] : std::vector<std::pair<uint32_t, uint32_t>>{
           {33, 36}, {1000, 1024}, {10001, 10240}, {100000, 106496}, {1000001, 1048576}}) {
    MmapAllocator a;
    EXPECT_EQ(a.allocate(n, nullptr, nullptr, nullptr).length, quantized) << n;
  }
  MmapAllocator a;
  std::vector<uint64_t> extents;
  const Region r = a.allocate(a.allocation_size(14362), &extents, nullptr, nullptr);
  EXPECT_EQ(r.length, 15360u);  // 14378 with the header, 14380 aligned, a sixteenth of 16 KB
  EXPECT_EQ(r.loc, (RecordLoc{1, MmapAllocator::kExtentHeaderBytes}));
  EXPECT_EQ(extents, (std::vector<uint64_t>{8192, 233472}));  // then max(14380 * 16, 4 * 8192), in 4 KB
  EXPECT_EQ(a.free_regions().front().length, 8192u - MmapAllocator::kExtentHeaderBytes);  // the first, unused
  MmapAllocator old({false, false, MmapAllocator::PaddingRules::kV1x});
  std::vector<uint64_t> old_extents;
  EXPECT_EQ(old.allocate(old.allocation_size(14362), &old_extents, nullptr, nullptr).length, 14380u);
  EXPECT_EQ(old_extents.size(), 1u);
}

TEST(MmapAllocator, PaddingHeuristicSamplesOneCallInFourAndStaysInRange) {
  MmapAllocator a;
  for (int i = 0; i < 3; ++i) a.padding_too_small(1);
  EXPECT_EQ(a.padding_factor(), 1.0);
  a.padding_too_small(1);  // the fourth call acts: + 0.001 * (1 + 3)
  EXPECT_DOUBLE_EQ(a.padding_factor(), 1.004);
  for (int i = 0; i < 4; ++i) a.padding_too_small(20);  // min(nIndexes, 7) + 3 = 10
  EXPECT_DOUBLE_EQ(a.padding_factor(), 1.014);
  for (int i = 0; i < 100000; ++i) a.padding_too_small(7);
  EXPECT_LE(a.padding_factor(), 2.0);
  EXPECT_GT(a.padding_factor(), 1.99);
  for (int i = 0; i < 100000; ++i) a.padding_fits();
  EXPECT_GE(a.padding_factor(), 1.0);
  EXPECT_LT(a.padding_factor(), 1.001);
}

constexpr MmapAllocator::Options kV1x{false, false, MmapAllocator::PaddingRules::kV1x};

// MongoDB 1.x (namespace.h of 1.6-1.8): every call acts; a move adds 0.6, a fit takes 0.01,
// and neither may leave [1.0, 2.0].
TEST(MmapAllocator, PaddingHeuristicOf1xIsPlusPointSixMinusPointZeroOneWithinOneAndTwo) {
  MmapAllocator a(kV1x);
  a.padding_fits();  // 0.99 would leave the range: not applied
  EXPECT_EQ(a.padding_factor(), 1.0);
  a.padding_too_small(1);
  EXPECT_DOUBLE_EQ(a.padding_factor(), 1.6);
  a.padding_too_small(1);  // 2.2 would leave the range
  EXPECT_DOUBLE_EQ(a.padding_factor(), 1.6);
  for (int i = 0; i < 19; ++i) a.padding_fits();
  EXPECT_NEAR(a.padding_factor(), 1.41, 1e-9);  // the account's 1.4099999999940787, within rounding
  a.padding_too_small(7);  // 2.01 would leave the range; the number of indexes plays no part
  EXPECT_NEAR(a.padding_factor(), 1.41, 1e-9);
  for (int i = 0; i < 100; ++i) a.padding_fits();  // down in 0.01 steps, never below 1.0
  EXPECT_GE(a.padding_factor(), 1.0);
  EXPECT_LT(a.padding_factor(), 1.01);
  a.padding_too_small(1);
  const double after_move = a.padding_factor();
  EXPECT_NEAR(after_move, 1.6, 0.011);
  a.padding_too_small(1);  // + 0.6 would pass 2.0
  EXPECT_EQ(a.padding_factor(), after_move);
}

// 1.x extents: 4x while the last is below 4,000,000 bytes, then 1.2x, rounded down to 256 bytes.
TEST(MmapAllocator, ExtentsOf1xGrowFourTimesThenOnePointTwo) {
  MmapAllocator a(kV1x);
  std::vector<uint64_t> extents;
  for (int i = 0; i < 120000; ++i) a.allocate(100, &extents, nullptr, nullptr);
  ASSERT_GE(extents.size(), 7u);
  EXPECT_EQ(extents[0], 6400u);  // 100 * 64, already a multiple of 256
  EXPECT_EQ(extents[1], 25600u);
  EXPECT_EQ(extents[4], 1638400u);
  EXPECT_EQ(extents[5], 6553600u);               // 1,638,400 < 4,000,000: still 4x
  EXPECT_EQ(extents[6], 7864320u);  // then (int)(6553600 * 1.2), a multiple of 256 already
}

TEST(MmapAllocator, RollbackUndoesAUnitOfWork) {
  MmapAllocator a;
  a.allocate(100, nullptr, nullptr, nullptr);
  const auto extents = a.extents();
  const auto free = a.free_regions();
  a.begin();
  const Region r = a.allocate(5000, nullptr, nullptr, nullptr);  // a new extent
  a.release(r);
  for (int i = 0; i < 4; ++i) a.padding_too_small(1);
  a.rollback();
  EXPECT_EQ(a.extents(), extents);
  ASSERT_EQ(a.free_regions().size(), free.size());
  EXPECT_EQ(a.padding_factor(), 1.0);
}

TEST(ExtentLayout, TheOracleFindsOverlapsGapsAndHeaderDamage) {
  const std::vector<uint64_t> extents = {4096};
  EXPECT_TRUE(models::check_extent_layout(extents, 176, {{0, 176, 1000}}, {{0, 1176, 2920}}).ok);
  EXPECT_FALSE(models::check_extent_layout(extents, 176, {{0, 176, 1000}}, {{0, 1100, 2996}}).ok);  // overlap
  EXPECT_FALSE(models::check_extent_layout(extents, 176, {{0, 176, 1000}}, {{0, 1200, 2896}}).ok);  // gap
  EXPECT_FALSE(models::check_extent_layout(extents, 176, {{0, 100, 1076}}, {{0, 1176, 2920}}).ok);  // header
  EXPECT_FALSE(models::check_extent_layout(extents, 176, {{0, 176, 4000}}, {}).ok);                 // past end
}

std::vector<properties::Finding> layout_problems(DocumentEngine& e, OperationContext& op) {
  PaddedLayout layout;
  EXPECT_EQ(properties::read_padded_layout(op.session(), e, kNs, &layout), 0);
  return properties::check_padded_layout(kNs, layout);
}

TEST(PaddedStore, GrowingDocumentsMoveAndRewriteEveryIndexEntry) {
  EngineHarness h;
  h.run([&](OperationContext& op) {
    DocumentEngine& e = h.engine();
    CollectionOptions options;
    options.padded = true;
    ASSERT_TRUE(e.create_collection(op, kNs, options).ok());
    ASSERT_TRUE(e.create_index(op, kNs, {"g_1", {{"g", 1}}, false, std::nullopt, ""}).ok());
    ASSERT_TRUE(e.insert_many(op, kNs, {{{"_id", 1}, {"g", 5}}, {{"_id", 2}, {"g", 6}}}, {}).ok());
    auto rid_of = [&](int id) {
      FindRequest q;
      q.filter = {{"_id", id}};
      return e.find(op, kNs, q).explain["executionStats"]["executionStages"]["inputStage"]["keysExamined"];
    };
    EXPECT_EQ(rid_of(1), 1);  // found through the _id index: padded records are keyed by RecordId
    // Shrinking and same-size updates stay in place; growing past netLength moves.
    ASSERT_TRUE(e.update(op, kNs, {{"_id", 1}}, {{"$set", {{"g", 7}}}}, false, false, {}).ok());
    EXPECT_EQ(e.metrics().record_moves, 0u);
    ASSERT_TRUE(e.update(op, kNs, {{"_id", 1}}, {{"$set", {{"blob", std::string(500, 'x')}}}}, false, false, {}).ok());
    EXPECT_EQ(e.metrics().record_moves, 1u);
    EXPECT_TRUE(e.validate(op, kNs).valid);  // every entry points at the new RecordId
    FindRequest by_g;
    by_g.filter = {{"g", 7}};
    ASSERT_EQ(e.find(op, kNs, by_g).docs.size(), 1u);
    EXPECT_TRUE(layout_problems(e, op).empty());
    const Document stats = e.coll_stats(kNs);
    EXPECT_EQ(stats["count"], 2);
    EXPECT_EQ(stats["numExtents"], 1);
    EXPECT_EQ(stats["nindexes"], 2);
    EXPECT_GT(stats["paddingFactor"].get<double>(), 0.99);
  });
}

// A record holds its 16-byte header and its document: with exact allocation a document one byte
// larger no longer fits, so it moves; record_holds_document reports a record that kept it.
TEST(PaddedStore, ADocumentGrownIntoItsRecordsHeaderBytesMovesAndTheCheckSeesOneThatDidNot) {
  EngineHarness h;
  h.run([&](OperationContext& op) {
    DocumentEngine& e = h.engine();
    CollectionOptions options;
    options.padded = true;
    options.no_padding = true;
    ASSERT_TRUE(e.create_collection(op, kNs, options).ok());
    ASSERT_TRUE(e.insert_many(op, kNs, {{{"_id", 1}, {"s", "aaaa"}}}, {}).ok());
    PaddedLayout layout;
    ASSERT_EQ(properties::read_padded_layout(op.session(), e, kNs, &layout), 0);
    ASSERT_EQ(layout.records.size(), 1u);
    const uint32_t bson_bytes = static_cast<uint32_t>(to_bson(Document{{"_id", 1}, {"s", "aaaa"}}).size());
    EXPECT_EQ(layout.record_stored_bytes[0], bson_bytes);
    const uint32_t length = layout.records[0].length;
    ASSERT_GE(length, bson_bytes + 16);  // header and document, rounded up to whole words
    ASSERT_LT(length, bson_bytes + 16 + 8);
    EXPECT_TRUE(properties::check_padded_layout(kNs, layout).empty());

    PaddedLayout full = layout;  // a document that fills its record to the last byte
    full.record_stored_bytes[0] = length - 16;
    EXPECT_TRUE(properties::check_padded_layout(kNs, full).empty());
    PaddedLayout overrun = layout;  // one byte into the next record
    overrun.record_stored_bytes[0] = length - 16 + 1;
    const auto findings = properties::check_padded_layout(kNs, overrun);
    ASSERT_EQ(findings.size(), 1u);
    EXPECT_EQ(findings[0].first, properties::Property::kRecordHoldsDocument);

    const std::string grown(4 + (length - 16 - bson_bytes) + 1, 'a');  // one byte past the record
    ASSERT_TRUE(e.update(op, kNs, {{"_id", 1}}, {{"$set", {{"s", grown}}}}, false, false, {}).ok());
    EXPECT_EQ(e.metrics().record_moves, 1u);
    EXPECT_TRUE(layout_problems(e, op).empty());
  });
}

// Under 1.x a move calls paddingTooSmall, then its reinsert calls paddingFits before sizing the
// new record: a move nets +0.59, and the moved record is sized with the new factor.
TEST(PaddedStore, A1xMoveNetsPlusPointFiftyNineAndSizesWithTheNewFactor) {
  EngineHarness h;
  h.run([&](OperationContext& op) {
    DocumentEngine& e = h.engine();
    CollectionOptions options;
    options.padded = true;
    options.padding_rules = MmapAllocator::PaddingRules::kV1x;
    ASSERT_TRUE(e.create_collection(op, kNs, options).ok());
    ASSERT_TRUE(e.insert_many(op, kNs, {{{"_id", 1}}}, {}).ok());
    EXPECT_EQ(e.coll_stats(kNs)["paddingFactor"].get<double>(), 1.0);
    ASSERT_TRUE(e.update(op, kNs, {{"_id", 1}}, {{"$set", {{"blob", std::string(100, 'x')}}}}, false, false, {}).ok());
    EXPECT_EQ(e.metrics().record_moves, 1u);
    EXPECT_NEAR(e.coll_stats(kNs)["paddingFactor"].get<double>(), 1.59, 1e-9);
    // The moved record: (int)((BSON + 16) * 1.59) rounded up to 4 bytes; its size counts netLength.
    const std::vector<uint8_t> bson = to_bson(Document{{"_id", 1}, {"blob", std::string(100, 'x')}});
    const auto expected = (static_cast<uint32_t>((bson.size() + 16) * 1.59) + 3) / 4 * 4;
    EXPECT_EQ(e.coll_stats(kNs)["size"].get<int64_t>(), static_cast<int64_t>(expected) - 16);
    ASSERT_TRUE(e.update(op, kNs, {{"_id", 1}}, {{"$set", {{"n", 1}}}}, false, false, {}).ok());  // fits in place
    EXPECT_EQ(e.metrics().record_moves, 1u);
    EXPECT_NEAR(e.coll_stats(kNs)["paddingFactor"].get<double>(), 1.58, 1e-9);
    EXPECT_TRUE(layout_problems(e, op).empty());
  });
}

TEST(PaddedStore, LayoutAndAllocatorSurviveManyOperationsAndARestart) {
  EngineHarness h;
  sim::Rng rng(11);
  h.run([&](OperationContext& op) {
    DocumentEngine& e = h.engine();
    CollectionOptions options;
    options.padded = true;
    ASSERT_TRUE(e.create_collection(op, kNs, options).ok());
    for (int step = 0; step < 1500; ++step) {
      const int id = static_cast<int>(rng.below(200));
      const uint64_t pick = rng.below(10);
      if (pick < 4) {
        e.insert_many(op, kNs, {{{"_id", id}, {"pad", std::string(rng.below(50), 'p')}}}, {});
      } else if (pick < 8) {
        const std::string field = "f" + std::to_string(rng.below(6));
        e.update(op, kNs, {{"_id", id}}, {{"$inc", {{field, 1}}}}, true, false, {});
      } else {
        e.remove(op, kNs, {{"_id", id}}, true, {});
      }
      if (step % 100 == 99) {
        ASSERT_TRUE(layout_problems(e, op).empty()) << "step " << step << ": " << layout_problems(e, op).front().second;
        ASSERT_TRUE(e.validate(op, kNs).valid) << "step " << step;
      }
    }
    EXPECT_GT(e.metrics().record_moves, 100u);
    const double pf = e.coll_stats(kNs)["paddingFactor"].get<double>();
    EXPECT_GT(pf, 1.0);
    EXPECT_LE(pf, 2.0);
  });
  h.reopen();
  h.run([&](OperationContext& op) {
    EXPECT_TRUE(layout_problems(h.engine(), op).empty());
    EXPECT_TRUE(h.engine().validate(op, kNs).valid);
  });
}

// MMAPv1's collection scan walks the extents in order and each extent's record list, and a new
// record is appended to its extent's list (r2.6.0 record_store.cpp, _addRecordToRecListInExtent):
// a document placed in a freed slot comes after its extent's older records, not where the freed
// one was, and before every record of a later extent.
struct Placed {
  std::vector<int> ids;              // natural order
  std::map<int, int64_t> disk_locs;  // $recordId: extent << 32 | offset
};

Placed natural_order(DocumentEngine& e, OperationContext& op) {
  FindRequest all;
  all.show_record_id = true;
  Placed out;
  for (const Document& d : e.find(op, kNs, all).docs) {
    out.ids.push_back(d.at("_id").get<int>());
    out.disk_locs[out.ids.back()] = d.at("$recordId").get<int64_t>();
  }
  return out;
}

Document sized_doc(int id) { return {{"_id", id}, {"pad", std::string(1000, 'p')}}; }

TEST(PaddedStore, AReusedSlotComesLastInItsExtentsRecordListAndBeforeLaterExtents) {
  EngineHarness h;
  h.run([&](OperationContext& op) {
    DocumentEngine& e = h.engine();
    CollectionOptions options;
    options.padded = true;
    ASSERT_TRUE(e.create_collection(op, kNs, options).ok());
    int next_id = 1;
    while (e.coll_stats(kNs)["numExtents"].get<int>() < 2) ASSERT_TRUE(e.insert_many(op, kNs, {sized_doc(next_id++)}, {}).ok());
    ASSERT_TRUE(e.insert_many(op, kNs, {sized_doc(next_id++)}, {}).ok());  // two in the second extent
    const Placed before = natural_order(e, op);
    ASSERT_EQ(before.ids.front(), 1);
    ASSERT_GE(before.ids.size(), 4u);
    for (size_t i = 1; i < before.ids.size(); ++i) ASSERT_LT(before.disk_locs.at(before.ids[i - 1]), before.disk_locs.at(before.ids[i]));
    ASSERT_TRUE(e.remove(op, kNs, {{"_id", 1}}, true, {}).ok());
    const int reused = next_id++;
    ASSERT_TRUE(e.insert_many(op, kNs, {sized_doc(reused)}, {}).ok());
    const Placed after = natural_order(e, op);
    EXPECT_EQ(after.disk_locs.at(reused), before.disk_locs.at(1));  // the freed slot, at the first offset
    std::vector<int> expected;  // extent 0's survivors, the new document, then extent 1's
    for (const int id : before.ids) {
      if (id != 1 && (before.disk_locs.at(id) >> 32) == 0) expected.push_back(id);
    }
    expected.push_back(reused);
    for (const int id : before.ids) {
      if ((before.disk_locs.at(id) >> 32) == 1) expected.push_back(id);
    }
    EXPECT_EQ(after.ids, expected);
    EXPECT_TRUE(layout_problems(e, op).empty());
  });
  h.reopen();  // each extent's list goes on from its last record
  h.run([&](OperationContext& op) {
    DocumentEngine& e = h.engine();
    const Placed before = natural_order(e, op);
    ASSERT_TRUE(e.remove(op, kNs, {{"_id", before.ids.front()}}, true, {}).ok());
    ASSERT_TRUE(e.insert_many(op, kNs, {sized_doc(1000)}, {}).ok());
    const Placed after = natural_order(e, op);
    EXPECT_EQ(after.disk_locs.at(1000), before.disk_locs.at(before.ids.front()));
    EXPECT_EQ(after.ids.size(), before.ids.size());
    const auto at = std::find(after.ids.begin(), after.ids.end(), 1000);
    ASSERT_NE(at, after.ids.end());
    ASSERT_NE(at + 1, after.ids.end());
    EXPECT_EQ(after.disk_locs.at(*(at + 1)) >> 32, 1);  // last of extent 0
    EXPECT_EQ(after.disk_locs.at(*(at - 1)) >> 32, 0);
    EXPECT_TRUE(e.validate(op, kNs).valid);
    EXPECT_TRUE(layout_problems(e, op).empty());
  });
}

}  // namespace
}  // namespace wtsim::engine

namespace wtsim::engine {
namespace {

// An MMAPv1 collection locks as MMAPv1 does whatever the node's policy: a find takes the
// collection in S, so it waits while another client holds the collection in IX (a document-level
// writer's mode). Under document intent locks (IS) it would read at once.
TEST(PaddedStore, FindsOnAnMmapv1CollectionTakeTheCollectionsOwnLockPolicy) {
  EngineHarness h(LockPolicy::kDocument);
  h.run([&](OperationContext& op) {
    CollectionOptions options;
    options.padded = true;
    ASSERT_TRUE(h.engine().create_collection(op, kNs, options).ok());
    ASSERT_TRUE(h.engine().insert_many(op, kNs, {{{"_id", 1}}}, {}).ok());
  });
  const std::string coll = collection_resource("pad", "c");
  sim::Nanos found_at_ns = 0;
  h.run_concurrently(2, [&](int i, OperationContext& op) {
    if (i == 0) {
      h.engine().locks().lock(kGlobalResource, LockMode::kIX);
      h.engine().locks().lock(db_resource("pad"), LockMode::kIX);
      h.engine().locks().lock(coll, LockMode::kIX);
      h.sim().sleep_for(50 * sim::kNsPerMs);
      h.engine().locks().unlock(coll, LockMode::kIX);
      h.engine().locks().unlock(db_resource("pad"), LockMode::kIX);
      h.engine().locks().unlock(kGlobalResource, LockMode::kIX);
      return;
    }
    h.sim().sleep_for(sim::kNsPerMs);  // after the holder
    const sim::Nanos start_ns = h.sim().now_ns();
    FindRequest q;
    q.filter = {{"_id", 1}};
    EXPECT_EQ(h.engine().find(op, kNs, q).docs.size(), 1u);
    found_at_ns = h.sim().now_ns() - start_ns;
  });
  EXPECT_GE(found_at_ns, 49 * sim::kNsPerMs);  // it waited for the IX holder
}

// record_layout reads the three tables itself (properties/padded_tables.h): a free-list row that
// overlaps a record is seen as the row says, and a row not in the format is refused, whatever the
// record store's own loader would make of it.
TEST(PaddedStore, TheLayoutCheckReadsTheRowsThemselves) {
  EngineHarness h;
  h.run([&](OperationContext& op) {
    DocumentEngine& e = h.engine();
    CollectionOptions options;
    options.padded = true;
    ASSERT_TRUE(e.create_collection(op, kNs, options).ok());
    ASSERT_TRUE(e.insert_many(op, kNs, {{{"_id", 1}}, {{"_id", 2}}}, {}).ok());
    PaddedLayout layout;
    ASSERT_EQ(properties::read_padded_layout(op.session(), e, kNs, &layout), 0);
    ASSERT_EQ(layout.records.size(), 2u);
    EXPECT_EQ(layout.extents, layout.memory_extents);
    EXPECT_TRUE(properties::check_padded_layout(kNs, layout).empty());

    const std::string free_uri = e.catalog().find(kNs)->table + "-free";
    WT_CURSOR* c = nullptr;
    ASSERT_EQ(op.session()->open_cursor(op.session(), free_uri.c_str(), nullptr, nullptr, &c), 0);
    const RecordLoc first = layout.records[0].loc;  // a free region over the first record
    std::string key(8, '\0'), value(4, '\0');
    for (int i = 0; i < 8; ++i) key[i] = static_cast<char>(first.packed() >> (56 - 8 * i));
    value[3] = 64;
    WT_ITEM k{}, v{};
    k.data = key.data(), k.size = key.size(), v.data = value.data(), v.size = value.size();
    c->set_key(c, &k);
    c->set_value(c, &v);
    ASSERT_EQ(c->insert(c), 0);
    const auto findings = layout_problems(e, op);
    ASSERT_FALSE(findings.empty());
    EXPECT_EQ(findings[0].first, properties::Property::kRecordLayout);

    v.size = 3;  // not a length
    c->set_key(c, &k);
    c->set_value(c, &v);
    ASSERT_EQ(c->insert(c), 0);
    EXPECT_EQ(properties::read_padded_layout(op.session(), e, kNs, &layout), EINVAL);
    c->close(c);
  });
}

}  // namespace
}  // namespace wtsim::engine
