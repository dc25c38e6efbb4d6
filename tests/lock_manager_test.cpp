// The lock manager: conflict table, grant policy (FIFO, global S/X at the front, recursion),
// collection vs document policy on virtual time, cancellation, deadlock reports, safety check.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "engine/lock_manager.h"
#include "properties/lock_holders.h"
#include "properties/lock_matrix.h"
#include "sim/random.h"
#include "sim/scheduler.h"

namespace wtsim::engine {
namespace {

using sim::kNsPerMs;
using sim::Nanos;
using sim::RunOutcome;
using sim::Simulator;
using Granted = std::vector<std::pair<uint64_t, LockMode>>;

constexpr std::array<LockMode, 5> kAllModes = {LockMode::kNone, LockMode::kIS, LockMode::kIX,
                                               LockMode::kS, LockMode::kX};

TEST(LockConflictTable, EveryCellMatchesTheReference) {
  // semantics.md section 1, written out independently of kConflictTable.
  const std::map<LockMode, std::set<LockMode>> conflicts_with = {
      {LockMode::kNone, {}},
      {LockMode::kIS, {LockMode::kX}},
      {LockMode::kIX, {LockMode::kS, LockMode::kX}},
      {LockMode::kS, {LockMode::kIX, LockMode::kX}},
      {LockMode::kX, {LockMode::kIS, LockMode::kIX, LockMode::kS, LockMode::kX}},
  };
  int cells = 0;
  for (LockMode requested : kAllModes) {
    for (LockMode granted : kAllModes) {
      const bool expected = conflicts_with.at(requested).count(granted) == 1;
      EXPECT_EQ(conflicts(requested, granted), expected)
          << to_string(requested) << " vs " << to_string(granted);
      EXPECT_EQ(conflicts(requested, granted), conflicts(granted, requested)) << "symmetric";
      ++cells;
    }
  }
  EXPECT_EQ(cells, 25);
}

// lock_safety's judge is a second statement of the matrix; the two must agree cell by cell, and a
// grant that breaks the judge's matrix is counted whatever the grant table says.
TEST(LockConflictTable, TheSafetyJudgesMatrixAgreesWithTheGrantTable) {
  for (LockMode a : kAllModes) {
    for (LockMode b : kAllModes) {
      EXPECT_EQ(properties::mongodb_modes_compatible(a, b), !conflicts(a, b)) << to_string(a) << " vs " << to_string(b);
    }
  }
  EXPECT_FALSE(properties::mongodb_modes_compatible(LockMode::kS, LockMode::kIX));
  EXPECT_TRUE(properties::mongodb_modes_compatible(LockMode::kIS, LockMode::kIX));
}

// lock_safety's reference is told of every hold as its caller sees it: after lock() returns, as
// unlock() is called, a waiter's only once it is granted.
TEST(LockManager, TheObserverIsToldOfEveryHoldAsItsCallerSeesIt) {
  Simulator sim(1);
  LockManager lm(sim);
  std::vector<std::string> told;
  properties::LockHolders holders;
  lm.set_observer([&](const std::string& resource, uint64_t, LockMode mode, bool acquired) {
    told.push_back(sim.current().name + (acquired ? " +" : " -") + to_string(mode));
    if (acquired) holders.acquired(resource, sim.current().id, mode);
    if (!acquired) holders.released(resource, sim.current().id, mode);
  });
  sim.spawn("writer", "t", [&] {
    LockGuard g(lm, "coll:test.c", LockMode::kX);
    LockGuard again(lm, "coll:test.c", LockMode::kIS);  // re-entrant: covered by X
    sim.sleep_for(kNsPerMs);
  });
  sim.spawn("reader", "t", [&] {
    sim.sleep_for(kNsPerMs / 10);  // after the writer took X
    LockGuard g(lm, "coll:test.c", LockMode::kIS);
  });
  EXPECT_EQ(sim.run().kind, RunOutcome::Kind::kFinished);
  EXPECT_EQ(told, (std::vector<std::string>{"writer +X", "writer +IS", "writer -IS", "writer -X", "reader +IS", "reader -IS"}));
  EXPECT_EQ(holders.conflicting_grants(), 0u);
  EXPECT_EQ(holders.holds(), 0u);
}

// The reference's own list: a hold beside another client's incompatible one is counted, a
// client's own holds never conflict, and a release gives back one hold of a re-entrant pair.
TEST(LockHolders, AHoldBesideAnotherClientsIncompatibleHoldIsCounted) {
  properties::LockHolders h;
  EXPECT_TRUE(h.acquired("coll:test.c", 1, LockMode::kIX));
  EXPECT_TRUE(h.acquired("coll:test.c", 2, LockMode::kIX));
  EXPECT_TRUE(h.acquired("coll:test.c", 1, LockMode::kIX));  // re-entrant
  EXPECT_FALSE(h.acquired("coll:test.c", 3, LockMode::kS));  // S beside IX
  EXPECT_EQ(h.conflicting_grants(), 1u);
  h.released("coll:test.c", 3, LockMode::kS);
  h.released("coll:test.c", 2, LockMode::kIX);
  h.released("coll:test.c", 1, LockMode::kIX);
  EXPECT_FALSE(h.acquired("coll:test.c", 4, LockMode::kX));  // client 1 still holds IX once
  h.released("coll:test.c", 4, LockMode::kX);
  h.released("coll:test.c", 1, LockMode::kIX);
  EXPECT_TRUE(h.acquired("coll:test.c", 4, LockMode::kX));
  EXPECT_TRUE(h.acquired("coll:test.c", 4, LockMode::kIS));  // its own
  EXPECT_TRUE(h.acquired("db:test", 5, LockMode::kX));       // another resource
  EXPECT_EQ(h.conflicting_grants(), 2u);
  EXPECT_EQ(h.holds(), 3u);
}

TEST(LockConflictTable, NamesAndResources) {
  EXPECT_STREQ(to_string(LockMode::kNone), "NONE");
  EXPECT_STREQ(to_string(LockMode::kIS), "IS");
  EXPECT_STREQ(to_string(LockMode::kIX), "IX");
  EXPECT_STREQ(to_string(LockMode::kS), "S");
  EXPECT_STREQ(to_string(LockMode::kX), "X");
  EXPECT_EQ(db_resource("test"), "db:test");
  EXPECT_EQ(collection_resource("test", "c"), "coll:test.c");
  EXPECT_EQ(intent_mode(LockMode::kIS), LockMode::kIS);
  EXPECT_EQ(intent_mode(LockMode::kX), LockMode::kIX);
  EXPECT_EQ(effective_collection_mode(LockMode::kIS, LockPolicy::kCollection), LockMode::kS);
  EXPECT_EQ(effective_collection_mode(LockMode::kIX, LockPolicy::kCollection), LockMode::kX);
  EXPECT_EQ(effective_collection_mode(LockMode::kIS, LockPolicy::kDocument), LockMode::kIS);
  EXPECT_EQ(effective_collection_mode(LockMode::kIX, LockPolicy::kDocument), LockMode::kIX);
}

TEST(LockManager, WriterBlocksReadersThenGrantsThemTogether) {
  Simulator sim(1);
  LockManager lm(sim);
  std::vector<Nanos> reader_granted_ns;
  sim.spawn("writer", "t", [&] {  // fiber 1
    lm.lock("r", LockMode::kX);
    sim.sleep_for(10 * kNsPerMs);
    lm.unlock("r", LockMode::kX);
  });
  for (int i = 0; i < 2; ++i) {  // fibers 2, 3
    sim.spawn("reader" + std::to_string(i), "t", [&] {
      sim.sleep_for(kNsPerMs);
      lm.lock("r", LockMode::kIS);
      reader_granted_ns.push_back(sim.now_ns());
      EXPECT_EQ(lm.granted("r"), (Granted{{2, LockMode::kIS}, {3, LockMode::kIS}}));
      sim.sleep_for(5 * kNsPerMs);
      lm.unlock("r", LockMode::kIS);
    });
  }
  sim.spawn("observer", "t", [&] {
    sim.sleep_for(5 * kNsPerMs);
    EXPECT_EQ(lm.waiting("r"), 2u);
    EXPECT_EQ(lm.granted("r"), (Granted{{1, LockMode::kX}}));
  });
  ASSERT_EQ(sim.run().kind, RunOutcome::Kind::kFinished);
  EXPECT_EQ(reader_granted_ns, (std::vector<Nanos>{10 * kNsPerMs, 10 * kNsPerMs}));
  EXPECT_EQ(lm.grants(), 3u);
  EXPECT_EQ(lm.waits(), 2u);
  EXPECT_EQ(lm.conflict_violations(), 0u);
  EXPECT_TRUE(lm.granted("r").empty());
  EXPECT_EQ(lm.waiting("r"), 0u);
}

// Who gets `resource` when, for: holder (0..10 ms, `holder_mode`), then a request at 1 ms and
// another at 2 ms, each held 5 ms.
std::vector<std::pair<std::string, Nanos>> grant_order(const std::string& resource,
                                                       LockMode holder_mode, LockMode first,
                                                       LockMode second) {
  Simulator sim(1);
  LockManager lm(sim);
  std::vector<std::pair<std::string, Nanos>> order;
  auto request = [&](std::string name, Nanos start_ns, Nanos hold_ns, LockMode mode) {
    sim.spawn(name, "t", [&, name, start_ns, hold_ns, mode] {
      sim.sleep_for(start_ns);
      lm.lock(resource, mode);
      order.emplace_back(name, sim.now_ns());
      sim.sleep_for(hold_ns);
      lm.unlock(resource, mode);
    });
  };
  request("holder", 0, 10 * kNsPerMs, holder_mode);
  request("first", kNsPerMs, 5 * kNsPerMs, first);
  request("second", 2 * kNsPerMs, 5 * kNsPerMs, second);
  EXPECT_EQ(sim.run().kind, RunOutcome::Kind::kFinished);
  EXPECT_EQ(lm.conflict_violations(), 0u);
  return order;
}

TEST(LockManager, FifoFairnessCompatibleRequestQueuesBehindAWaiter) {
  // IS at 2 ms is compatible with the granted IS but must not overtake the waiting X.
  const auto order = grant_order("r", LockMode::kIS, LockMode::kX, LockMode::kIS);
  const decltype(order) expected = {
      {"holder", 0}, {"first", 10 * kNsPerMs}, {"second", 15 * kNsPerMs}};
  EXPECT_EQ(order, expected);
}

TEST(LockManager, GrantLoopStopsAtTheFirstIncompatibleWaiter) {
  Simulator sim(1);
  LockManager lm(sim);
  std::vector<std::pair<std::string, Nanos>> order;
  auto request = [&](std::string name, Nanos start_ns, Nanos hold_ns, LockMode mode) {
    sim.spawn(name, "t", [&, name, start_ns, hold_ns, mode] {
      sim.sleep_for(start_ns);
      lm.lock("r", mode);
      order.emplace_back(name, sim.now_ns());
      sim.sleep_for(hold_ns);
      lm.unlock("r", mode);
    });
  };
  request("is_holder", 0, 10 * kNsPerMs, LockMode::kIS);
  request("ix_holder", 0, 20 * kNsPerMs, LockMode::kIX);
  request("s_waiter", kNsPerMs, kNsPerMs, LockMode::kS);     // blocked by the IX
  request("is_waiter", 2 * kNsPerMs, kNsPerMs, LockMode::kIS);  // behind the S
  ASSERT_EQ(sim.run().kind, RunOutcome::Kind::kFinished);
  // At 10 ms the IS holder leaves; the S still conflicts, so the IS behind it is not let past.
  const std::map<std::string, Nanos> granted_ns(order.begin(), order.end());
  EXPECT_EQ(granted_ns.at("s_waiter"), 20 * kNsPerMs);
  EXPECT_EQ(granted_ns.at("is_waiter"), 20 * kNsPerMs);
}

TEST(LockManager, GlobalSharedAndExclusiveAreQueuedAtTheFront) {
  const auto global = grant_order("global", LockMode::kX, LockMode::kIX, LockMode::kS);
  const decltype(global) s_first = {
      {"holder", 0}, {"second", 10 * kNsPerMs}, {"first", 15 * kNsPerMs}};
  EXPECT_EQ(global, s_first);
  // The same requests on a database queue FIFO.
  const auto db = grant_order("db:test", LockMode::kX, LockMode::kIX, LockMode::kS);
  const decltype(db) fifo = {{"holder", 0}, {"first", 10 * kNsPerMs}, {"second", 15 * kNsPerMs}};
  EXPECT_EQ(db, fifo);
  // Global X goes ahead of an earlier global X waiter too.
  const auto xx = grant_order("global", LockMode::kIS, LockMode::kX, LockMode::kX);
  const decltype(xx) x_first = {
      {"holder", 0}, {"second", 10 * kNsPerMs}, {"first", 15 * kNsPerMs}};
  EXPECT_EQ(xx, x_first);
}

TEST(LockManager, FrontQueuedGlobalSharedIsGrantedAtOnceWhenCompatible) {
  // Nobody is queued ahead of a front request: S joins the granted IS although X waits.
  const auto order = grant_order("global", LockMode::kIS, LockMode::kX, LockMode::kS);
  const decltype(order) expected = {
      {"holder", 0}, {"second", 2 * kNsPerMs}, {"first", 10 * kNsPerMs}};
  EXPECT_EQ(order, expected);
}

TEST(LockManager, RecursionCountsHoldsAndNeverQueuesBehindWaiters) {
  Simulator sim(1);
  LockManager lm(sim);
  Nanos reader_granted_ns = -1;
  sim.spawn("owner", "t", [&] {  // fiber 1
    lm.lock("r", LockMode::kX);
    lm.lock("r", LockMode::kX);
    sim.sleep_for(10 * kNsPerMs);
    lm.unlock("r", LockMode::kX);
    EXPECT_EQ(lm.granted("r"), (Granted{{1, LockMode::kX}}));  // one hold left
    EXPECT_EQ(lm.waiting("r"), 1u);
    lm.lock("r", LockMode::kIS);  // covered by X: granted although a reader waits
    EXPECT_EQ(lm.granted("r"), (Granted{{1, LockMode::kIS}, {1, LockMode::kX}}));
    lm.unlock("r", LockMode::kIS);
    sim.sleep_for(5 * kNsPerMs);
    lm.unlock("r", LockMode::kX);
  });
  sim.spawn("reader", "t", [&] {
    sim.sleep_for(kNsPerMs);
    lm.lock("r", LockMode::kIS);
    reader_granted_ns = sim.now_ns();
    lm.unlock("r", LockMode::kIS);
  });
  ASSERT_EQ(sim.run().kind, RunOutcome::Kind::kFinished);
  EXPECT_EQ(reader_granted_ns, 15 * kNsPerMs);
  EXPECT_EQ(lm.waits(), 1u);
  EXPECT_EQ(lm.conflict_violations(), 0u);
}

TEST(LockManager, UpgradeIgnoresTheFibersOwnGrant) {
  Simulator sim(1);
  LockManager lm(sim);
  sim.spawn("upgrader", "t", [&] {  // fiber 1
    lm.lock("r", LockMode::kIS);
    lm.lock("r", LockMode::kX);  // not covered by IS, but nobody else holds r: no wait
    EXPECT_EQ(lm.granted("r"), (Granted{{1, LockMode::kIS}, {1, LockMode::kX}}));
    lm.unlock("r", LockMode::kX);
    lm.unlock("r", LockMode::kIS);
  });
  ASSERT_EQ(sim.run().kind, RunOutcome::Kind::kFinished);
  EXPECT_EQ(lm.waits(), 0u);
  EXPECT_EQ(lm.conflict_violations(), 0u);  // a fiber's own grants are not a conflict
}

// Two operations on test.c, each holding its locks for 10 ms; returns their finish times.
std::vector<Nanos> two_ops_finish_ns(LockMode first_mode, LockMode second_mode,
                                     LockPolicy policy, uint64_t* waits = nullptr) {
  Simulator sim(1);
  LockManager lm(sim);
  std::vector<Nanos> finish_ns;
  for (LockMode mode : {first_mode, second_mode}) {
    sim.spawn(to_string(mode), "t", [&, mode] {
      HierarchicalLock locks(lm, "test", "c", mode, policy);
      sim.sleep_for(10 * kNsPerMs);
      finish_ns.push_back(sim.now_ns());
    });
  }
  EXPECT_EQ(sim.run().kind, RunOutcome::Kind::kFinished);
  EXPECT_EQ(lm.conflict_violations(), 0u);
  EXPECT_TRUE(lm.granted(kGlobalResource).empty());
  if (waits != nullptr) *waits = lm.waits();
  return finish_ns;
}

TEST(HierarchicalLock, CollectionPolicySerializesWriters) {
  uint64_t waits = 0;
  EXPECT_EQ(two_ops_finish_ns(LockMode::kIX, LockMode::kIX, LockPolicy::kCollection, &waits),
            (std::vector<Nanos>{10 * kNsPerMs, 20 * kNsPerMs}));
  EXPECT_EQ(waits, 1u);
}

TEST(HierarchicalLock, DocumentPolicyRunsWritersConcurrently) {
  uint64_t waits = 0;
  EXPECT_EQ(two_ops_finish_ns(LockMode::kIX, LockMode::kIX, LockPolicy::kDocument, &waits),
            (std::vector<Nanos>{10 * kNsPerMs, 10 * kNsPerMs}));
  EXPECT_EQ(waits, 0u);
}

TEST(HierarchicalLock, ReadersShareUnderBothPolicies) {
  for (LockPolicy policy : {LockPolicy::kCollection, LockPolicy::kDocument}) {
    EXPECT_EQ(two_ops_finish_ns(LockMode::kIS, LockMode::kIS, policy),
              (std::vector<Nanos>{10 * kNsPerMs, 10 * kNsPerMs}));
  }
}

TEST(HierarchicalLock, ReadersWaitBehindACollectionPolicyWriter) {
  for (LockPolicy policy : {LockPolicy::kCollection, LockPolicy::kDocument}) {
    Simulator sim(1);
    LockManager lm(sim);
    std::vector<Nanos> reader_finish_ns;
    sim.spawn("writer", "t", [&] {
      HierarchicalLock locks(lm, "test", "c", LockMode::kIX, policy);
      sim.sleep_for(10 * kNsPerMs);
    });
    for (int i = 0; i < 2; ++i) {
      sim.spawn("reader" + std::to_string(i), "t", [&] {
        sim.sleep_for(kNsPerMs);
        HierarchicalLock locks(lm, "test", "c", LockMode::kIS, policy);
        sim.sleep_for(5 * kNsPerMs);
        reader_finish_ns.push_back(sim.now_ns());
      });
    }
    sim.spawn("observer", "t", [&] {
      sim.sleep_for(3 * kNsPerMs);
      const bool collection = policy == LockPolicy::kCollection;
      EXPECT_EQ(lm.waiting("coll:test.c"), collection ? 2u : 0u);
      // Intent locks above the collection are shared by all three either way.
      EXPECT_EQ(lm.granted("global"),
                (Granted{{1, LockMode::kIX}, {2, LockMode::kIS}, {3, LockMode::kIS}}));
      EXPECT_EQ(lm.granted("db:test").size(), 3u);
      if (collection) {
        EXPECT_EQ(lm.granted("coll:test.c"), (Granted{{1, LockMode::kX}}));
      }
    });
    ASSERT_EQ(sim.run().kind, RunOutcome::Kind::kFinished);
    const Nanos expected_ns = policy == LockPolicy::kCollection ? 15 * kNsPerMs : 6 * kNsPerMs;
    EXPECT_EQ(reader_finish_ns, (std::vector<Nanos>{expected_ns, expected_ns}));
    EXPECT_EQ(lm.conflict_violations(), 0u);
  }
}

TEST(LockManager, CancelledWaiterLeavesTheQueueAndLetsTheNextIn) {
  Simulator sim(1);
  LockManager lm(sim);
  bool victim_cancelled = false, victim_granted = false;
  Nanos next_granted_ns = -1;
  sim.spawn("holder", "t", [&] {
    lm.lock("r", LockMode::kS);
    sim.sleep_for(20 * kNsPerMs);
    lm.unlock("r", LockMode::kS);
  });
  sim.spawn("victim", "victim", [&] {
    sim.sleep_for(kNsPerMs);
    try {
      lm.lock("r", LockMode::kX);  // conflicts with S: waits at the head of the queue
      victim_granted = true;
    } catch (const sim::Cancelled&) {
      victim_cancelled = true;
      throw;
    }
  });
  sim.spawn("next", "t", [&] {
    sim.sleep_for(2 * kNsPerMs);
    lm.lock("r", LockMode::kIS);  // compatible with S, but FIFO puts it behind the X
    next_granted_ns = sim.now_ns();
    lm.unlock("r", LockMode::kIS);
  });
  sim.spawn("killer", "t", [&] {
    sim.sleep_for(5 * kNsPerMs);
    EXPECT_EQ(lm.waiting("r"), 2u);
    sim.cancel_group("victim");
  });
  ASSERT_EQ(sim.run().kind, RunOutcome::Kind::kFinished);
  EXPECT_TRUE(victim_cancelled);
  EXPECT_FALSE(victim_granted);
  EXPECT_EQ(next_granted_ns, 5 * kNsPerMs);  // let in as soon as the X left, not after the S
  EXPECT_EQ(lm.waiting("r"), 0u);
  EXPECT_TRUE(lm.granted("r").empty());
  EXPECT_EQ(lm.conflict_violations(), 0u);
}

TEST(LockManager, GrantRacingACancelIsGivenBack) {
  Simulator sim(1);
  LockManager lm(sim);
  bool victim_granted = false;
  Nanos late_granted_ns = -1;
  sim.spawn("holder", "t", [&] {  // fiber 1
    lm.lock("r", LockMode::kX);
    sim.sleep_for(10 * kNsPerMs);
    lm.unlock("r", LockMode::kX);  // hands the lock to the victim ...
    EXPECT_EQ(lm.granted("r"), (Granted{{2, LockMode::kIS}}));
    sim.cancel_group("victim");  // ... which is cancelled before it runs again
  });
  sim.spawn("victim", "victim", [&] {  // fiber 2
    sim.sleep_for(kNsPerMs);
    lm.lock("r", LockMode::kIS);
    victim_granted = true;
  });
  sim.spawn("late", "t", [&] {
    sim.sleep_for(20 * kNsPerMs);
    lm.lock("r", LockMode::kX);
    late_granted_ns = sim.now_ns();
    lm.unlock("r", LockMode::kX);
  });
  ASSERT_EQ(sim.run().kind, RunOutcome::Kind::kFinished);
  EXPECT_FALSE(victim_granted);
  EXPECT_EQ(late_granted_ns, 20 * kNsPerMs);  // nothing leaked: granted without waiting
  EXPECT_EQ(lm.waits(), 1u);
  EXPECT_TRUE(lm.granted("r").empty());
}

TEST(HierarchicalLock, CancelledMidwayReleasesWhatItAcquired) {
  Simulator sim(1);
  LockManager lm(sim);
  sim.spawn("writer", "t", [&] {  // fiber 1
    HierarchicalLock locks(lm, "test", "c", LockMode::kIX, LockPolicy::kCollection);
    sim.sleep_for(10 * kNsPerMs);
  });
  sim.spawn("victim", "victim", [&] {  // fiber 2: gets global and db, waits for the collection
    sim.sleep_for(kNsPerMs);
    HierarchicalLock locks(lm, "test", "c", LockMode::kIX, LockPolicy::kCollection);
    ADD_FAILURE() << "the victim was granted the collection";
  });
  sim.spawn("killer", "t", [&] {
    sim.sleep_for(2 * kNsPerMs);
    EXPECT_EQ(lm.granted("global"), (Granted{{1, LockMode::kIX}, {2, LockMode::kIX}}));
    EXPECT_EQ(lm.waiting("coll:test.c"), 1u);
    sim.cancel_group("victim");
    sim.sleep_for(kNsPerMs);
    EXPECT_EQ(lm.granted("global"), (Granted{{1, LockMode::kIX}}));
    EXPECT_EQ(lm.granted("db:test"), (Granted{{1, LockMode::kIX}}));
    EXPECT_EQ(lm.waiting("coll:test.c"), 0u);
  });
  ASSERT_EQ(sim.run().kind, RunOutcome::Kind::kFinished);
  EXPECT_TRUE(lm.granted("global").empty());
}

TEST(HierarchicalLock, OppositeOrderUnderCollectionPolicyIsAReportedDeadlock) {
  Simulator sim(1);
  LockManager lm(sim);
  auto op = [&](const std::string& first, const std::string& second) {
    return [&, first, second] {
      HierarchicalLock a(lm, "test", first, LockMode::kIX, LockPolicy::kCollection);
      sim.sleep_for(kNsPerMs);
      HierarchicalLock b(lm, "test", second, LockMode::kIX, LockPolicy::kCollection);
      ADD_FAILURE() << "both collections granted";
    };
  };
  sim.spawn("left", "t", op("a", "b"));
  sim.spawn("right", "t", op("b", "a"));
  const RunOutcome out = sim.run();
  ASSERT_EQ(out.kind, RunOutcome::Kind::kDeadlock);
  EXPECT_EQ(out.at_ns, kNsPerMs);
  ASSERT_EQ(out.blocked.size(), 2u);
  for (const auto& blocked : out.blocked) {
    EXPECT_NE(blocked.waits_on.find("lock coll:"), std::string::npos) << blocked.waits_on;
  }
  EXPECT_EQ(out.blocked[0].waits_on, "lock coll:test.b X");
  EXPECT_EQ(out.blocked[1].waits_on, "lock coll:test.a X");
  // The deadlock's cancellation unwound both fibers and all their locks.
  EXPECT_EQ(sim.live_fibers(), 0u);
  for (const char* r : {"global", "db:test", "coll:test.a", "coll:test.b"}) {
    EXPECT_TRUE(lm.granted(r).empty()) << r;
    EXPECT_EQ(lm.waiting(r), 0u) << r;
  }
}

struct WorkloadResult {
  RunOutcome::Kind kind;
  uint64_t grants, waits, violations;
  uint64_t oracle_violations;  // the test's own bookkeeping, independent of the manager's
};

// 8 fibers x 200 iterations of: lock a random resource in a random mode (sometimes twice),
// hold it for 0..2 ms, release, pause 0..1 ms. One resource at a time, so no deadlocks.
WorkloadResult random_workload(uint64_t seed, bool planted_bug) {
  Simulator sim(seed);
  LockManager lm(sim);
  lm.set_planted_bug_wrong_cell(planted_bug);
  sim::Rng rng = sim::stream(seed, "lock_workload");
  const std::vector<std::string> resources = {"global", "db:test", "coll:test.c"};
  std::map<std::string, std::array<int, kLockModeCount>> holders;
  uint64_t oracle_violations = 0;
  for (int f = 0; f < 8; ++f) {
    sim.spawn("worker" + std::to_string(f), "t", [&] {
      for (int i = 0; i < 200; ++i) {
        const std::string& resource = resources[rng.below(resources.size())];
        const LockMode mode = kAllModes[1 + rng.below(4)];
        const bool recurse = rng.chance(0.25);
        lm.lock(resource, mode);
        for (LockMode held : kAllModes) {
          if (holders[resource][static_cast<size_t>(held)] > 0 && conflicts(mode, held)) {
            ++oracle_violations;
          }
        }
        ++holders[resource][static_cast<size_t>(mode)];
        if (recurse) lm.lock(resource, mode);
        sim.sleep_for(rng.between(0, 2) * kNsPerMs);
        if (recurse) lm.unlock(resource, mode);
        --holders[resource][static_cast<size_t>(mode)];
        lm.unlock(resource, mode);
        sim.sleep_for(rng.between(0, 1) * kNsPerMs);
      }
    });
  }
  const RunOutcome out = sim.run();
  return {out.kind, lm.grants(), lm.waits(), lm.conflict_violations(), oracle_violations};
}

TEST(LockManagerSafety, CorrectTableNeverGrantsConflictingModes) {
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    const WorkloadResult r = random_workload(seed, false);
    EXPECT_EQ(r.kind, RunOutcome::Kind::kFinished) << "seed " << seed;
    EXPECT_EQ(r.violations, 0u) << "seed " << seed;
    EXPECT_EQ(r.oracle_violations, 0u) << "seed " << seed;
    EXPECT_GE(r.grants, 8u * 200u) << "seed " << seed;
    EXPECT_GT(r.waits, 0u) << "seed " << seed;  // the workload does contend
  }
}

TEST(LockManagerSafety, PlantedWrongCellIsCaughtByTheCheck) {
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    const WorkloadResult r = random_workload(seed, true);
    EXPECT_EQ(r.kind, RunOutcome::Kind::kFinished) << "seed " << seed;
    EXPECT_GT(r.violations, 0u) << "seed " << seed;
    EXPECT_GT(r.oracle_violations, 0u) << "seed " << seed;  // the check is not imagining it
  }
}

TEST(LockManagerSafety, SameSeedSameRun) {
  const WorkloadResult a = random_workload(3, false), b = random_workload(3, false);
  EXPECT_EQ(a.grants, b.grants);
  EXPECT_EQ(a.waits, b.waits);
}

}  // namespace
}  // namespace wtsim::engine
