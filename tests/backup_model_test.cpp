// The backup account in the block-manager model: four tables shaped like backup_release.json's
// (hot rewritten every round, warm mostly, append-only growing, cold untouched), baseline pins
// everything for the whole copy, release lets each table go after its copy. The model must show
// what the real run shows: release keeps the files near their size, baseline inflates them.
#include <gtest/gtest.h>

#include "models/block_manager_model.h"

namespace wtsim::models {
namespace {

constexpr uint64_t kPage = 4096;

struct Shape {
  uint64_t hot = 50, warm = 500, cold = 1000, append = 500;
};

void round_of_writes(BlockManagerModel& m, Shape& s) {
  m.rewrite("hot", s.hot, kPage);
  m.rewrite("warm", s.warm * 7 / 10, kPage);
  s.append += 20;
  m.rewrite("append", s.append, kPage);  // new pages at the end; the old ones rewritten as WiredTiger's
}                                        // reconciliation does with a growing leaf

uint64_t total_bytes(const BlockManagerModel& m) {
  uint64_t t = 0;
  for (const std::string& f : m.file_names()) t += m.file_bytes(f);
  return t;
}

// Returns the peak inflation over the backup (rounds of writes + checkpoints during the copy).
double inflation(bool release) {
  BlockManagerModel m;
  Shape s;
  for (const char* f : {"hot", "warm", "cold", "append"}) m.add_file(f);
  m.rewrite("cold", s.cold, kPage);
  for (int i = 0; i < 3; ++i) round_of_writes(m, s), m.checkpoint_and_resolve_all();
  const uint64_t before = total_bytes(m);
  uint64_t peak = before;
  m.pin_all();
  // The copy spans five checkpoint intervals. In the real run (1 MB/s) release mode copied and
  // released every table within the first interval, hottest first: the model does the same.
  if (release) {
    for (const char* f : {"hot", "append", "warm", "cold"}) m.release(f);
  }
  for (int i = 0; i < 5; ++i) {
    round_of_writes(m, s);
    m.checkpoint_and_resolve_all();
    peak = std::max(peak, total_bytes(m));
    EXPECT_TRUE(m.check().empty()) << m.check().front();
  }
  m.unpin_all();
  return static_cast<double>(peak) / static_cast<double>(before) - 1.0;
}

TEST(BackupModel, ReleaseKeepsTheFilesNearTheirSizeBaselineInflatesThem) {
  const double baseline = inflation(false);
  const double release = inflation(true);
  RecordProperty("baseline_inflation", std::to_string(baseline));
  RecordProperty("release_inflation", std::to_string(release));
  EXPECT_GT(baseline, 0.3);
  EXPECT_LT(release, baseline / 3);
}

}  // namespace
}  // namespace wtsim::models
