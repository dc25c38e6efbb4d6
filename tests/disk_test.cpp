// Durability semantics of the simulated disk: what survives a crash in each mode.
#include <gtest/gtest.h>

#include <cerrno>
#include <string>

#include "faults/disk.h"
#include "faults/sim_file_system.h"

namespace wtsim::faults {
namespace {

std::string str(const std::vector<uint8_t>& v) { return std::string(v.begin(), v.end()); }

void put(Disk& d, InodeId id, uint64_t off, const std::string& s) {
  ASSERT_EQ(d.write(id, off, s.data(), s.size()), 0);
}

TEST(Disk, UnsyncedWritesAreVisibleButLostInACrash) {
  Disk d;
  InodeId f = d.open("f", true, true);
  put(d, f, 0, "hello");
  EXPECT_EQ(str(d.visible_image("f")), "hello");
  EXPECT_EQ(str(d.durable_image("f")), "");
  sim::Rng rng(1);
  d.crash(CrashMode::kDropUnsynced, rng.next());
  EXPECT_TRUE(d.exists("f"));
  EXPECT_EQ(str(d.visible_image("f")), "");
}

// As pwrite(2): a zero-length write past the end grows nothing, visible or after any crash (a
// torn write that keeps no sector is such a write).
TEST(Disk, AZeroLengthWriteGrowsNothing) {
  for (CrashMode mode : {CrashMode::kTornPrefix, CrashMode::kSectorDamage, CrashMode::kDropUnsynced}) {
    for (uint64_t seed = 1; seed <= 8; ++seed) {
      Disk d;
      InodeId f = d.open("f", true, true);
      put(d, f, 0, "abc");
      d.sync(f);
      ASSERT_EQ(d.write(f, 4096, "", 0), 0);
      EXPECT_EQ(d.visible_image("f").size(), 3u);
      put(d, f, 8192, std::string(100, 'x'));  // under 512 bytes: a torn prefix keeps no sector of it
      d.crash(mode, seed);
      const size_t size = d.visible_image("f").size();
      EXPECT_TRUE(size == 3u || size == 8292u) << to_string(mode) << " seed " << seed << ": " << size << " bytes";
    }
  }
}

// The file system's names: the home only as a whole path component, nothing outside it aliased.
TEST(SimFileSystem, RelativeNamesStripTheHomeOnlyAsAWholeComponent) {
  Disk d;
  SimFileSystem fs(d, nullptr, "/wtsim/h1");
  EXPECT_EQ(fs.relative("/wtsim/h1/kv.wt"), "kv.wt");
  EXPECT_EQ(fs.relative("/wtsim/h1//./kv.wt"), "kv.wt");
  EXPECT_EQ(fs.relative("/wtsim/h1"), "");
  EXPECT_EQ(fs.relative("./kv.wt"), "kv.wt");
  EXPECT_EQ(fs.relative("kv.wt"), "kv.wt");
  EXPECT_EQ(fs.relative(nullptr), "");
  EXPECT_EQ(fs.relative("/wtsim/h10/kv.wt"), "/wtsim/h10/kv.wt");  // another home, not "0/kv.wt"
  EXPECT_EQ(fs.relative("/kv.wt"), "/kv.wt");                      // outside the home, not its kv.wt
}

TEST(Disk, SyncedWritesSurvive) {
  Disk d;
  InodeId f = d.open("f", true, true);
  put(d, f, 0, "hello");
  d.sync(f);
  put(d, f, 5, " world");
  sim::Rng rng(1);
  d.crash(CrashMode::kDropUnsynced, rng.next());
  EXPECT_EQ(str(d.visible_image("f")), "hello");
}

TEST(Disk, CreateIsDurableOnlyAfterDirectorySync) {
  Disk d;
  InodeId a = d.open("a", true, false);
  InodeId b = d.open("b", true, false);
  put(d, a, 0, "A");
  put(d, b, 0, "B");
  d.sync(a);
  d.sync(b);
  d.sync_directory();
  InodeId c = d.open("c", true, false);
  put(d, c, 0, "C");
  d.sync(c);  // data synced, but the directory entry is not
  sim::Rng rng(1);
  d.crash(CrashMode::kDropUnsynced, rng.next());
  EXPECT_TRUE(d.exists("a"));
  EXPECT_TRUE(d.exists("b"));
  EXPECT_FALSE(d.exists("c"));
}

TEST(Disk, DurableCreateAndRenameSurviveWithoutDirectorySync) {
  Disk d;
  InodeId t = d.open("turtle.set", true, true);
  put(d, t, 0, "new");
  d.sync(t);
  ASSERT_EQ(d.rename("turtle.set", "turtle", true), 0);
  InodeId x = d.open("x", true, false);
  ASSERT_EQ(d.rename("x", "y", false), 0);
  (void)x;
  sim::Rng rng(1);
  d.crash(CrashMode::kDropUnsynced, rng.next());
  EXPECT_EQ(str(d.visible_image("turtle")), "new");
  EXPECT_FALSE(d.exists("turtle.set"));
  EXPECT_FALSE(d.exists("y"));
}

TEST(Disk, RemoveIsUndoneByACrashUnlessDurable) {
  Disk d;
  d.open("keep", true, true);
  d.open("gone", true, true);
  ASSERT_EQ(d.remove("keep", false), 0);
  ASSERT_EQ(d.remove("gone", true), 0);
  EXPECT_EQ(d.remove("never", false), ENOENT);
  sim::Rng rng(1);
  d.crash(CrashMode::kDropUnsynced, rng.next());
  EXPECT_TRUE(d.exists("keep"));
  EXPECT_FALSE(d.exists("gone"));
}

TEST(Disk, TornPrefixKeepsAPrefixOfTheWrites) {
  // Three 1 KiB writes of distinct bytes; whatever survives must be a prefix in write order,
  // with at most the first missing write partly kept in whole sectors.
  for (uint64_t seed = 1; seed <= 50; ++seed) {
    Disk d;
    InodeId f = d.open("f", true, true);
    for (char c : {'a', 'b', 'c'}) put(d, f, static_cast<uint64_t>(c - 'a') * 1024, std::string(1024, c));
    sim::Rng rng(seed);
    auto report = d.crash(CrashMode::kTornPrefix, rng.next());
    const std::string img = str(d.visible_image("f"));
    ASSERT_EQ(report.size(), 1u);
    const size_t kept = report[0].kept_ops;
    ASSERT_LE(kept, 3u);
    for (size_t i = 0; i < kept; ++i) {
      EXPECT_EQ(img.substr(i * 1024, 1024), std::string(1024, static_cast<char>('a' + i)));
    }
    EXPECT_EQ(report[0].torn_bytes % kSectorBytes, 0u);
    EXPECT_EQ(img.size(), kept * 1024 + report[0].torn_bytes) << "seed " << seed;
  }
}

// Negative space: a torn-prefix mode that keeps every write whole, or drops every
// pending write, passes the prefix test above; over many seeds it must do all three.
TEST(Disk, TornPrefixActuallyTearsKeepsAndDrops) {
  int torn_mid_write = 0, kept_some = 0, lost_some = 0;
  for (uint64_t seed = 1; seed <= 50; ++seed) {
    Disk d;
    InodeId f = d.open("f", true, true);
    for (char c : {'a', 'b', 'c'}) put(d, f, static_cast<uint64_t>(c - 'a') * 1024, std::string(1024, c));
    sim::Rng rng(seed);
    const auto report = d.crash(CrashMode::kTornPrefix, rng.next());
    ASSERT_EQ(report.size(), 1u);
    torn_mid_write += report[0].torn_bytes > 0 && report[0].torn_bytes < 1024 ? 1 : 0;
    kept_some += report[0].kept_ops > 0 ? 1 : 0;
    lost_some += report[0].kept_ops < 3 ? 1 : 0;
  }
  EXPECT_GT(torn_mid_write, 0) << "no write was ever cut between sectors";
  EXPECT_GT(kept_some, 0);
  EXPECT_GT(lost_some, 0);
}

TEST(Disk, SectorDamageKeepsWholeSectorsOfPendingWritesOnly) {
  for (uint64_t seed = 1; seed <= 50; ++seed) {
    Disk d;
    InodeId f = d.open("f", true, true);
    put(d, f, 0, std::string(2048, 'o'));
    d.sync(f);
    put(d, f, 0, std::string(2048, 'n'));
    sim::Rng rng(seed);
    d.crash(CrashMode::kSectorDamage, rng.next());
    const std::string img = str(d.visible_image("f"));
    ASSERT_EQ(img.size(), 2048u);
    for (size_t s = 0; s < 4; ++s) {
      const std::string sector = img.substr(s * kSectorBytes, kSectorBytes);
      EXPECT_TRUE(sector == std::string(kSectorBytes, 'o') || sector == std::string(kSectorBytes, 'n'))
          << "seed " << seed << " sector " << s << " is mixed";
    }
  }
}

TEST(Disk, SectorDamageActuallyMixesOldAndNew) {
  // Negative space: over many seeds both outcomes occur, so the mode is not a disguised drop.
  int kept_new = 0, kept_old = 0;
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    Disk d;
    InodeId f = d.open("f", true, true);
    put(d, f, 0, std::string(512, 'o'));
    d.sync(f);
    put(d, f, 0, std::string(512, 'n'));
    sim::Rng rng(seed);
    d.crash(CrashMode::kSectorDamage, rng.next());
    (str(d.visible_image("f"))[0] == 'n' ? kept_new : kept_old)++;
  }
  EXPECT_GT(kept_new, 0);
  EXPECT_GT(kept_old, 0);
}

TEST(Disk, FailedSyncWithDroppedDirtyDataLosesItForever) {
  Disk d;
  InodeId f = d.open("f", true, true);
  put(d, f, 0, "abc");
  d.drop_dirty(f);  // what Linux does after an fsync error
  EXPECT_EQ(str(d.visible_image("f")), "abc");  // still in the page cache
  d.sync(f);  // a later successful sync does not bring it back
  sim::Rng rng(1);
  d.crash(CrashMode::kDropUnsynced, rng.next());
  EXPECT_EQ(str(d.visible_image("f")), "");
}

TEST(Disk, CapacityGivesEnospcOnlyForGrowth) {
  Disk d;
  InodeId f = d.open("f", true, true);
  d.set_capacity(10);
  put(d, f, 0, "0123456789");
  EXPECT_EQ(d.write(f, 10, "x", 1), ENOSPC);
  EXPECT_EQ(d.write(f, 0, "X", 1), 0);  // overwrite in place needs no space
  d.set_capacity(Disk::kUnlimited);
  EXPECT_EQ(d.write(f, 10, "x", 1), 0);
}

TEST(Disk, AllocateGrowsWithZerosNeverShrinksAndIsDurableAtSync) {
  Disk d;
  InodeId f = d.open("f", true, true);
  put(d, f, 0, "head");
  ASSERT_EQ(d.allocate(f, 8), 0);
  EXPECT_EQ(d.visible_image("f"), (std::vector<uint8_t>{'h', 'e', 'a', 'd', 0, 0, 0, 0}));
  ASSERT_EQ(d.allocate(f, 2), 0);  // never shrinks
  EXPECT_EQ(d.size(f), 8u);
  d.sync(f);
  ASSERT_EQ(d.allocate(f, 16), 0);
  sim::Rng rng(1);
  d.crash(CrashMode::kDropUnsynced, rng.next());
  EXPECT_EQ(d.visible_image("f").size(), 8u);  // the unsynced growth is lost, the synced kept
  EXPECT_EQ(str(d.durable_image("f")).substr(0, 4), "head");
}

TEST(Disk, AllocateNeedsRoomLikeAWrite) {
  Disk d;
  InodeId f = d.open("f", true, true);
  d.set_capacity(10);
  EXPECT_EQ(d.allocate(f, 11), ENOSPC);
  EXPECT_EQ(d.size(f), 0u);
  EXPECT_EQ(d.enospc_returned(), 1u);
  EXPECT_EQ(d.allocate(f, 10), 0);
  EXPECT_EQ(d.size(f), 10u);
}

TEST(Disk, LyingSyncPersistsNothing) {
  Disk d;
  InodeId f = d.open("f", true, true);
  d.set_sync_lies("");
  put(d, f, 0, "abc");
  d.sync(f);
  sim::Rng rng(1);
  d.crash(CrashMode::kDropUnsynced, rng.next());
  EXPECT_EQ(str(d.visible_image("f")), "");
}

TEST(Disk, GhostCloneIsIndependent) {
  Disk d;
  InodeId f = d.open("f", true, true);
  put(d, f, 0, "abc");
  auto ghost = d.clone_visible();
  ASSERT_EQ(ghost->write(f, 0, "XYZ", 3), 0);  // same inode ids in the ghost
  EXPECT_EQ(str(d.visible_image("f")), "abc");
  EXPECT_EQ(str(ghost->visible_image("f")), "XYZ");
  ghost->sync(f);  // a ghost keeps no durability state and must not touch the original
  EXPECT_EQ(str(d.durable_image("f")), "");
}

TEST(Disk, BitFlipChangesExactlyOneBit) {
  Disk d;
  InodeId f = d.open("f", true, true);
  put(d, f, 0, std::string(8, '\0'));
  d.sync(f);
  ASSERT_TRUE(d.flip_bit("f", 3, 2));
  const auto img = d.durable_image("f");
  for (size_t i = 0; i < img.size(); ++i) EXPECT_EQ(img[i], i == 3 ? 4 : 0);
  EXPECT_FALSE(d.flip_bit("missing", 0, 0));
}

}  // namespace
}  // namespace wtsim::faults
