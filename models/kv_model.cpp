#include "models/kv_model.h"

#include <algorithm>
#include <cassert>
#include <set>

namespace wtsim::models {
namespace {

// The value of `key` in `state`, or nullptr: no copy.
const std::string* find(const KvState& state, const std::string& key) {
  auto it = state.find(key);
  return it == state.end() ? nullptr : &it->second;
}

bool same(const std::string* a, const std::string* b) {
  return a == nullptr || b == nullptr ? a == b : *a == *b;
}

bool same(const Value& a, const std::string* b) { return same(a ? &*a : nullptr, b); }

// The history holds exactly the commits base_seq+1 .. next_seq-1, oldest first (O(1): the deque
// only ever grows at the back and shrinks at the front).
bool contiguous(const std::deque<CommitRecord>& history, uint64_t base_seq, uint64_t next_seq) {
  if (base_seq >= next_seq || history.size() != next_seq - 1 - base_seq) return false;
  return history.empty() ||
         (history.front().seq == base_seq + 1 && history.back().seq == next_seq - 1);
}

bool strictly_ascending(const std::vector<uint64_t>& seqs) {
  return std::adjacent_find(seqs.begin(), seqs.end(), std::greater_equal<uint64_t>()) == seqs.end();
}

bool none_pending(const std::deque<CommitRecord>& history) {
  return std::none_of(history.begin(), history.end(),
                      [](const CommitRecord& r) { return r.fate == CommitFate::kPending; });
}

// An acknowledged durable commit above `cut`: one the cut would lose although it must survive.
bool durable_acked_above(const std::deque<CommitRecord>& history, uint64_t cut) {
  return std::any_of(history.begin(), history.end(), [cut](const CommitRecord& r) {
    return r.seq > cut && r.fate == CommitFate::kAcked && r.durable;
  });
}

}  // namespace

std::string KvModel::render(const Value& v) const {
  if (!v) return "absent";
  return renderer_ ? renderer_(*v) : "\"" + v->substr(0, 24) + "\"";
}

std::string KvModel::make_value(uint64_t id, size_t bytes) {
  std::string v = std::to_string(id) + ":";
  while (v.size() < bytes) v.push_back(static_cast<char>('a' + (id + v.size()) % 26));
  return v;
}

const CommitRecord& KvModel::record(uint64_t seq) const {
  assert(seq > base_seq_ && seq < next_seq_);
  return history_[seq - base_seq_ - 1];
}

CommitRecord& KvModel::record(uint64_t seq) {
  assert(seq > base_seq_ && seq < next_seq_);
  return history_[seq - base_seq_ - 1];
}

uint64_t KvModel::begin_commit(std::vector<KvWrite> writes, bool durable) {
  assert(contiguous(history_, base_seq_, next_seq_));
  const uint64_t seq = next_seq_++;
  for (const KvWrite& w : writes) {
    auto& seqs = writes_by_key_[w.key];
    if (seqs.empty() || seqs.back() != seq) seqs.push_back(seq);
    // A key's writers stay in commit order: this commit is the newest of them.
    assert(seqs.back() == seq && (seqs.size() < 2 || seqs[seqs.size() - 2] < seq));
  }
  history_.push_back(CommitRecord{seq, std::move(writes), durable, CommitFate::kPending});
  assert(contiguous(history_, base_seq_, next_seq_) && history_.back().seq == seq);
  return seq;
}

void KvModel::ack(uint64_t seq) {
  CommitRecord& r = record(seq);
  assert(r.fate == CommitFate::kPending);
  assert(r.ack_order == 0);  // acknowledged once
  r.fate = CommitFate::kAcked;
  r.ack_order = ++acks_;
  last_acked_ = std::max(last_acked_, seq);
  if (r.durable) durable_point_ = std::max(durable_point_, seq);
  assert(last_acked_ < next_seq_ && durable_point_ < next_seq_);
  if (history_.size() > kCompactAboveCommits) compact();  // may fold `r`: no use of it after
}

void KvModel::in_doubt(uint64_t seq) {
  CommitRecord& r = record(seq);
  assert(r.fate == CommitFate::kPending);
  assert(r.ack_order == 0);  // never acknowledged
  r.fate = CommitFate::kInDoubt;
}

void KvModel::aborted(uint64_t seq) {
  CommitRecord& r = record(seq);
  assert(r.fate == CommitFate::kPending);
  assert(r.ack_order == 0);  // never acknowledged
  r.fate = CommitFate::kAborted;
}

void KvModel::flush_returned(uint64_t covered_seq) {
  assert(covered_seq < next_seq_);  // a flush covers only commits that began (flush_started)
  durable_point_ = std::max(durable_point_, covered_seq);
  if (history_.size() > kCompactAboveCommits) compact();
}

void KvModel::compact() {
  assert(contiguous(history_, base_seq_, next_seq_));
  [[maybe_unused]] const size_t history_before = history_.size();
  [[maybe_unused]] const uint64_t base_seq_before = base_seq_;
  while (!history_.empty()) {
    CommitRecord& r = history_.front();
    // A commit acknowledged after an active read began stays: that read may see the value before it.
    const bool seen_by_every_read = active_reads_.empty() || r.ack_order <= *active_reads_.begin();
    const bool settled =
        (r.fate == CommitFate::kAcked && r.seq <= durable_point_ && seen_by_every_read) || r.fate == CommitFate::kAborted;
    if (!settled) break;
    // Never fold a commit acknowledged after an active read began: that read may still return
    // the value before it.
    assert(r.fate == CommitFate::kAborted || active_reads_.empty() ||
           r.ack_order <= *active_reads_.begin());
    for (KvWrite& w : r.writes) {
      if (r.fate == CommitFate::kAcked) {
        if (w.value) {
          base_[w.key] = std::move(*w.value);  // the record goes: its value moves to the base
        } else {
          base_.erase(w.key);
        }
      }
      auto it = writes_by_key_.find(w.key);
      // The oldest commit goes first: no older writer of its keys is left behind.
      assert(it == writes_by_key_.end() || (!it->second.empty() && it->second.front() >= r.seq));
      if (it != writes_by_key_.end() && !it->second.empty() && it->second.front() == r.seq) {
        it->second.erase(it->second.begin());
        if (it->second.empty()) writes_by_key_.erase(it);
      }
    }
    base_seq_ = r.seq;
    history_.pop_front();
  }
  // The commits folded are exactly those the base now covers.
  assert(history_before - history_.size() == base_seq_ - base_seq_before);
  assert(contiguous(history_, base_seq_, next_seq_));
}

void KvModel::crashed() {
  for (CommitRecord& r : history_) {
    if (r.fate == CommitFate::kPending) r.fate = CommitFate::kInDoubt;
  }
  assert(none_pending(history_));
}

RecoveryCheck KvModel::check(const KvState& recovered) const {
  assert(contiguous(history_, base_seq_, next_seq_));
  assert(durable_point_ < next_seq_);
  RecoveryCheck out;
  out.durable_point = durable_point_;
  // 1. Every recovered value must come from the base or a commit of the history; the newest
  //    commit seen bounds the cut from below, as does the durable point.
  uint64_t cut = std::max(durable_point_, base_seq_);
  std::set<uint64_t> seen_commits;
  // Commits not acknowledged that wrote a recovered value too, beside the oldest writer of it: a
  // document's content can repeat, and the recovered copy may be theirs (swarm_documents seed 308).
  std::set<uint64_t> alternatives;
  std::vector<Mismatch> phantoms;
  for (const auto& [key, value] : recovered) {
    if (same(find(base_, key), &value)) continue;  // the most permissive reading
    // The oldest commit that wrote exactly this value (values need not carry their commit).
    std::optional<uint64_t> seq;
    bool aborted_only = false;
    if (auto it = writes_by_key_.find(key); it != writes_by_key_.end()) {
      for (uint64_t s : it->second) {
        for (const KvWrite& w : record(s).writes) {
          if (w.key != key || !same(w.value, &value)) continue;
          if (record(s).fate == CommitFate::kAborted) {
            aborted_only = !seq.has_value();
          } else if (!seq) {
            seq = s;
          } else if (record(s).fate != CommitFate::kAcked) {
            alternatives.insert(s);
          }
        }
      }
    }
    if (seq) {
      cut = std::max(cut, *seq);
      seen_commits.insert(*seq);
    } else if (aborted_only) {
      phantoms.push_back({key, "no value of an aborted commit", render(value) + " (never written: aborted)"});
    } else {
      phantoms.push_back({key, "a value some commit wrote", render(value) + " (never written)"});
    }
  }
  // 2. The expected state at that cut: the base plus every included commit (acked, or in doubt
  //    and seen), whole. The commits go into an overlay; the base is never copied.
  std::map<std::string, Value> overlay;
  size_t next = 0;
  const auto expected_at_cut = [&](const std::set<uint64_t>& extra) {
    overlay.clear();
    for (next = 0; next < history_.size() && history_[next].seq <= cut; ++next) {
      const CommitRecord& r = history_[next];
      if (r.fate != CommitFate::kAcked && seen_commits.count(r.seq) == 0 && extra.count(r.seq) == 0) continue;
      for (const KvWrite& w : r.writes) overlay[w.key] = w.value;
    }
    return differing_keys(overlay, recovered);
  };
  std::set<std::string> differ = expected_at_cut({});
  // An alternative writer is taken in when it explains more of the state, oldest first.
  std::set<uint64_t> extra;
  for (uint64_t alt : alternatives) {
    if (differ.empty() || alt > cut) break;  // later commits are step 3's
    std::set<uint64_t> with = extra;
    with.insert(alt);
    if (std::set<std::string> d = expected_at_cut(with); d.size() < differ.size()) {
      extra = std::move(with);
      differ = std::move(d);
    }
  }
  if (!alternatives.empty()) differ = expected_at_cut(extra);  // the overlay of the set kept
  std::set<uint64_t> applied = seen_commits;  // not yet filtered to the unacknowledged
  applied.insert(extra.begin(), extra.end());
  std::vector<Mismatch> at_lower_cut;
  for (const std::string& key : differ) {
    if (at_lower_cut.size() == kMaxMismatchesReported) break;
    const std::string* found = find(recovered, key);
    at_lower_cut.push_back({key, render(expected_value(overlay, key)), render(found ? Value{*found} : Value{})});
  }
  // 3. Later commits may leave no trace in the state: they only delete (perhaps keys already
  //    absent), rewrite a value it already had, or are overwritten again. Walk every later commit,
  //    and take the newest cut at which the state is exactly explained: the longest prefix, so an
  //    acknowledged commit without a visible effect is taken in, not counted as lost.
  std::optional<uint64_t> explained;
  if (differ.empty()) explained = cut;
  for (; phantoms.empty() && next < history_.size(); ++next) {
    const CommitRecord& r = history_[next];
    assert(r.seq > cut);
    if (r.fate == CommitFate::kAborted) continue;
    auto differs_after = [&](const KvWrite& w) { return !same(w.value, find(recovered, w.key)); };
    if (r.fate != CommitFate::kAcked) {  // in doubt: include it only if that explains more
      size_t worse = 0;
      for (const KvWrite& w : r.writes) worse += differs_after(w) && differ.count(w.key) == 0 ? 1 : 0;
      if (worse > 0) continue;
      applied.insert(r.seq);
    }
    for (const KvWrite& w : r.writes) {
      overlay[w.key] = w.value;
      if (differs_after(w)) {
        differ.insert(w.key);
      } else {
        differ.erase(w.key);
      }
    }
    cut = r.seq;
    if (differ.empty()) explained = cut;
  }
  if (explained) {
    differ.clear();
    cut = *explained;
  }
  out.ok = differ.empty() && phantoms.empty();
  if (!out.ok) cut = std::max(durable_point_, base_seq_);
  out.cut = cut;
  for (const CommitRecord& r : history_) {
    if (r.seq > cut && r.fate == CommitFate::kAcked) ++out.lost_acked;
    if (r.seq <= cut && r.fate != CommitFate::kAcked && applied.count(r.seq) != 0) out.in_doubt_applied.push_back(r.seq);
  }
  assert(std::is_sorted(out.in_doubt_applied.begin(), out.in_doubt_applied.end()));
  // The cut never falls below the durable point nor past the last commit, and what it loses is
  // never an acknowledged durable commit.
  assert(out.cut >= std::max(durable_point_, base_seq_) && out.cut < next_seq_);
  assert(!durable_acked_above(history_, out.cut));
  if (!out.ok) {
    out.mismatches = phantoms.empty() ? at_lower_cut : phantoms;
    assert(!out.mismatches.empty());  // a failed check names a key
    const Mismatch& m = out.mismatches.front();
    out.summary = "key " + m.key + ": expected " + m.expected + ", found " + m.found +
                  " (state matches no prefix >= durable point " + std::to_string(durable_point_) +
                  "; " + std::to_string(std::max(differ.size(), phantoms.size())) + " keys differ)";
  }
  return out;
}

const std::string* KvModel::latest(const std::string& key) const {
  if (auto it = writes_by_key_.find(key); it != writes_by_key_.end() && !it->second.empty()) {
    const CommitRecord& r = record(it->second.back());
    for (auto w = r.writes.rbegin(); w != r.writes.rend(); ++w) {
      if (w->key == key) return w->value ? &*w->value : nullptr;
    }
    assert(false && "writes_by_key_ names a commit that wrote the key");
  }
  return find(base_, key);
}

Value KvModel::expected_value(const std::map<std::string, Value>& overlay, const std::string& key) const {
  if (auto it = overlay.find(key); it != overlay.end()) return it->second;
  const std::string* v = find(base_, key);
  return v != nullptr ? Value{*v} : Value{};
}

// The keys whose recovered value is not base-plus-overlay: one merge walk over the two sorted
// states, then the overlay's keys that neither holds.
std::set<std::string> KvModel::differing_keys(const std::map<std::string, Value>& overlay, const KvState& recovered) const {
  std::set<std::string> differ;
  auto b = base_.begin();
  auto r = recovered.begin();
  while (b != base_.end() || r != recovered.end()) {
    const bool take_b = b != base_.end() && (r == recovered.end() || b->first <= r->first);
    const bool take_r = r != recovered.end() && (b == base_.end() || r->first <= b->first);
    assert(take_b || take_r);  // the merge walk always advances
    const std::string& key = take_b ? b->first : r->first;
    const std::string* expected = take_b ? &b->second : nullptr;
    if (auto o = overlay.find(key); o != overlay.end()) expected = o->second ? &*o->second : nullptr;
    if (!same(expected, take_r ? &r->second : nullptr)) differ.insert(key);
    if (take_b) ++b;
    if (take_r) ++r;
  }
  for (const auto& [key, value] : overlay) {
    if (value && base_.count(key) == 0 && recovered.count(key) == 0) differ.insert(key);
  }
  return differ;
}

uint64_t KvModel::begin_read() {
  assert(active_reads_.size() < kActiveReadsMax && "a read that never ended (no end_read)");
  active_reads_.insert(acks_);
  assert(*active_reads_.rbegin() == acks_);  // acks only grow: this read is the newest
  return acks_;
}

void KvModel::end_read(uint64_t token) {
  assert(token <= acks_);  // a token is an ack count some begin_read handed out
  const auto it = active_reads_.find(token);
  if (it != active_reads_.end()) active_reads_.erase(it);  // absent if a crash ended it (rebase)
}

std::vector<Value> KvModel::readable_values(const std::string& key, uint64_t token) const {
  assert(token <= acks_);
  static const std::vector<uint64_t> kNone;
  const auto found = writes_by_key_.find(key);
  const std::vector<uint64_t>& seqs = found != writes_by_key_.end() ? found->second : kNone;
  assert(strictly_ascending(seqs) && (seqs.empty() || seqs.front() > base_seq_));
  size_t first = seqs.size();  // the newest commit on `key` acknowledged before the read began
  while (first > 0) {
    const CommitRecord& r = record(seqs[first - 1]);
    if (r.fate == CommitFate::kAcked && r.ack_order <= token) break;
    --first;
  }
  std::vector<Value> out;
  if (first == 0) {  // none in the history: the base's value is the oldest the read may see
    const auto b = base_.find(key);
    out.push_back(b != base_.end() ? Value{b->second} : std::nullopt);
  } else {
    --first;
  }
  for (size_t i = first; i < seqs.size(); ++i) {
    const CommitRecord& r = record(seqs[i]);
    if (r.fate == CommitFate::kAborted) continue;
    for (auto w = r.writes.rbegin(); w != r.writes.rend(); ++w) {
      if (w->key == key) {
        out.push_back(w->value);  // the commit's last write of the key
        break;
      }
    }
  }
  assert(!out.empty());
  assert(out.size() <= seqs.size() + 1);  // the floor, then at most one value per later writer
  return out;
}

void KvModel::rebase(KvState recovered) {
  active_reads_.clear();  // a crash ended every read
  base_ = std::move(recovered);
  base_seq_ = next_seq_ - 1;
  history_.clear();
  writes_by_key_.clear();
  last_acked_ = base_seq_;
  durable_point_ = base_seq_;
}

KvState KvModel::acked_state() const {
  KvState state = base_;
  for (const CommitRecord& r : history_) {
    if (r.fate != CommitFate::kAcked) continue;
    apply_to(state, r);
  }
  return state;
}

KvState KvModel::committed_state() const {
  KvState state = base_;
  for (const CommitRecord& r : history_) {
    if (r.fate == CommitFate::kAcked || r.fate == CommitFate::kPending) apply_to(state, r);
  }
  return state;
}

void KvModel::apply_to(KvState& state, const CommitRecord& r) {
  for (const KvWrite& w : r.writes) {
    if (w.value) {
      state[w.key] = *w.value;
    } else {
      state.erase(w.key);
    }
  }
}

}  // namespace wtsim::models
