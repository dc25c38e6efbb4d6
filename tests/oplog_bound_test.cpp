// oplog_within_bound's reference (properties/oplog_bound.h): a trim pass judged on the oplog
// table's raw keys, and only two passes in a row past their bounds a violation.
#include <gtest/gtest.h>

#include "properties/oplog_bound.h"
#include "tests/engine_harness.h"

namespace wtsim::properties {
namespace {

TEST(OplogBound, APassWithinItsBoundHolds) {
  OplogBoundJudge judge(100);
  EXPECT_FALSE(judge.pass(500, 401)) << "ts 401..500: exactly 100";
  EXPECT_FALSE(judge.pass(50, 1)) << "fewer entries than the bound";
  EXPECT_FALSE(judge.pass(std::nullopt, std::nullopt)) << "an empty oplog";
}

TEST(OplogBound, TwoPassesInARowPastTheBoundAreAViolation) {
  OplogBoundJudge judge(100);
  EXPECT_FALSE(judge.pass(500, 400)) << "one pass may lose a conflict: the next trims";
  const auto f = judge.pass(600, 401);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->first, Property::kOplogWithinBound);
  EXPECT_NE(f->second.find("the oldest entry left is ts 400, below ts 401"), std::string::npos) << f->second;
  EXPECT_NE(f->second.find("then the oldest entry left is ts 401, below ts 501"), std::string::npos) << f->second;
}

TEST(OplogBound, APassWithinTheBoundOrARestartForgetsTheLastExcess) {
  OplogBoundJudge judge(100);
  EXPECT_FALSE(judge.pass(500, 400));
  EXPECT_FALSE(judge.pass(600, 501));
  EXPECT_FALSE(judge.pass(700, 500)) << "the excess before the good pass is forgotten";
  judge.restarted();
  EXPECT_FALSE(judge.pass(800, 600)) << "a new generation starts afresh";
}

TEST(OplogBound, TheRawEndsAreTheEnginesOplogAroundATrim) {
  engine::EngineHarness h;
  h.config().oplog = true;
  h.config().oplog_max_entries = 10;
  h.reopen();
  h.run([&](engine::OperationContext& op) {
    std::optional<uint64_t> newest, oldest;
    ASSERT_EQ(read_oplog_end(op.session(), true, &newest), 0);
    EXPECT_FALSE(newest) << "no entry yet";
    for (int i = 0; i < 30; ++i) ASSERT_TRUE(h.engine().insert_many(op, "test.c", {{{"_id", i}}}, {}).ok());
    ASSERT_EQ(read_oplog_end(op.session(), true, &newest), 0);
    ASSERT_EQ(read_oplog_end(op.session(), false, &oldest), 0);
    EXPECT_EQ(newest, h.engine().next_oplog_ts() - 1);
    EXPECT_EQ(oldest, 1u);
    OplogBoundJudge untrimmed(10);
    EXPECT_FALSE(untrimmed.pass(newest, oldest));
    EXPECT_TRUE(untrimmed.pass(newest, oldest)) << "two passes that trimmed nothing: 30 entries against 10";
    ASSERT_EQ(h.engine().trim_oplog(op), 0);
    ASSERT_EQ(read_oplog_end(op.session(), false, &oldest), 0);
    EXPECT_EQ(oldest, *newest - 9) << "the newest 10 stay";
    EXPECT_FALSE(OplogBoundJudge(10).pass(newest, oldest));
  });
}

}  // namespace
}  // namespace wtsim::properties
