#include "models/kv_model.h"

#include <algorithm>
#include <cassert>
#include <set>
#include <string_view>

#include "models/kv_state_ops.h"

namespace wtsim::models {
namespace {

using state_ops::contiguous;
using state_ops::find;
using state_ops::same;

bool strictly_ascending(const std::vector<uint64_t>& seqs) {
  return std::adjacent_find(seqs.begin(), seqs.end(), std::greater_equal<uint64_t>()) == seqs.end();
}

bool none_pending(const std::deque<CommitRecord>& history) {
  return std::none_of(history.begin(), history.end(),
                      [](const CommitRecord& r) { return r.fate == CommitFate::kPending; });
}

}  // namespace

std::string KvModel::render(const Value& v) const {
  if (!v) return "absent";
  return renderer_ ? renderer_(*v) : "\"" + v->substr(0, 24) + "\"";
}

// "<id>:" then the alphabet from letter (id + position) % 26, cycling, up to `bytes`.
std::string KvModel::make_value(uint64_t id, size_t bytes) {
  static constexpr std::string_view kTwoAlphabets = "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz";
  std::string v = std::to_string(id) + ":";
  v.reserve(std::max(bytes, v.size()));
  while (v.size() < bytes) {
    const size_t from = (id + v.size()) % 26;
    v.append(kTwoAlphabets.substr(from, std::min<size_t>(26, bytes - v.size())));
  }
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

std::vector<std::string> KvModel::keys_with_prefix(const std::string& prefix) const {
  std::set<std::string> keys;
  for (auto it = base_.lower_bound(prefix); it != base_.end() && it->first.compare(0, prefix.size(), prefix) == 0; ++it) {
    keys.insert(it->first);
  }
  for (const CommitRecord& r : history_) {
    for (const KvWrite& w : r.writes) {
      if (w.key.compare(0, prefix.size(), prefix) == 0) keys.insert(w.key);
    }
  }
  return {keys.begin(), keys.end()};
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
