// The oracle: which recovered states are legal after a crash.
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>

#include "models/kv_model.h"

namespace wtsim::models {
namespace {

struct Fixture {
  KvModel m;
  // Commits one write of `key`; returns its value.
  std::string commit(const std::string& key, bool durable, bool ack = true) {
    const uint64_t seq = m.next_seq();
    const std::string v = KvModel::make_value(seq, 12);
    m.begin_commit({{key, v}}, durable);
    if (ack) m.ack(seq);
    return v;
  }
  // Commits and acknowledges one delete of `key`.
  void erase(const std::string& key, bool durable) {
    const uint64_t seq = m.next_seq();
    m.begin_commit({{key, std::nullopt}}, durable);
    m.ack(seq);
  }
};

// A value is "<id>:" and then letters from (id + position) % 26: every trace of a key/value run
// holds these bytes, so the fast fill must give exactly them.
TEST(KvModel, ValuesSpellTheirIdThenTheAlphabetByPosition) {
  for (uint64_t id : {0ull, 7ull, 25ull, 26ull, 123456789ull}) {
    for (size_t bytes : {0u, 1u, 5u, 27u, 64u, 200u}) {
      std::string want = std::to_string(id) + ":";
      while (want.size() < bytes) want.push_back(static_cast<char>('a' + (id + want.size()) % 26));
      EXPECT_EQ(KvModel::make_value(id, bytes), want) << id << " " << bytes;
    }
  }
}

TEST(KvModel, AllAckedIsAPrefix) {
  Fixture f;
  const auto a = f.commit("a", true);
  const auto b = f.commit("b", false);
  EXPECT_TRUE(f.m.check({{"a", a}, {"b", b}}).ok);
}

TEST(KvModel, LosingANonDurableSuffixIsAllowed) {
  Fixture f;
  const auto a = f.commit("a", true);
  f.commit("b", false);
  const auto check = f.m.check({{"a", a}});
  EXPECT_TRUE(check.ok);
  EXPECT_EQ(check.lost_acked, 1u);
}

TEST(KvModel, LosingADurableCommitIsNot) {
  Fixture f;
  const auto a = f.commit("a", false);
  f.commit("b", true);
  const auto check = f.m.check({{"a", a}});
  EXPECT_FALSE(check.ok);
  EXPECT_EQ(check.mismatches.at(0).key, "b");
}

TEST(KvModel, AHoleInTheMiddleIsNotAPrefix) {
  Fixture f;
  f.commit("a", false);
  const auto b = f.commit("b", false);
  EXPECT_FALSE(f.m.check({{"b", b}}).ok);  // b without the earlier a
}

TEST(KvModel, AJournalFlushMakesEarlierCommitsDurable) {
  Fixture f;
  f.commit("a", false);
  const uint64_t covered = f.m.flush_started();
  f.commit("b", false);
  f.m.flush_returned(covered);
  EXPECT_FALSE(f.m.check({}).ok);
  EXPECT_EQ(f.m.durable_point(), 1u);
}

TEST(KvModel, InDoubtCommitsMayGoEitherWayButWhole) {
  Fixture f;
  const uint64_t seq = f.m.next_seq();
  const auto va = KvModel::make_value(seq, 10), vb = KvModel::make_value(seq, 11);
  f.m.begin_commit({{"a", va}, {"b", vb}}, true);
  f.m.crashed();
  EXPECT_TRUE(f.m.check({}).ok);
  EXPECT_TRUE(f.m.check({{"a", va}, {"b", vb}}).ok);
  EXPECT_FALSE(f.m.check({{"a", va}}).ok);  // half a transaction
}

TEST(KvModel, ARepeatedValueMayComeFromTheLaterUnacknowledgedWriter) {
  // swarm_documents seed 308: a document's content repeats. Acked write X, acked delete, then a
  // write of X again that a crash leaves unacknowledged, then an acked durable write elsewhere.
  // The recovered X is the last writer's, not the first's: legal.
  Fixture f;
  const std::string x = "{\"_id\":26,\"n\":0}";
  f.m.begin_commit({{"d", x}}, false);
  f.m.ack(1);
  f.erase("d", false);
  f.m.begin_commit({{"d", x}}, true);  // seq 3, its flush cut short by the crash
  const auto b = f.commit("b", true);   // seq 4: durable point
  f.m.crashed();
  EXPECT_TRUE(f.m.check({{"d", x}, {"b", b}}).ok);
  EXPECT_TRUE(f.m.check({{"b", b}}).ok);  // or lost with the crash
  // Negative space: an acknowledged later delete of d still counts.
  f.erase("d", true);
  EXPECT_FALSE(f.m.check({{"d", x}, {"b", b}}).ok);
}

TEST(KvModel, AnInDoubtDeleteBelowASeenInDoubtWriteMayBeApplied) {
  // swarm_replica_set seed 216: a durable delete of a and an insert of b both in doubt at a
  // crash, both recovered. The insert's value puts the cut above the delete, which left no value
  // to attribute: it is taken in because it explains the state.
  Fixture f;
  const auto a = f.commit("a", true);  // seq 1: durable point
  f.m.begin_commit({{"a", std::nullopt}}, true);  // seq 2
  const auto b = KvModel::make_value(3, 12);
  f.m.begin_commit({{"b", b}}, true);  // seq 3
  f.m.crashed();
  const RecoveryCheck both = f.m.check({{"b", b}});
  EXPECT_TRUE(both.ok);
  EXPECT_EQ(both.cut, 3u);
  EXPECT_EQ(both.in_doubt_applied, (std::vector<uint64_t>{2, 3}));
  EXPECT_TRUE(f.m.check({{"a", a}, {"b", b}}).ok) << "the delete lost, the insert kept: its own log record";
  EXPECT_TRUE(f.m.check({}).ok) << "both lost";
  EXPECT_FALSE(f.m.check({{"a", a}, {"b", KvModel::make_value(9, 12)}}).ok) << "a value no commit wrote";
}

TEST(KvModel, PhantomsAndAbortedValuesAreCaught) {
  Fixture f;
  f.commit("a", true);
  auto check = f.m.check({{"a", "999:never"}});
  EXPECT_FALSE(check.ok);
  const uint64_t seq = f.m.next_seq();
  const auto v = KvModel::make_value(seq, 10);
  f.m.begin_commit({{"z", v}}, false);
  f.m.aborted(seq);
  EXPECT_FALSE(f.m.check({{"a", KvModel::make_value(1, 12)}, {"z", v}}).ok);
}

TEST(KvModel, DeletesAreWrites) {
  Fixture f;
  const auto a = f.commit("a", true);
  f.erase("a", true);
  EXPECT_TRUE(f.m.check({}).ok);
  EXPECT_FALSE(f.m.check({{"a", a}}).ok);
}

// Issue 14: a delete of a key already absent changes nothing; acknowledged, it is not lost.
TEST(KvModel, AnAcknowledgedNoOpIsTakenInNotCountedLost) {
  Fixture f;
  for (int i = 0; i < 8; ++i) f.erase("a", false);
  const auto check = f.m.check({});
  EXPECT_TRUE(check.ok);
  EXPECT_EQ(check.lost_acked, 0u);
  EXPECT_EQ(check.cut, 8u);
}

TEST(KvModel, TheLongestExplainedPrefixIsTheCut) {
  Fixture f;
  f.commit("a", false);
  f.erase("a", false);  // writes a, then deletes it again
  const auto check = f.m.check({});
  EXPECT_TRUE(check.ok);
  EXPECT_EQ(check.lost_acked, 0u);
}

TEST(KvModel, TheCutStopsAtTheFirstAcknowledgedCommitWhoseEffectIsMissing) {
  Fixture f;
  const auto a = f.commit("a", false);
  f.commit("b", false);
  f.erase("c", false);  // no effect, but after the missing b
  const auto check = f.m.check({{"a", a}});
  EXPECT_TRUE(check.ok);
  EXPECT_EQ(check.cut, 1u);
  EXPECT_EQ(check.lost_acked, 2u);  // b and the no-op after it
}

TEST(KvModel, CompactionFoldsOnlySettledCommitsAndChangesNoVerdict) {
  Fixture f;
  const auto a = f.commit("a", true);
  const auto b1 = f.commit("b", false);
  const uint64_t pending = f.m.next_seq();
  f.m.begin_commit({{"c", KvModel::make_value(pending, 12)}}, false);  // still pending
  const auto b2 = f.commit("b", true);
  f.m.compact();
  EXPECT_EQ(f.m.history_size(), 2u);  // stops at the pending commit
  EXPECT_EQ(f.m.base().at("a"), a);
  EXPECT_EQ(f.m.base().at("b"), b1);
  f.m.crashed();
  EXPECT_TRUE(f.m.check({{"a", a}, {"b", b2}}).ok);
  EXPECT_FALSE(f.m.check({{"a", a}, {"b", b1}}).ok);  // b2 was durable
  EXPECT_FALSE(f.m.check({{"b", b2}}).ok);            // a is folded, still required
}

TEST(KvModel, RebaseStartsFromTheRecoveredState) {
  Fixture f;
  const auto a = f.commit("a", true);
  f.m.rebase({{"a", a}});
  EXPECT_TRUE(f.m.check({{"a", a}}).ok);
  EXPECT_FALSE(f.m.check({}).ok);
  EXPECT_EQ(f.m.history_size(), 0u);
}

// Reads (reads_see_committed): a read may return the newest value acknowledged before it began
// or any later one not rolled back; never an older one, never a rolled-back one.
TEST(KvModel, AReadMaySeeTheNewestAckedValueOrLaterOnes) {
  Fixture f;
  const std::string old_value = f.commit("a", true);
  const std::string floor = f.commit("a", true);
  const ReadScope read(f.m);
  const uint64_t pending_seq = f.m.next_seq();
  const std::string pending = KvModel::make_value(pending_seq, 12);
  f.m.begin_commit({{"a", pending}}, false);  // committing while the read runs
  const uint64_t rolled_back_seq = f.m.next_seq();
  f.m.begin_commit({{"a", KvModel::make_value(rolled_back_seq, 12)}}, false);
  f.m.aborted(rolled_back_seq);
  const std::vector<Value> allowed = f.m.readable_values("a", read.token());
  EXPECT_EQ(allowed, (std::vector<Value>{floor, pending}));
  EXPECT_EQ(std::count(allowed.begin(), allowed.end(), Value{old_value}), 0) << "a stale read";
  EXPECT_EQ(f.m.readable_values("never", read.token()), std::vector<Value>{std::nullopt});
}

TEST(KvModel, ADeleteAckedBeforeTheReadMakesTheKeyAbsent) {
  Fixture f;
  f.commit("a", true);
  f.erase("a", true);
  const ReadScope read(f.m);
  EXPECT_EQ(f.m.readable_values("a", read.token()), std::vector<Value>{std::nullopt});
}

// Compaction folds settled commits into the base; one acknowledged after an active read began
// stays, or the value the read may still return (the one before it) would be lost.
TEST(KvModel, CompactionKeepsWhatAnActiveReadMaySee) {
  Fixture f;
  const std::string before = f.commit("a", true);
  std::optional<ReadScope> read(std::in_place, f.m);
  const uint64_t token = read->token();
  for (size_t i = 0; i <= KvModel::kCompactAboveCommits; ++i) f.commit("b" + std::to_string(i), true);
  const std::string after = f.commit("a", true);
  f.m.compact();
  EXPECT_EQ(f.m.readable_values("a", token), (std::vector<Value>{before, after}));
  read.reset();
  f.m.compact();
  EXPECT_EQ(f.m.history_size(), 0u) << "once the read ended, everything settled is folded";
  const ReadScope later(f.m);
  EXPECT_EQ(f.m.readable_values("a", later.token()), std::vector<Value>{after});
}

}  // namespace
}  // namespace wtsim::models
