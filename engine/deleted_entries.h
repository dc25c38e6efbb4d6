#pragma once
// Deleted index entries that WiredTiger still holds in memory, so that a scan can pay for
// stepping over them.
//
// WiredTiger 3.2.1 keeps a deleted entry in its in-memory page until the page is evicted; a cursor
// walking the index steps over each one inside next() (MongoDB's keysExamined never sees them).
// bench/ttl_query_dip.cpp measures it: about 14 ns an entry, linear to a million, unchanged by
// repeated walks or checkpoints when nothing evicts the pages, gone after a restart. Evicting is
// what clears them: a cursor that skipped over WT_BTREE_DELETE_THRESHOLD (1000) deleted entries on
// a page marks it to be evicted soon, and with WiredTiger's eviction server running (a fiber here)
// the walked pages go within a fraction of a virtual second (docs/design/engine.md, "Deleted index entries").
//
// The model: an entry removed by a committed transaction is a tombstone of its index, keyed as
// WiredTiger keys it; a scan over [from, to) steps over the tombstones in that range; a tombstone
// that a scan stepped over and that is at least `evict_after_ns` old has left memory (its page was
// evicted). A restart starts with none (a new engine). Deterministic: it depends only on what the
// engine committed and scanned, and when.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sim/virtual_clock.h"

namespace wtsim::engine {

// One index entry written or removed inside a transaction (OperationContext::index_edits).
struct IndexEdit {
  std::string table;
  std::string entry;
  bool removed = false;
};

class DeletedEntries {
 public:
  // Beyond it, removals are counted, not kept (and stepping over them is not charged): about
  // 120 bytes each, so at most ~0.5 GB. Every index's removals are kept, walked or not (an _id
  // index is rarely walked); the TTL account at full scale removes about 12 million.
  static constexpr uint64_t kTrackedMax = 4'000'000;

  // A transaction's edits, once it committed at `now_ns`: removals become tombstones, an entry
  // written again is live again.
  void committed(const std::vector<IndexEdit>& edits, sim::Nanos now_ns);

  // A forward or backward scan of `table` stepped over the entries in [from, to) (to: nullopt for
  // the end of the index). Returns the tombstones it stepped over; those older than
  // `evict_after_ns` leave memory.
  uint64_t walk(const std::string& table, const std::string& from, const std::optional<std::string>& to, sim::Nanos now_ns,
                sim::Nanos evict_after_ns);

  // A table that was dropped takes its tombstones with it.
  void forget(const std::string& table);

  uint64_t tracked() const { return tracked_; }
  uint64_t untracked() const { return untracked_; }

 private:
  std::map<std::string, std::map<std::string, sim::Nanos>> by_table_;  // table -> entry -> removed at
  uint64_t tracked_ = 0;
  uint64_t untracked_ = 0;  // removals past kTrackedMax, not modelled
};

}  // namespace wtsim::engine
