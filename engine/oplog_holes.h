#pragma once
// Oplog visibility, as MongoDB's "all committed" point: an entry's ts is taken inside its
// transaction, and transactions commit in another order than they took their ts, so a reader
// that served entry 10 while entry 9's writer was still open would skip entry 9 for good. A
// node serves its oplog only below the oldest ts still held by an unfinished transaction.
#include <cassert>
#include <cstdint>
#include <set>

namespace wtsim::engine {

class OplogHoles {
 public:
  static constexpr size_t kHeldMax = 1'000'000;  // one per open transaction's entry

  void hold(uint64_t ts) {
    assert(ts > 0 && held_.size() < kHeldMax);
    const bool inserted = held_.insert(ts).second;
    assert(inserted && "a ts is held by one transaction at a time");
    (void)inserted;
  }
  void release(uint64_t ts) {
    const size_t erased = held_.erase(ts);
    assert(erased == 1 && "only a held ts is released");
    (void)erased;
  }
  // Every entry below this ts is committed or rolled back (`next_ts`: none is held).
  uint64_t visible_below(uint64_t next_ts) const {
    assert(held_.empty() || *held_.rbegin() < next_ts);
    return held_.empty() ? next_ts : *held_.begin();
  }
  size_t held() const { return held_.size(); }

 private:
  std::set<uint64_t> held_;
};

}  // namespace wtsim::engine
