// The fault model checks itself: each weakening of faults/weakening.h (a crash mode or disk fault
// that stopped keeping its promise) is switched on in turn, and the promise check that guards it
// (tests/fault_promises.h) must report it broken. Built against the faults library compiled with
// WTSIM_FAULT_WEAKENINGS. With no weakening on, every promise holds in this same build: a catch
// counts only if the check passes with the weakening off.
#include <gtest/gtest.h>

#include <cstdio>
#include <set>
#include <string>
#include <vector>

#include "faults/weakening.h"
#include "tests/fault_promises.h"

namespace wtsim::tests {
namespace {

using faults::weakening::Weakening;

struct Guard {
  Weakening weakening;
  const char* promise;  // the FaultPromise::name that must catch it
};

const std::vector<Guard>& guards() {
  static const std::vector<Guard> table = {
      {Weakening::kCrashKeepsUnsynced, "DropUnsyncedKeepsOnlySynced"},
      {Weakening::kTornKeepsAnySubset, "TornPrefixKeepsAPrefix"},
      {Weakening::kTornNeverTears, "TornPrefixTearsAtSectors"},
      {Weakening::kTornKeepsNothing, "TornPrefixKeepsAndDrops"},
      {Weakening::kSectorDamageWholeWrites, "SectorDamageMixesWithinAWrite"},
      {Weakening::kSectorDamageHalfSectors, "SectorDamageKeepsWholeSectors"},
      {Weakening::kSyncPersistsNothing, "SyncedWritesSurviveEveryMode"},
      {Weakening::kDirectoryAlwaysDurable, "CreateNeedsADirectorySync"},
      {Weakening::kFailedSyncKeepsDirty, "FailedSyncLosesDirtyData"},
      {Weakening::kFenceLeaks, "FencedWritesNeverReachTheDisk"},
      {Weakening::kFullDiskIgnored, "FullDiskRefusesGrowth"},
      {Weakening::kFullDiskRefusesOverwrites, "FullDiskAllowsOverwrites"},
      {Weakening::kBitFlipVolatile, "BitFlipIsOneDurableBit"},
      {Weakening::kLyingSyncTellsTruth, "LyingSyncPersistsNothing"},
      {Weakening::kIoErrorDropped, "IoErrorHitsTheNthOp"},
      {Weakening::kStickyErrorHeals, "StickyErrorLastsUntilAPowerCycle"},
      {Weakening::kMisdirectLandsInPlace, "MisdirectedWriteLandsFurtherOn"},
      {Weakening::kCrashOneOpLate, "CrashComesBeforeItsOp"},
      {Weakening::kLatencyIgnored, "LatencyMultipliesInItsWindow"},
  };
  return table;
}

const FaultPromise* promise_named(const std::string& name) {
  for (const FaultPromise& p : fault_promises()) {
    if (name == p.name) return &p;
  }
  return nullptr;
}

// Switches one weakening on for a scope.
class Weakened {
 public:
  explicit Weakened(Weakening w) { faults::weakening::enable(w); }
  ~Weakened() { faults::weakening::disable(); }
  Weakened(const Weakened&) = delete;
  Weakened& operator=(const Weakened&) = delete;
};

TEST(FaultModelSelfCheck, EveryWeakeningHasAGuardThatExists) {
  std::set<Weakening> guarded;
  for (const Guard& g : guards()) {
    EXPECT_NE(promise_named(g.promise), nullptr) << g.promise;
    EXPECT_TRUE(guarded.insert(g.weakening).second) << faults::weakening::name_of(g.weakening) << " is listed twice";
  }
  EXPECT_EQ(guarded.size(), faults::weakening::kWeakeningCount);
}

TEST(FaultModelSelfCheck, WithNoWeakeningEveryPromiseHolds) {
  ASSERT_FALSE(faults::weakening::enabled().has_value());
  for (const FaultPromise& p : fault_promises()) EXPECT_EQ(p.broken(), "") << p.name;
}

class WeakenedModel : public ::testing::TestWithParam<Guard> {};

TEST_P(WeakenedModel, IsCaughtByItsGuard) {
  const Guard& g = GetParam();
  const FaultPromise* guard = promise_named(g.promise);
  ASSERT_NE(guard, nullptr);
  std::string caught;
  std::string also_broken;
  {
    Weakened weakened(g.weakening);
    caught = guard->broken();
    for (const FaultPromise& p : fault_promises()) {
      if (&p != guard && !p.broken().empty()) also_broken += std::string(also_broken.empty() ? "" : ", ") + p.name;
    }
  }
  EXPECT_NE(caught, "") << g.promise << " did not notice " << faults::weakening::name_of(g.weakening);
  EXPECT_EQ(guard->broken(), "") << "with the weakening off again";
  std::printf("%s: caught by %s (%s)%s%s\n", faults::weakening::name_of(g.weakening), g.promise, caught.c_str(),
              also_broken.empty() ? "" : "; also broken: ", also_broken.c_str());
}

INSTANTIATE_TEST_SUITE_P(FaultModel, WeakenedModel, ::testing::ValuesIn(guards()),
                         [](const ::testing::TestParamInfo<Guard>& info) { return std::string(faults::weakening::name_of(info.param.weakening)); });

}  // namespace
}  // namespace wtsim::tests
