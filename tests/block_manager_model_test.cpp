// The block-manager model: extent lists, free/reuse rules, checkpoint deletion, the backup pin and
// the seed's per-table release, and a checker proven able to fail.
#include "models/block_manager_model.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <map>
#include <ostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace wtsim::models {
namespace {

constexpr uint64_t kPage = kAllocsizeBytes;
// The notes' table: 0.67 MB without a backup, +336 KB per pinned round: 84 4 KB pages rewritten
// in full each round (336 KB), with one round's worth of slack waiting for reuse.
constexpr uint64_t kTablePages = 84;
constexpr uint64_t kRoundBytes = kTablePages * kPage;

std::string joined(const std::vector<std::string>& problems) {
  std::string out;
  for (const std::string& p : problems) out += p + "\n";
  return out;
}

ExtentList list_of(std::initializer_list<Extent> extents) {
  ExtentList list;
  for (const Extent& e : extents) list.insert(e.offset_bytes, e.size_bytes);
  return list;
}

std::string show(const ExtentList& list) {
  std::ostringstream os;
  os << list;
  return os.str();
}

// ----------------------------------------------------------------------------------------------
// ExtentList

TEST(ExtentList, AdjacentRangesCoalesce) {
  ExtentList list = list_of({{0, 4096}, {8192, 4096}});
  EXPECT_EQ(list.range_count(), 2u);
  list.insert(4096, 4096);  // fills the gap: one range
  EXPECT_EQ(show(list), "{[0, 12288)}");
  EXPECT_EQ(list.total_bytes(), 12288u);
  list.insert(12288, 100);  // touches the end
  EXPECT_EQ(show(list), "{[0, 12388)}");
}

TEST(ExtentList, RemoveSplitsAndMustBeContained) {
  ExtentList list = list_of({{0, 12288}});
  list.remove(4096, 4096);
  EXPECT_EQ(show(list), "{[0, 4096) [8192, 12288)}");
  EXPECT_EQ(list.total_bytes(), 8192u);
  EXPECT_THROW(list.remove(0, 8192), std::invalid_argument);  // spans the hole
  EXPECT_THROW(list.remove(20000, 1), std::invalid_argument);
  list.remove(0, 4096);
  list.remove(8192, 4096);
  EXPECT_TRUE(list.empty());
  EXPECT_EQ(list.total_bytes(), 0u);
}

TEST(ExtentList, OverlapDetection) {
  const ExtentList list = list_of({{4096, 4096}, {16384, 8192}});
  EXPECT_TRUE(list.overlaps(0, 4097));
  EXPECT_FALSE(list.overlaps(0, 4096));     // ends where the range starts
  EXPECT_FALSE(list.overlaps(8192, 8192));  // exactly the gap
  EXPECT_TRUE(list.overlaps(20000, 1));
  EXPECT_THROW(ExtentList(list).insert(6000, 10), std::invalid_argument);
  EXPECT_TRUE(list.contains(16384, 8192));
  EXPECT_FALSE(list.contains(4096, 8192));
  EXPECT_TRUE(list.overlaps(list_of({{0, 8192}})));
  EXPECT_FALSE(list.overlaps(list_of({{0, 4096}, {8192, 8192}, {24576, 4096}})));
  EXPECT_EQ(show(list.intersection(list_of({{0, 20480}}))), "{[4096, 8192) [16384, 20480)}");
}

TEST(ExtentList, UniteSubtractAndBestFit) {
  ExtentList list = list_of({{0, 4096}, {8192, 4096}});
  list.unite(list_of({{0, 12288}, {20480, 8192}}));
  EXPECT_EQ(show(list), "{[0, 12288) [20480, 28672)}");
  list.subtract(list_of({{4096, 4096}}));
  EXPECT_EQ(show(list), "{[0, 4096) [8192, 12288) [20480, 28672)}");
  // Smallest range that fits; among equal sizes the lowest offset.
  EXPECT_EQ(list.best_fit(4096), (Extent{0, 4096}));
  EXPECT_EQ(list.best_fit(8192), (Extent{20480, 8192}));
  EXPECT_FALSE(list.best_fit(12288).has_value());
  EXPECT_EQ(list.last(), (Extent{20480, 8192}));
}

// ----------------------------------------------------------------------------------------------
// One file: free, reuse, checkpoint, truncation

TEST(FileBlocks, FreeOfABlockAllocatedSinceTheLastCheckpointGoesToAvail) {
  FileBlocks f;
  const uint64_t a = f.allocate(5000);  // rounded to two allocation units
  EXPECT_EQ(a, kAllocsizeBytes);        // after the description block
  EXPECT_EQ(f.file_bytes(), 3 * kPage);
  f.free(a, 5000);
  EXPECT_TRUE(f.avail().contains(a, 2 * kPage));
  EXPECT_TRUE(f.alloc().empty());
  EXPECT_TRUE(f.discard().empty());
  EXPECT_EQ(f.allocate(2 * kPage), a);  // reused at once
  EXPECT_EQ(f.extending_allocations(), 1u);
  EXPECT_EQ(joined(f.check()), "");
}

TEST(FileBlocks, FreeOfAnOlderBlockWaitsInDiscardUntilTheNextCheckpointResolves) {
  FileBlocks f;
  const uint64_t a = f.allocate(kPage);
  f.checkpoint_and_resolve();
  f.free(a, kPage);
  EXPECT_TRUE(f.discard().contains(a, kPage));  // the checkpoint still references it
  EXPECT_TRUE(f.avail().empty());
  const uint64_t b = f.allocate(kPage);
  EXPECT_NE(b, a);
  f.checkpoint();  // deletes checkpoint 1: a was written by it and freed since
  EXPECT_TRUE(f.ckpt_avail().contains(a, kPage));
  EXPECT_NE(f.allocate(kPage), a);  // not before the new checkpoint is durable
  EXPECT_EQ(joined(f.check()), "");
  f.resolve();
  EXPECT_TRUE(f.ckpt_avail().empty());
  EXPECT_EQ(f.allocate(kPage), a);
  EXPECT_EQ(joined(f.check()), "");
}

TEST(FileBlocks, ReclaimedSpaceIsReusedByTheNextRewriteRound) {
  FileBlocks f;
  f.rewrite(kTablePages, kPage);
  f.checkpoint_and_resolve();
  f.rewrite(kTablePages, kPage);  // old images are in checkpoint 1: discard, the file extends
  EXPECT_EQ(f.totals().discard_bytes, kRoundBytes);
  f.checkpoint_and_resolve();  // checkpoint 1 deleted: its images become avail
  EXPECT_EQ(f.totals().avail_bytes, kRoundBytes);
  const uint64_t size_bytes = f.file_bytes(), extensions = f.extending_allocations();
  f.rewrite(kTablePages, kPage);
  EXPECT_EQ(f.file_bytes(), size_bytes);
  EXPECT_EQ(f.extending_allocations(), extensions);
  EXPECT_EQ(joined(f.check()), "");
}

TEST(FileBlocks, FreeSpaceAtTheEndOfTheFileIsTruncatedAtCheckpoint) {
  FileBlocks f;
  f.allocate(kPage);
  const uint64_t tail = f.allocate(3 * kPage);
  f.checkpoint_and_resolve();
  f.free(tail, 3 * kPage);
  f.checkpoint_and_resolve();  // the tail moves to avail at resolve, after this checkpoint's truncation
  EXPECT_EQ(f.file_bytes(), tail + 3 * kPage);
  f.checkpoint_and_resolve();
  EXPECT_EQ(f.file_bytes(), tail);
  EXPECT_EQ(f.physical_bytes(), tail);
  EXPECT_TRUE(f.avail().empty());
  EXPECT_EQ(joined(f.check()), "");
}

TEST(FileBlocks, WhilePinnedTruncationShrinksTheBlockSizeButNotThePhysicalFile) {
  FileBlocks f;
  f.allocate(kPage);
  const uint64_t tail = f.allocate(3 * kPage);
  f.checkpoint_and_resolve();
  f.free(tail, 3 * kPage);
  f.checkpoint_and_resolve();  // the tail is avail now
  f.pin();
  f.checkpoint_and_resolve();
  EXPECT_EQ(f.file_bytes(), tail);                  // block->size shrinks regardless
  EXPECT_EQ(f.physical_bytes(), tail + 3 * kPage);  // no ftruncate while a backup may be copying
  EXPECT_EQ(f.allocate(kPage), tail);               // extends the block size into the untruncated space
  EXPECT_EQ(f.physical_bytes(), tail + 3 * kPage);
  f.allocate(4 * kPage);
  EXPECT_EQ(f.physical_bytes(), f.file_bytes());
  EXPECT_EQ(joined(f.check()), "");
}

TEST(FileBlocks, MisuseIsRejected) {
  FileBlocks f;
  f.rewrite(2, kPage);
  const Extent page0 = f.pages().at(0);
  EXPECT_THROW(f.free(page0.offset_bytes, page0.size_bytes), std::invalid_argument);  // belongs to rewrite()
  EXPECT_THROW(f.free(100 * kPage, kPage), std::invalid_argument);                    // not in use
  EXPECT_THROW(f.allocate(0), std::invalid_argument);
  EXPECT_THROW(f.resolve(), std::logic_error);
  f.checkpoint();
  EXPECT_THROW(f.checkpoint(), std::logic_error);  // WiredTiger panics: checkpoint before resolve
  f.pin();                                         // waits for the in-flight checkpoint
  EXPECT_FALSE(f.resolve_pending());
  EXPECT_EQ(joined(f.check()), "");
}

// ----------------------------------------------------------------------------------------------
// Hot backup

// One round of the notes' measurement: rewrite the table, then checkpoint (all files).
void round(BlockManagerModel& m, const std::string& name, uint64_t pages) {
  m.rewrite(name, pages, kPage);
  m.checkpoint_and_resolve_all();
}

TEST(HotBackup, WithoutABackupTheFileLevelsOff) {
  BlockManagerModel m;
  m.add_file("t");
  std::vector<uint64_t> sizes;
  for (int r = 0; r < 20; ++r) {
    round(m, "t", kTablePages);
    sizes.push_back(m.file_bytes("t"));
    EXPECT_EQ(m.checkpoint_count("t"), 1u);
    ASSERT_EQ(joined(m.check()), "");
  }
  // Live pages plus one round of slack: about 0.67 MB, as measured.
  const uint64_t steady_bytes = kAllocsizeBytes + 2 * kRoundBytes;
  for (size_t r = 2; r < sizes.size(); ++r) EXPECT_EQ(sizes[r], steady_bytes) << "round " << r;
}

TEST(HotBackup, PinnedFileGrowsEveryRoundAndRecoversAfterUnpin) {
  BlockManagerModel m;
  m.add_file("t");
  for (int r = 0; r < 5; ++r) round(m, "t", kTablePages);
  const uint64_t base_bytes = m.file_bytes("t");

  m.pin_all();
  for (int r = 0; r < 15; ++r) {
    const uint64_t before_bytes = m.file_bytes("t");
    const size_t before_count = m.checkpoint_count("t");
    round(m, "t", kTablePages);
    EXPECT_EQ(m.checkpoint_count("t"), before_count + 1);  // never decreases: all accumulate
    EXPECT_TRUE(m.file("t").ckpt_avail().empty());
    // The first pinned round still finds the slack in avail; after that every page extends the file.
    if (r > 0) {
      EXPECT_EQ(m.file_bytes("t"), before_bytes + kRoundBytes) << "pinned round " << r;
    }
    ASSERT_EQ(joined(m.check()), "");
  }
  EXPECT_EQ(m.file_bytes("t"), base_bytes + 14 * kRoundBytes);  // ~5.5 MB; the notes measured 5.4 MB
  EXPECT_EQ(m.checkpoint_count("t"), 16u);

  m.unpin_all();
  round(m, "t", kTablePages);  // drops the 16 old checkpoints; its own pages still extend the file
  EXPECT_EQ(m.checkpoint_count("t"), 1u);
  const uint64_t peak_bytes = m.file_bytes("t");
  EXPECT_EQ(peak_bytes, base_bytes + 15 * kRoundBytes);
  round(m, "t", kTablePages);  // pages move down into the reclaimed space; the old tail is reclaimed
  EXPECT_EQ(m.file_bytes("t"), peak_bytes);
  round(m, "t", kTablePages);  // the tail is avail now and truncated
  EXPECT_EQ(m.file_bytes("t"), base_bytes);
  EXPECT_EQ(m.file("t").physical_bytes(), base_bytes);
  ASSERT_EQ(joined(m.check()), "");
}

TEST(HotBackup, PerTableReleaseStopsOnlyThatTablesGrowth) {
  BlockManagerModel m;
  const std::vector<std::pair<std::string, uint64_t>> rewritten_pages = {{"hot", 84}, {"warm", 21}, {"cold", 4}};
  for (const auto& [name, pages] : rewritten_pages) {
    m.add_file(name);
    m.rewrite(name, kTablePages, kPage);  // every table holds 84 pages; they differ in rewrite rate
  }
  const auto all_rounds = [&] {
    for (const auto& [name, pages] : rewritten_pages) m.rewrite(name, pages, kPage);
    m.checkpoint_and_resolve_all();
  };
  for (int r = 0; r < 5; ++r) all_rounds();
  m.pin_all();
  for (int r = 0; r < 4; ++r) all_rounds();
  EXPECT_EQ(m.checkpoint_count("hot"), 5u);

  m.release("hot");
  const uint64_t hot_at_release_bytes = m.file_bytes("hot");
  m.checkpoint_and_resolve_all();
  EXPECT_EQ(m.checkpoint_count("hot"), 1u);
  EXPECT_EQ(m.checkpoint_count("warm"), 6u);
  EXPECT_EQ(m.checkpoint_count("cold"), 6u);
  for (int r = 0; r < 6; ++r) {
    const uint64_t hot_bytes = m.file_bytes("hot"), warm_bytes = m.file_bytes("warm"),
                   cold_bytes = m.file_bytes("cold");
    all_rounds();
    EXPECT_LE(m.file_bytes("hot"), hot_bytes) << "round " << r;
    EXPECT_LE(m.file_bytes("hot"), hot_at_release_bytes);
    EXPECT_GT(m.file_bytes("warm"), warm_bytes) << "round " << r;
    EXPECT_GT(m.file_bytes("cold"), cold_bytes) << "round " << r;
    EXPECT_EQ(m.checkpoint_count("hot"), 1u);
    EXPECT_EQ(m.checkpoint_count("warm"), 7u + r);
    ASSERT_EQ(joined(m.check()), "");
  }
  EXPECT_EQ(m.file_bytes("hot"), kAllocsizeBytes + 2 * kRoundBytes);  // back to its no-backup size
}

TEST(HotBackup, OneBackupCursorAtATime) {
  BlockManagerModel m;
  m.add_file("a");
  m.pin_all();
  EXPECT_THROW(m.pin_all(), std::logic_error);
  m.add_file("b");  // the connection-wide flag covers new files too
  EXPECT_TRUE(m.file("b").pinned());
  m.release("a");
  m.release("a");  // releasing twice does nothing
  EXPECT_FALSE(m.file("a").pinned());
  EXPECT_EQ(joined(m.check()), "");
}

// ----------------------------------------------------------------------------------------------
// The checker can fail

TEST(BlockManagerCheck, CatchesAnAvailRangeOverlappingABlockInUse) {
  BlockManagerModel m;
  FileBlocks& f = m.add_file("t");
  const uint64_t a = f.allocate(kPage);
  ASSERT_EQ(joined(m.check()), "");
  f.inject_for_test(ListKind::kAvail, a, kPage);
  const std::string problems = joined(m.check());
  EXPECT_NE(problems.find("t: alloc and avail overlap"), std::string::npos) << problems;
  EXPECT_NE(problems.find("in-use and avail overlap"), std::string::npos) << problems;
}

TEST(BlockManagerCheck, CatchesReusableSpaceWhilePinnedAndRangesOutsideTheFile) {
  BlockManagerModel m;
  FileBlocks& f = m.add_file("t");
  f.rewrite(4, kPage);
  f.checkpoint_and_resolve();
  m.pin_all();
  f.inject_for_test(ListKind::kCkptAvail, f.file_bytes(), kPage);
  const std::string problems = joined(m.check());
  EXPECT_NE(problems.find("ckpt_avail is not empty while pinned"), std::string::npos) << problems;
  EXPECT_NE(problems.find("is outside"), std::string::npos) << problems;
}

TEST(BlockManagerCheck, CatchesABlockACheckpointNeedsMadeAvailable) {
  FileBlocks f;
  f.rewrite(2, kPage);
  f.checkpoint_and_resolve();
  f.rewrite(2, kPage);  // the old images wait in discard: checkpoint 1 references them
  const Extent old_image{kAllocsizeBytes, kPage};
  ASSERT_TRUE(f.discard().contains(old_image.offset_bytes, old_image.size_bytes));
  ASSERT_EQ(joined(f.check()), "");
  f.inject_for_test(ListKind::kAvail, old_image.offset_bytes, old_image.size_bytes);
  const std::string problems = joined(f.check());
  EXPECT_NE(problems.find("avail and discard overlap"), std::string::npos) << problems;
  EXPECT_NE(problems.find("WiredTigerCheckpoint.1 alloc and avail overlap"), std::string::npos) << problems;
  EXPECT_NE(problems.find("needed blocks and avail overlap"), std::string::npos) << problems;
}

TEST(BlockManagerCheck, CatchesAllocatedSpaceThatIsNotInUse) {
  FileBlocks f;
  const uint64_t a = f.allocate(kPage);
  f.free(a, kPage);  // now avail
  f.inject_for_test(ListKind::kAlloc, a, kPage);
  const std::string problems = joined(f.check());
  EXPECT_NE(problems.find("alloc holds blocks not in use"), std::string::npos) << problems;
  EXPECT_NE(problems.find("alloc and avail overlap"), std::string::npos) << problems;
}

// ----------------------------------------------------------------------------------------------
// Random operation sequences keep every invariant

enum OpKind { kAllocate, kFree, kRewrite, kCheckpoint, kResolve, kPinAll, kRelease, kUnpinAll, kOpKinds };

struct Op {
  Op() = default;
  Op(int kind_, int file_, uint32_t a_, uint32_t b_) : kind(kind_), file(file_), a(a_), b(b_) {}
  int kind = 0;
  int file = 0;
  uint32_t a = 0, b = 0;  // operation arguments, reduced modulo what each operation accepts
};

std::ostream& operator<<(std::ostream& os, const Op& op) {
  static const char* const kNames[] = {"allocate", "free",    "rewrite", "checkpoint",
                                       "resolve",  "pin_all", "release", "unpin_all"};
  return os << kNames[op.kind] << "(file " << op.file << ", " << op.a << ", " << op.b << ")";
}

struct Harness {
  BlockManagerModel model;
  std::map<std::string, std::vector<Extent>> loose_blocks;  // allocate()d, not yet freed

  std::string name_of(const Op& op) const {
    const auto names = model.file_names();
    return names[static_cast<size_t>(op.file) % names.size()];
  }

  void apply(const Op& op) {
    const std::string name = name_of(op);
    FileBlocks& f = model.file(name);
    switch (op.kind) {
      case kAllocate: {
        const uint64_t size_bytes = (op.a % 4 + 1) * 3000;  // not page-aligned: exercises rounding
        const uint64_t offset_bytes = f.allocate(size_bytes);
        loose_blocks[name].push_back({offset_bytes, size_bytes});
        break;
      }
      case kFree: {
        auto& blocks = loose_blocks[name];
        if (blocks.empty()) break;
        const size_t i = op.a % blocks.size();
        f.free(blocks[i].offset_bytes, blocks[i].size_bytes);
        blocks.erase(blocks.begin() + static_cast<std::ptrdiff_t>(i));
        break;
      }
      case kRewrite:
        f.rewrite(op.a % 12 + 1, (op.b % 4 + 1) * 3000);
        break;
      case kCheckpoint:
        if (!f.resolve_pending()) f.checkpoint();
        break;
      case kResolve:
        if (f.resolve_pending()) f.resolve();
        break;
      case kPinAll:
        if (!model.backup_open()) model.pin_all();
        break;
      case kRelease:
        model.release(name);
        break;
      case kUnpinAll:
        model.unpin_all();
        break;
    }
  }
};

RC_GTEST_PROP(BlockManagerProperty, RandomOperationsKeepEveryInvariant, ()) {
  const int n_files = *rc::gen::inRange(1, 4);
  // Checkpoints and resolves are frequent and unpins rare, so pinned checkpoints pile up before
  // one checkpoint deletes them all.
  const auto kinds = rc::gen::weightedElement<int>({{3, kAllocate},
                                                    {2, kFree},
                                                    {3, kRewrite},
                                                    {5, kCheckpoint},
                                                    {4, kResolve},
                                                    {2, kPinAll},
                                                    {1, kRelease},
                                                    {1, kUnpinAll}});
  const auto ops = *rc::gen::container<std::vector<Op>>(rc::gen::construct<Op>(
      kinds, rc::gen::inRange(0, 3), rc::gen::arbitrary<uint32_t>(), rc::gen::arbitrary<uint32_t>()));
  Harness h;
  for (int i = 0; i < n_files; ++i) h.model.add_file("f" + std::to_string(i));
  bool reclaimed_several = false;  // the interesting case: an unpin let one checkpoint delete many
  for (const Op& op : ops) {
    const std::string name = h.name_of(op);
    const bool was_pinned = h.model.file(name).pinned();
    const size_t count_before = h.model.checkpoint_count(name);
    const bool checkpointed = op.kind == kCheckpoint && !h.model.file(name).resolve_pending();
    RC_LOG() << op << "\n";
    h.apply(op);
    RC_ASSERT(joined(h.model.check()) == std::string());
    const FileBlocks& f = h.model.file(name);
    // Checkpoints never decrease while pinned; an unpinned checkpoint leaves exactly one.
    if (was_pinned && f.pinned()) RC_ASSERT(f.checkpoint_count() >= count_before);
    if (checkpointed) RC_ASSERT(f.checkpoint_count() == (f.pinned() ? count_before + 1 : size_t{1}));
    reclaimed_several = reclaimed_several || (checkpointed && !f.pinned() && count_before >= 2);
  }
  RC_CLASSIFY(reclaimed_several);
}

}  // namespace
}  // namespace wtsim::models
