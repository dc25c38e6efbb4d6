// The model of deleted index entries still in WiredTiger's memory (engine/deleted_entries.h):
// which tombstones a scan steps over, which leave memory after it, and against a plain list.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "engine/deleted_entries.h"

namespace wtsim::engine {
namespace {

constexpr sim::Nanos kEvictNs = 250;

std::string key(int i) {
  std::string digits = std::to_string(i);
  return "k" + std::string(4 - std::min<size_t>(4, digits.size()), '0') + digits;
}

std::vector<IndexEdit> removals(const std::string& table, int from, int to) {
  std::vector<IndexEdit> out;
  for (int i = from; i < to; ++i) out.push_back({table, key(i), true});
  return out;
}

TEST(DeletedEntries, AScanStepsOverTheTombstonesInItsRangeOnly) {
  DeletedEntries d;
  d.committed(removals("index:a", 0, 100), 0);
  d.committed(removals("index:b", 0, 7), 0);
  EXPECT_EQ(d.walk("index:a", "", key(40), 10, kEvictNs), 40u);  // [start, first live entry)
  EXPECT_EQ(d.walk("index:a", key(40), std::nullopt, 10, kEvictNs), 60u);
  EXPECT_EQ(d.walk("index:a", key(10), key(20), 10, kEvictNs), 10u);
  EXPECT_EQ(d.walk("index:c", "", std::nullopt, 10, kEvictNs), 0u);  // another index: nothing
  EXPECT_EQ(d.tracked(), 107u);  // all younger than the eviction delay: still in memory
}

TEST(DeletedEntries, WalkedTombstonesLeaveMemoryOnceOldEnoughUnwalkedOnesStay) {
  DeletedEntries d;
  d.committed(removals("i", 0, 50), 0);
  d.committed(removals("i", 50, 100), 200);
  EXPECT_EQ(d.walk("i", "", key(80), 260, kEvictNs), 80u);  // 0-49 are 260 old: evicted
  EXPECT_EQ(d.walk("i", "", key(80), 261, kEvictNs), 30u);  // 50-79 stay (60 old)
  EXPECT_EQ(d.tracked(), 50u);                              // 50-99: 80-99 never walked
  EXPECT_EQ(d.walk("i", "", std::nullopt, 10'000, kEvictNs), 50u);
  EXPECT_EQ(d.tracked(), 0u);
}

TEST(DeletedEntries, AnEntryWrittenAgainIsLiveAndADroppedTableTakesItsTombstones) {
  DeletedEntries d;
  d.committed(removals("i", 0, 10), 0);
  d.committed({{"i", key(3), false}}, 5);
  EXPECT_EQ(d.walk("i", "", std::nullopt, 6, kEvictNs), 9u);
  d.committed(removals("j", 0, 4), 0);
  d.forget("j");
  EXPECT_EQ(d.walk("j", "", std::nullopt, 6, kEvictNs), 0u);
  EXPECT_EQ(d.tracked(), 9u);
}

// Against a plain list of (entry, removed at): the same counts for any edits and walks.
RC_GTEST_PROP(DeletedEntries, AgreesWithAPlainList, ()) {
  struct Tombstone {
    std::string entry;
    sim::Nanos at;
  };
  std::vector<Tombstone> plain;
  DeletedEntries d;
  sim::Nanos now = 0;
  const int steps = *rc::gen::inRange(1, 60);
  for (int s = 0; s < steps; ++s) {
    now += *rc::gen::inRange<sim::Nanos>(0, 200);
    const int a = *rc::gen::inRange(0, 30), b = *rc::gen::inRange(0, 30);
    const int lo = std::min(a, b), hi = std::max(a, b);
    switch (*rc::gen::inRange(0, 3)) {
      case 0:  // a transaction removes [lo, hi)
        d.committed(removals("i", lo, hi), now);
        for (int i = lo; i < hi; ++i) {
          bool present = false;
          for (const Tombstone& t : plain) present |= t.entry == key(i);
          if (!present) plain.push_back({key(i), now});
        }
        break;
      case 1:  // entry lo written again
        d.committed({{"i", key(lo), false}}, now);
        std::erase_if(plain, [&](const Tombstone& t) { return t.entry == key(lo); });
        break;
      default: {  // a scan over [lo, hi)
        uint64_t expected = 0;
        for (const Tombstone& t : plain) expected += t.entry >= key(lo) && t.entry < key(hi);
        RC_ASSERT(d.walk("i", key(lo), key(hi), now, kEvictNs) == expected);
        std::erase_if(plain, [&](const Tombstone& t) { return t.entry >= key(lo) && t.entry < key(hi) && now - t.at >= kEvictNs; });
      }
    }
    RC_ASSERT(d.tracked() == plain.size());
  }
}

}  // namespace
}  // namespace wtsim::engine
