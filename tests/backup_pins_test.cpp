// properties/backup_pins.h: backup_leaves_no_pin's reference reads WiredTiger's metadata, so it
// sees a named checkpoint on any file, whether the engine's catalog names its table or not.
#include "properties/backup_pins.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "engine/hot_backup.h"
#include "engine/wt_schema.h"
#include "tests/engine_harness.h"

namespace wtsim::engine {
namespace {

bool holds(const std::vector<std::string>& files, const std::string& file) {
  return std::find(files.begin(), files.end(), file) != files.end();
}

TEST(BackupPins, EveryFileTheNamedCheckpointPinsIsListedUntilItsPinIsReleased) {
  EngineHarness h;
  h.run([&](OperationContext& op) {
    ASSERT_TRUE(h.engine().create_collection(op, "db.c", {}).ok());
    // A table no catalog row names (as a member's vote record is).
    ASSERT_EQ(create_table(op.session(), "table:own_records", "key_format=q,value_format=q"), 0);
    std::vector<std::string> files;
    ASSERT_EQ(properties::files_holding_checkpoint(op.session(), kBackupCheckpoint, &files), 0);
    EXPECT_TRUE(files.empty());

    ASSERT_EQ(pin_backup_checkpoint(op.session()), 0);
    ASSERT_EQ(properties::files_holding_checkpoint(op.session(), kBackupCheckpoint, &files), 0);
    EXPECT_TRUE(holds(files, "file:own_records.wt"));
    const size_t pinned = files.size();
    EXPECT_GE(pinned, 3u);  // the catalog, the collection's records and its _id index, at least

    ASSERT_EQ(release_backup_checkpoint(op.session(), "table:own_records"), 0);
    ASSERT_EQ(properties::files_holding_checkpoint(op.session(), kBackupCheckpoint, &files), 0);
    EXPECT_FALSE(holds(files, "file:own_records.wt"));
    EXPECT_EQ(files.size(), pinned - 1);
    // Another checkpoint's name is not the backup's, even as a prefix.
    ASSERT_EQ(properties::files_holding_checkpoint(op.session(), "wtsim_back", &files), 0);
    EXPECT_TRUE(files.empty());
  });
}

}  // namespace
}  // namespace wtsim::engine
