#pragma once
// The expected state of a key/value store across crashes (the oracle), kept outside the faulty
// disk. It records every commit in commit order with its fate:
//   acked    - the engine reported success;
//   in doubt - begun but cut by a crash, or failed with an error that may still have been logged;
//   aborted  - rolled back before commit was asked for: must never appear.
// and the durable point D: every acked commit at or below D must survive a crash (durable
// commits when acked; others once a journal flush that started after them returned).
//
// After recovery, the recovered state must be the state after some prefix C >= D of the commit
// history, in which each in-doubt commit is wholly present or wholly absent (the pending-bit idea
// of RocksDB's db_stress, extended to non-durable writes whose losses must form a suffix).
// Keys and values are opaque strings: the document workload uses "ns|_id" and the document's BSON
// bytes (with a renderer that shows them as JSON in reports).
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

namespace wtsim::models {

using Value = std::optional<std::string>;  // nullopt: absent (deleted)
using KvState = std::map<std::string, std::string>;

struct KvWrite {
  std::string key;
  Value value;
};

enum class CommitFate { kPending, kAcked, kInDoubt, kAborted };

struct CommitRecord {
  uint64_t seq = 0;
  std::vector<KvWrite> writes;
  bool durable = false;
  CommitFate fate = CommitFate::kPending;
  uint64_t ack_order = 0;  // 1 for the first commit acknowledged, 2 for the next...; 0: not acked
};

struct Mismatch {
  std::string key;
  std::string expected;  // rendering of the allowed value(s)
  std::string found;
};

struct RecoveryCheck {
  bool ok = true;
  uint64_t cut = 0;                // C: the prefix the state corresponds to
  uint64_t durable_point = 0;      // D
  uint64_t lost_acked = 0;         // acked commits above C (allowed only if non-durable)
  std::vector<Mismatch> mismatches;  // first few, key order
  // The commits not acknowledged that the state at `cut` includes, ascending: with every
  // acknowledged commit at or below the cut, they rebuild the state (the trace's history).
  std::vector<uint64_t> in_doubt_applied;
  std::string summary;             // one line for the trace when !ok
};

class KvModel {
 public:
  static constexpr size_t kMaxMismatchesReported = 8;

  // The key/value workload's values carry a number of their own commit ("<id>:<filler>", the
  // commit event's value_id) so that a trace reader can tell where a value came from; the model
  // itself matches whole values.
  static std::string make_value(uint64_t id, size_t bytes);

  uint64_t begin_commit(std::vector<KvWrite> writes, bool durable);
  // The key's value after every commit begun so far (in doubt ones included): what the next
  // commit overwrites, in the model's (commit) order. nullptr: absent. Valid until the next change.
  const std::string* latest(const std::string& key) const;
  void ack(uint64_t seq);
  void in_doubt(uint64_t seq);
  // Rolled back before commit was asked for: must never appear.
  void aborted(uint64_t seq);
  // A journal flush began: every commit acked so far becomes durable when it returns.
  uint64_t flush_started() const { return last_acked_; }
  void flush_returned(uint64_t covered_seq);
  // Every pending commit is cut by the crash.
  void crashed();

  RecoveryCheck check(const KvState& recovered) const;
  // Reads of a live node (snapshot isolation). A read that began when `token` commits had been
  // acknowledged may return, for a key, the value of the newest commit acknowledged before it
  // began (or the base's value if that commit is folded into the base) or of any later commit
  // that was not rolled back: nothing older (a stale read) and nothing no commit wrote (a dirty
  // read of a write that never committed). Commits acknowledged after an active read began stay
  // in the history until it ends, so the answer never depends on compaction; a crash ends every
  // read (rebase).
  uint64_t begin_read();
  void end_read(uint64_t token);
  std::vector<Value> readable_values(const std::string& key, uint64_t token) const;
  // Every key starting with `prefix` that the base or a commit in the history holds, ascending:
  // the keys a read of that range may have to show.
  std::vector<std::string> keys_with_prefix(const std::string& prefix) const;
  size_t active_reads() const { return active_reads_.size(); }

  // How values appear in mismatch reports (default: the first 24 characters, quoted).
  using Renderer = std::function<std::string(const std::string& value)>;
  void set_renderer(Renderer renderer) { renderer_ = std::move(renderer); }
  // After a check: the recovered state becomes the new base and the history is cleared.
  void rebase(KvState recovered);
  // Folds the oldest commits into the base while they are settled (acknowledged and at or below
  // the durable point, or aborted): no crash can change them any more. Keeps a long run's memory
  // bounded by the live data plus the unsettled tail. Runs by itself as the history grows.
  void compact();
  static constexpr size_t kCompactAboveCommits = 4096;
  static constexpr size_t kActiveReadsMax = 4096;  // reads in progress at once (one per client fiber)

  const KvState& base() const { return base_; }
  uint64_t next_seq() const { return next_seq_; }
  uint64_t durable_point() const { return durable_point_; }
  size_t history_size() const { return history_.size(); }
  // The state if every acked commit and no in-doubt one applied (for clean-shutdown checks).
  KvState acked_state() const;
  // Everything committed so far: acked commits and pending ones (a pending commit has called
  // commit, its acknowledgement is on the way). What a checkpoint taken now contains.
  KvState committed_state() const;

 private:
  class Checker;  // check()'s steps (recovery_check.cpp)
  static void apply_to(KvState& state, const CommitRecord& r);
  std::string render(const Value& v) const;
  Value expected_value(const std::map<std::string, Value>& overlay, const std::string& key) const;
  std::set<std::string> differing_keys(const std::map<std::string, Value>& overlay, const KvState& recovered) const;
  const CommitRecord& record(uint64_t seq) const;
  CommitRecord& record(uint64_t seq);

  KvState base_;
  uint64_t base_seq_ = 0;  // commits <= base_seq_ are folded into base_
  uint64_t next_seq_ = 1;
  std::deque<CommitRecord> history_;  // seq base_seq_+1 .. next_seq_-1
  // key -> seqs, ascending (usually one or two: a vector, not a deque's 512-byte blocks). Looked
  // up only, never iterated: a hash map cannot leak its order into output.
  std::unordered_map<std::string, std::vector<uint64_t>> writes_by_key_;
  uint64_t last_acked_ = 0;
  uint64_t durable_point_ = 0;
  uint64_t acks_ = 0;                  // commits acknowledged so far (CommitRecord::ack_order)
  std::multiset<uint64_t> active_reads_;  // tokens of the reads in progress
  Renderer renderer_;
};

// A read in progress, for its lifetime (KvModel::begin_read / end_read).
class ReadScope {
 public:
  explicit ReadScope(KvModel& model) : model_(model), token_(model.begin_read()) {}
  ~ReadScope() { model_.end_read(token_); }
  ReadScope(const ReadScope&) = delete;
  ReadScope& operator=(const ReadScope&) = delete;
  uint64_t token() const { return token_; }

 private:
  KvModel& model_;
  const uint64_t token_;
};

}  // namespace wtsim::models
