// KvModel::check: is a recovered state the model's base plus a prefix of the commit history
// (every acknowledged commit up to a cut at or above the durable point, whole; in-doubt ones
// whole or not at all)? Three steps, each a function of KvModel::Checker:
//   1. attribute: every recovered value must come from the base or a commit; the newest commit
//      seen bounds the cut from below, as does the durable point;
//   2. the expected state at that cut, taking in unacknowledged commits when they explain more
//      of the state: writers of repeated values, and in-doubt commits below the cut that left no
//      value to attribute (a delete);
//   3. later commits that leave no trace (deletes, rewrites, overwritten values) extend the cut
//      to the longest prefix that explains the state exactly.
#include <algorithm>
#include <cassert>
#include <set>

#include "models/kv_model.h"
#include "models/kv_state_ops.h"

namespace wtsim::models {

using state_ops::find;
using state_ops::same;

class KvModel::Checker {
 public:
  Checker(const KvModel& model, const KvState& recovered)
      : m_(model), recovered_(recovered), cut_(std::max(model.durable_point_, model.base_seq_)) {}

  RecoveryCheck run() {
    assert(state_ops::contiguous(m_.history_, m_.base_seq_, m_.next_seq_));
    assert(m_.durable_point_ < m_.next_seq_);
    for (const auto& [key, value] : recovered_) attribute(key, value);
    add_unseen_in_doubt();
    differ_ = expected_at_cut({});
    take_alternatives();
    report_at_lower_cut();
    walk_later_commits();
    return conclude();
  }

 private:
  // Step 1 for one key: the oldest commit that wrote exactly this value (values need not carry
  // their commit), else a phantom.
  void attribute(const std::string& key, const std::string& value) {
    if (same(find(m_.base_, key), &value)) return;  // the most permissive reading
    std::optional<uint64_t> seq;
    bool aborted_only = false;
    if (auto it = m_.writes_by_key_.find(key); it != m_.writes_by_key_.end()) {
      for (uint64_t s : it->second) {
        for (const KvWrite& w : m_.record(s).writes) {
          if (w.key != key || !same(w.value, &value)) continue;
          if (m_.record(s).fate == CommitFate::kAborted) {
            aborted_only = !seq.has_value();
          } else if (!seq) {
            seq = s;
          } else if (m_.record(s).fate != CommitFate::kAcked) {
            alternatives_.insert(s);
          }
        }
      }
    }
    if (seq) {
      cut_ = std::max(cut_, *seq);
      seen_commits_.insert(*seq);
    } else if (aborted_only) {
      phantoms_.push_back({key, "no value of an aborted commit", m_.render(value) + " (never written: aborted)"});
    } else {
      phantoms_.push_back({key, "a value some commit wrote", m_.render(value) + " (never written)"});
    }
  }

  // Step 2: the base plus every included commit up to the cut (acked, or in doubt and seen, or
  // in `extra`), whole, as an overlay (the base is never copied); the keys that differ.
  std::set<std::string> expected_at_cut(const std::set<uint64_t>& extra) {
    overlay_.clear();
    for (next_ = 0; next_ < m_.history_.size() && m_.history_[next_].seq <= cut_; ++next_) {
      const CommitRecord& r = m_.history_[next_];
      if (r.fate != CommitFate::kAcked && seen_commits_.count(r.seq) == 0 && extra.count(r.seq) == 0) continue;
      for (const KvWrite& w : r.writes) overlay_[w.key] = w.value;
    }
    return m_.differing_keys(overlay_, recovered_);
  }

  // In-doubt commits below the cut that no recovered value names (a delete leaves none) are
  // alternatives too (swarm_replica_set seed 216: an in-doubt delete below an in-doubt insert).
  void add_unseen_in_doubt() {
    for (const CommitRecord& r : m_.history_) {
      if (r.seq > cut_) break;
      if (r.fate == CommitFate::kInDoubt && seen_commits_.count(r.seq) == 0) alternatives_.insert(r.seq);
    }
  }

  // Commits not acknowledged that wrote a recovered value too, beside the oldest writer of it: a
  // document's content can repeat, and the recovered copy may be theirs (swarm_documents seed
  // 308). One is taken in when it explains more of the state, oldest first.
  void take_alternatives() {
    for (uint64_t alt : alternatives_) {
      if (differ_.empty() || alt > cut_) break;  // later commits are step 3's
      std::set<uint64_t> with = extra_;
      with.insert(alt);
      if (std::set<std::string> d = expected_at_cut(with); d.size() < differ_.size()) {
        extra_ = std::move(with);
        differ_ = std::move(d);
      }
    }
    if (!alternatives_.empty()) differ_ = expected_at_cut(extra_);  // the overlay of the set kept
    applied_ = seen_commits_;  // not yet filtered to the unacknowledged
    applied_.insert(extra_.begin(), extra_.end());
  }

  void report_at_lower_cut() {
    for (const std::string& key : differ_) {
      if (at_lower_cut_.size() == kMaxMismatchesReported) break;
      const std::string* found = find(recovered_, key);
      at_lower_cut_.push_back({key, m_.render(m_.expected_value(overlay_, key)), m_.render(found ? Value{*found} : Value{})});
    }
  }

  // Step 3: walk every later commit and take the newest cut at which the state is exactly
  // explained: the longest prefix, so an acknowledged commit without a visible effect is taken
  // in, not counted as lost.
  void walk_later_commits() {
    std::optional<uint64_t> explained;
    if (differ_.empty()) explained = cut_;
    for (; phantoms_.empty() && next_ < m_.history_.size(); ++next_) {
      const CommitRecord& r = m_.history_[next_];
      assert(r.seq > cut_);
      if (r.fate == CommitFate::kAborted) continue;
      if (r.fate != CommitFate::kAcked && !explains_no_less(r)) continue;  // in doubt: only if it explains more
      if (r.fate != CommitFate::kAcked) applied_.insert(r.seq);
      apply_later(r);
      if (differ_.empty()) explained = cut_;
    }
    if (explained) {
      differ_.clear();
      cut_ = *explained;
    }
  }

  bool differs_after(const KvWrite& w) const { return !same(w.value, find(recovered_, w.key)); }

  // An in-doubt commit makes no key differ that did not already.
  bool explains_no_less(const CommitRecord& r) const {
    return std::none_of(r.writes.begin(), r.writes.end(),
                        [&](const KvWrite& w) { return differs_after(w) && differ_.count(w.key) == 0; });
  }

  void apply_later(const CommitRecord& r) {
    for (const KvWrite& w : r.writes) {
      overlay_[w.key] = w.value;
      if (differs_after(w)) {
        differ_.insert(w.key);
      } else {
        differ_.erase(w.key);
      }
    }
    cut_ = r.seq;
  }

  RecoveryCheck conclude() const {
    RecoveryCheck out;
    out.durable_point = m_.durable_point_;
    out.ok = differ_.empty() && phantoms_.empty();
    out.cut = out.ok ? cut_ : std::max(m_.durable_point_, m_.base_seq_);
    for (const CommitRecord& r : m_.history_) {
      if (r.seq > out.cut && r.fate == CommitFate::kAcked) ++out.lost_acked;
      if (r.seq <= out.cut && r.fate != CommitFate::kAcked && applied_.count(r.seq) != 0) out.in_doubt_applied.push_back(r.seq);
    }
    assert(std::is_sorted(out.in_doubt_applied.begin(), out.in_doubt_applied.end()));
    // The cut never falls below the durable point nor past the last commit, and what it loses is
    // never an acknowledged durable commit.
    assert(out.cut >= std::max(m_.durable_point_, m_.base_seq_) && out.cut < m_.next_seq_);
    assert(!state_ops::durable_acked_above(m_.history_, out.cut));
    if (out.ok) return out;
    out.mismatches = phantoms_.empty() ? at_lower_cut_ : phantoms_;
    assert(!out.mismatches.empty());  // a failed check names a key
    const Mismatch& m = out.mismatches.front();
    out.summary = "key " + m.key + ": expected " + m.expected + ", found " + m.found +
                  " (state matches no prefix >= durable point " + std::to_string(m_.durable_point_) + "; " +
                  std::to_string(std::max(differ_.size(), phantoms_.size())) + " keys differ)";
    return out;
  }

  const KvModel& m_;
  const KvState& recovered_;
  uint64_t cut_;
  std::set<uint64_t> seen_commits_;   // oldest writers of recovered values
  std::set<uint64_t> alternatives_;   // other unacknowledged writers of them
  std::set<uint64_t> extra_;          // alternatives taken in
  std::set<uint64_t> applied_;        // commits the cut includes beyond the acknowledged
  std::vector<Mismatch> phantoms_;    // values no commit wrote
  std::vector<Mismatch> at_lower_cut_;
  std::map<std::string, Value> overlay_;
  std::set<std::string> differ_;
  size_t next_ = 0;  // the first history index above the cut
};

RecoveryCheck KvModel::check(const KvState& recovered) const { return Checker(*this, recovered).run(); }

}  // namespace wtsim::models
