// The seeded scheduler: virtual time, determinism of interleavings, deadlock reports, cancel.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/scheduler.h"
#include "sim/sync.h"

namespace wtsim::sim {
namespace {

std::vector<int> interleaving(uint64_t seed) {
  Simulator sim(seed);
  std::vector<int> order;
  for (int f = 0; f < 4; ++f) {
    sim.spawn("f" + std::to_string(f), "t", [&, f] {
      for (int i = 0; i < 5; ++i) {
        order.push_back(f);
        sim.yield();
      }
    });
  }
  EXPECT_EQ(sim.run().kind, RunOutcome::Kind::kFinished);
  return order;
}

TEST(Scheduler, SameSeedSameInterleaving) {
  for (uint64_t seed = 1; seed <= 20; ++seed) EXPECT_EQ(interleaving(seed), interleaving(seed));
}

TEST(Scheduler, DifferentSeedsExploreDifferentInterleavings) {
  std::set<std::vector<int>> seen;
  for (uint64_t seed = 1; seed <= 20; ++seed) seen.insert(interleaving(seed));
  EXPECT_GT(seen.size(), 10u);
}

TEST(Scheduler, SleepAdvancesVirtualTimeExactly) {
  Simulator sim(1);
  std::vector<std::pair<std::string, Nanos>> wakes;
  sim.spawn("slow", "t", [&] {
    sim.sleep_for(3 * kNsPerSec);
    wakes.emplace_back("slow", sim.now_ns());
  });
  sim.spawn("fast", "t", [&] {
    sim.sleep_for(kNsPerMs);
    wakes.emplace_back("fast", sim.now_ns());
    sim.sleep_for(kNsPerMs);
    wakes.emplace_back("fast", sim.now_ns());
  });
  EXPECT_EQ(sim.run().kind, RunOutcome::Kind::kFinished);
  ASSERT_EQ(wakes.size(), 3u);
  EXPECT_EQ(wakes[0], std::make_pair(std::string("fast"), kNsPerMs));
  EXPECT_EQ(wakes[1], std::make_pair(std::string("fast"), 2 * kNsPerMs));
  EXPECT_EQ(wakes[2], std::make_pair(std::string("slow"), 3 * kNsPerSec));
  EXPECT_EQ(sim.now_ns(), 3 * kNsPerSec);
}

// A run whose end comes sooner: sleeps past the cut wake at it; an earlier sleep and a park_until
// deadline (WiredTiger's timed waits) keep their times.
TEST(Scheduler, CutSleepsWakesLateSleepersAtTheCutInTheirOrder) {
  Simulator sim(1);
  std::vector<std::pair<std::string, Nanos>> woke;
  const auto sleeper = [&](const std::string& name, Nanos until_ns) {
    sim.spawn(name, "t", [&, name, until_ns] {
      sim.sleep_until(until_ns);
      woke.emplace_back(name, sim.now_ns());
    });
  };
  sleeper("late-300", 300);
  sleeper("early-100", 100);
  sleeper("late-200", 200);
  sim.spawn("timed-wait", "t", [&] {
    const Nanos deadline_ns = 400;
    EXPECT_TRUE(sim.park_until("cond", &deadline_ns));
    woke.emplace_back("timed-wait", sim.now_ns());
  });
  sim.spawn("cutter", "t", [&] {
    sim.sleep_until(50);
    EXPECT_EQ(sim.cut_sleeps(150), 2u);  // late-300 and late-200; not the timed wait
    EXPECT_EQ(sim.cut_sleeps(150), 0u);  // nothing is past the cut any more
  });
  ASSERT_EQ(sim.run().kind, RunOutcome::Kind::kFinished);
  // Fibers ready at one instant run in the seeded scheduler's order: compare as a set.
  std::sort(woke.begin(), woke.end());
  const std::vector<std::pair<std::string, Nanos>> want = {
      {"early-100", 100}, {"late-200", 150}, {"late-300", 150}, {"timed-wait", 400}};
  EXPECT_EQ(woke, want);
}

TEST(Scheduler, DeadlockIsReportedWithEachBlockedFiberAndWhatItWaitsOn) {
  Simulator sim(1);
  Mutex a("a"), b("b");
  Event never("never");
  sim.spawn("left", "t", [&] {
    MutexGuard g(a);
    sim.sleep_for(kNsPerMs);
    MutexGuard h(b);
  });
  sim.spawn("right", "t", [&] {
    MutexGuard g(b);
    sim.sleep_for(kNsPerMs);
    MutexGuard h(a);
  });
  sim.spawn("waiter", "t", [&] { never.wait(); });
  const RunOutcome out = sim.run();
  ASSERT_EQ(out.kind, RunOutcome::Kind::kDeadlock);
  ASSERT_EQ(out.blocked.size(), 3u);
  EXPECT_EQ(out.blocked[0].name, "left");
  EXPECT_EQ(out.blocked[0].waits_on, "mutex b");
  EXPECT_EQ(out.blocked[1].name, "right");
  EXPECT_EQ(out.blocked[1].waits_on, "mutex a");
  EXPECT_EQ(out.blocked[2].waits_on, "event never");
  EXPECT_EQ(sim.live_fibers(), 0u);  // all were cancelled and unwound
}

TEST(Scheduler, TimeLimitStopsARunaway) {
  Simulator sim(1, 10 * kNsPerSec);
  sim.spawn("forever", "t", [&] {
    while (true) sim.sleep_for(kNsPerSec);
  });
  const RunOutcome out = sim.run();
  EXPECT_EQ(out.kind, RunOutcome::Kind::kTimeLimit);
  EXPECT_LE(sim.now_ns(), 10 * kNsPerSec);
}

TEST(Scheduler, CancelGroupUnwindsOnlyThatGroup) {
  Simulator sim(1);
  int node_done = 0, world_done = 0;
  struct Counter {
    int& n;
    ~Counter() { ++n; }
  };
  for (int i = 0; i < 3; ++i) {
    sim.spawn("node" + std::to_string(i), "node", [&] {
      Counter c{node_done};
      sim.sleep_for(100 * kNsPerSec);
      ADD_FAILURE() << "a cancelled fiber woke normally";
    });
  }
  sim.spawn("world", "world", [&] {
    Counter c{world_done};
    sim.sleep_for(kNsPerSec);
    sim.cancel_group("node");
    sim.sleep_for(kNsPerSec);
  });
  EXPECT_EQ(sim.run().kind, RunOutcome::Kind::kFinished);
  EXPECT_EQ(node_done, 3);
  EXPECT_EQ(world_done, 1);
  EXPECT_EQ(sim.now_ns(), 2 * kNsPerSec);  // cancelled timers do not drag the clock along
}

// A paused group's fibers stop at their next wake and go on at the resume; other groups, timers
// and virtual time go on meanwhile; a fiber started while paused waits for the resume too.
TEST(Scheduler, PauseStopsAGroupUntilResumeWhileTheRestGoesOn) {
  Simulator sim(3);
  std::vector<Nanos> ticks_ns, other_ns;
  Nanos late_start_ns = -1;
  sim.spawn("node", "node", [&] {
    for (int i = 0; i < 6; ++i) {
      sim.sleep_for(kNsPerSec);
      ticks_ns.push_back(sim.now_ns());
    }
  });
  sim.spawn("other", "world", [&] {
    for (int i = 0; i < 6; ++i) {
      sim.sleep_for(kNsPerSec);
      other_ns.push_back(sim.now_ns());
    }
  });
  sim.spawn("pauser", "world", [&] {
    sim.sleep_for(2 * kNsPerSec + kNsPerSec / 2);
    sim.pause_group("node");
    EXPECT_TRUE(sim.group_paused("node"));
    sim.spawn("late", "node", [&] { late_start_ns = sim.now_ns(); });
    sim.sleep_for(2 * kNsPerSec);
    EXPECT_EQ(sim.live_fibers("node"), 2u);
    sim.resume_group("node");
    EXPECT_FALSE(sim.group_paused("node"));
  });
  EXPECT_EQ(sim.run().kind, RunOutcome::Kind::kFinished);
  const Nanos s = kNsPerSec;
  // Its sleep that ended at 3 s during the pause ends at the resume (4.5 s); it goes on from there.
  EXPECT_EQ(ticks_ns, (std::vector<Nanos>{s, 2 * s, 9 * s / 2, 11 * s / 2, 13 * s / 2, 15 * s / 2}));
  EXPECT_EQ(other_ns, (std::vector<Nanos>{s, 2 * s, 3 * s, 4 * s, 5 * s, 6 * s}));
  EXPECT_EQ(late_start_ns, 9 * s / 2);
}

TEST(Scheduler, ACancelReachesAPausedFiberAndAResumeOfNothingIsHarmless) {
  Simulator sim(5);
  bool woke_normally = false;
  sim.spawn("node", "node", [&] {
    sim.sleep_for(kNsPerSec);
    woke_normally = true;
  });
  sim.spawn("world", "world", [&] {
    sim.resume_group("node");  // not paused: nothing happens
    sim.pause_group("node");
    sim.sleep_for(2 * kNsPerSec);
    EXPECT_EQ(sim.live_fiber_report().front().waits_on, "paused");
    sim.cancel_group("node");
    sim.sleep_for(kNsPerSec);
    EXPECT_EQ(sim.live_fibers("node"), 0u);
    sim.resume_group("node");
  });
  EXPECT_EQ(sim.run().kind, RunOutcome::Kind::kFinished);
  EXPECT_FALSE(woke_normally);
}

TEST(Scheduler, MutexIsFifoAndExclusive) {
  Simulator sim(7);
  Mutex m("m");
  int inside = 0;
  std::vector<int> order;
  for (int i = 0; i < 5; ++i) {
    sim.spawn("f" + std::to_string(i), "t", [&, i] {
      sim.sleep_for(i * kNsPerUs);  // arrive in index order
      MutexGuard g(m);
      EXPECT_EQ(++inside, 1);
      order.push_back(i);
      sim.sleep_for(kNsPerMs);
      --inside;
    });
  }
  sim.run();
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2, 3, 4}));
}

TEST(Scheduler, CondVarHandsOverUnderTheMutex) {
  Simulator sim(5);
  Mutex m("queue");
  CondVar nonempty("nonempty");
  std::vector<int> queue, got;
  sim.spawn("consumer", "t", [&] {
    for (int i = 0; i < 3; ++i) {
      MutexGuard g(m);
      nonempty.wait(m, [&] { return !queue.empty(); });
      EXPECT_TRUE(m.held_by_current());
      got.push_back(queue.front());
      queue.erase(queue.begin());
    }
  });
  sim.spawn("producer", "t", [&] {
    for (int i = 0; i < 3; ++i) {
      sim.sleep_for(kNsPerMs);
      MutexGuard g(m);
      queue.push_back(i);
      nonempty.notify_one();
    }
  });
  EXPECT_EQ(sim.run().kind, RunOutcome::Kind::kFinished);
  EXPECT_EQ(got, (std::vector<int>{0, 1, 2}));
}

TEST(Scheduler, CancelInsideCondVarWaitUnwindsCleanly) {
  Simulator sim(5);
  Mutex m("m");
  CondVar never("never");
  sim.spawn("waiter", "node", [&] {
    MutexGuard g(m);
    never.wait(m);
  });
  sim.spawn("killer", "world", [&] {
    sim.sleep_for(kNsPerMs);
    sim.cancel_group("node");
    sim.sleep_for(kNsPerMs);
    MutexGuard g(m);  // the mutex was not left locked by the cancelled waiter
  });
  EXPECT_EQ(sim.run().kind, RunOutcome::Kind::kFinished);
}

TEST(Scheduler, ResourceServesNAtATime) {
  Simulator sim(3);
  Resource cpu("cpu", 2);
  std::vector<Nanos> done;
  for (int i = 0; i < 4; ++i) {
    sim.spawn("job" + std::to_string(i), "t", [&] {
      cpu.use(10 * kNsPerMs);
      done.push_back(sim.now_ns());
    });
  }
  sim.run();
  EXPECT_EQ(done, (std::vector<Nanos>{10 * kNsPerMs, 10 * kNsPerMs, 20 * kNsPerMs, 20 * kNsPerMs}));
  EXPECT_EQ(cpu.busy(), 0);
  EXPECT_EQ(cpu.busy_ns_total(), 40 * kNsPerMs);
}

TEST(Scheduler, ExceptionInAFiberIsReportedNotFatal) {
  Simulator sim(1);
  sim.spawn("bad", "t", [] { throw std::runtime_error("boom"); });
  sim.spawn("other", "t", [&] { sim.sleep_for(kNsPerSec); });
  const RunOutcome out = sim.run();
  EXPECT_EQ(out.kind, RunOutcome::Kind::kFiberError);
  ASSERT_EQ(out.errors.size(), 1u);
  EXPECT_EQ(out.errors[0], "bad: boom");
}

TEST(RandomStreams, NamedStreamsAreIndependentAndStable) {
  Rng a = stream(42, "workload");
  Rng b = stream(42, "faults");
  Rng a2 = stream(42, "workload");
  EXPECT_NE(a.next(), b.next());
  Rng a3 = stream(42, "workload");
  a2.next();
  EXPECT_EQ(a2.next(), (a3.next(), a3.next()));
  // Stream names hash with FNV-1a (published test vectors): stable across builds, so old traces
  // keep replaying.
  EXPECT_EQ(fnv1a64(""), 0xcbf29ce484222325ULL);
  EXPECT_EQ(fnv1a64("a"), 0xaf63dc4c8601ec8cULL);
}

TEST(RandomStreams, BelowIsUniformEnough) {
  Rng r(9);
  std::vector<int> counts(10, 0);
  for (int i = 0; i < 100000; ++i) counts[r.below(10)]++;
  for (int c : counts) EXPECT_NEAR(c, 10000, 500);
}

}  // namespace
}  // namespace wtsim::sim
