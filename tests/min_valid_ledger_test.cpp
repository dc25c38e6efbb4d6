// min_valid_kept's reference (properties/min_valid_ledger.h): what a member owes from its
// rollbacks and its applier, judged at a start against the raw minValid table and when it is about
// to become primary or answer a read.
#include <gtest/gtest.h>

#include "properties/min_valid_ledger.h"

namespace wtsim::properties {
namespace {

TEST(MinValidLedger, NothingIsOwedWithoutARollback) {
  MinValidLedger ledger;
  EXPECT_FALSE(ledger.owed_ts());
  EXPECT_FALSE(ledger.check_start(std::nullopt));
  EXPECT_FALSE(ledger.check_serving("answer a read"));
}

TEST(MinValidLedger, AStartMustFindThePointUntilTheOplogReachesIt) {
  MinValidLedger ledger;
  ledger.rollback_began(100);
  EXPECT_FALSE(ledger.check_start(100));
  EXPECT_FALSE(ledger.check_start(120)) << "a rollback redone may have raised it";
  const auto lost = ledger.check_start(std::nullopt);
  ASSERT_TRUE(lost);
  EXPECT_EQ(lost->first, Property::kMinValidKept);
  EXPECT_NE(lost->second.find("ts 100"), std::string::npos) << lost->second;
  EXPECT_TRUE(ledger.check_start(99)) << "a lower point lets the member take older data for consistent";
  ledger.applied(99);
  EXPECT_TRUE(ledger.check_start(std::nullopt)) << "one entry short";
  ledger.applied(100);
  EXPECT_FALSE(ledger.owed_ts());
  EXPECT_FALSE(ledger.check_start(std::nullopt)) << "reached: the table may be cleared";
}

TEST(MinValidLedger, BelowThePointTheMemberNeitherLeadsNorAnswersReads) {
  MinValidLedger ledger;
  ledger.rollback_began(50);
  ledger.rollback_began(40);  // redone after a crash against a source that answered lower: the higher stays
  EXPECT_EQ(ledger.owed_ts(), 50u);
  const auto lead = ledger.check_serving("become primary");
  ASSERT_TRUE(lead);
  EXPECT_NE(lead->second.find("become primary below minValid (ts 50)"), std::string::npos) << lead->second;
  ledger.applied(50);
  EXPECT_FALSE(ledger.check_serving("answer a read"));
}

}  // namespace
}  // namespace wtsim::properties
