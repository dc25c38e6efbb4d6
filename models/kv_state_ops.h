#pragma once
// Small helpers over key/value states and the commit history, shared by the model
// (kv_model.cpp) and its recovery check (recovery_check.cpp). Internal to models/.
#include <algorithm>
#include <deque>
#include <string>

#include "models/kv_model.h"

namespace wtsim::models::state_ops {

// The value of `key` in `state`, or nullptr: no copy.
inline const std::string* find(const KvState& state, const std::string& key) {
  auto it = state.find(key);
  return it == state.end() ? nullptr : &it->second;
}

inline bool same(const std::string* a, const std::string* b) { return a == nullptr || b == nullptr ? a == b : *a == *b; }
inline bool same(const Value& a, const std::string* b) { return same(a ? &*a : nullptr, b); }

// The history holds exactly the commits base_seq+1 .. next_seq-1, oldest first (O(1): the deque
// only ever grows at the back and shrinks at the front).
inline bool contiguous(const std::deque<CommitRecord>& history, uint64_t base_seq, uint64_t next_seq) {
  if (base_seq >= next_seq || history.size() != next_seq - 1 - base_seq) return false;
  return history.empty() || (history.front().seq == base_seq + 1 && history.back().seq == next_seq - 1);
}

// An acknowledged durable commit above `cut`: one the cut would lose although it must survive.
inline bool durable_acked_above(const std::deque<CommitRecord>& history, uint64_t cut) {
  return std::any_of(history.begin(), history.end(),
                     [cut](const CommitRecord& r) { return r.seq > cut && r.fate == CommitFate::kAcked && r.durable; });
}

}  // namespace wtsim::models::state_ops
