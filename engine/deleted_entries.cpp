#include "engine/deleted_entries.h"

#include <cassert>

namespace wtsim::engine {

void DeletedEntries::committed(const std::vector<IndexEdit>& edits, sim::Nanos now_ns) {
  assert(now_ns >= 0);
  for (const IndexEdit& e : edits) {
    assert(!e.table.empty() && !e.entry.empty());
    std::map<std::string, sim::Nanos>& tombstones = by_table_[e.table];
    if (!e.removed) {
      tracked_ -= tombstones.erase(e.entry);
    } else if (tracked_ >= kTrackedMax) {
      ++untracked_;
    } else if (tombstones.emplace(e.entry, now_ns).second) {
      ++tracked_;
    }
  }
  assert(tracked_ <= kTrackedMax);
}

uint64_t DeletedEntries::walk(const std::string& table, const std::string& from, const std::optional<std::string>& to,
                              sim::Nanos now_ns, sim::Nanos evict_after_ns) {
  assert(evict_after_ns >= 0);
  assert(!to || from <= *to);
  const auto found = by_table_.find(table);
  if (found == by_table_.end()) return 0;
  std::map<std::string, sim::Nanos>& tombstones = found->second;
  const auto end = to ? tombstones.lower_bound(*to) : tombstones.end();
  uint64_t stepped = 0;
  for (auto it = tombstones.lower_bound(from); it != end;) {
    ++stepped;
    if (now_ns - it->second >= evict_after_ns) {
      it = tombstones.erase(it);
      --tracked_;
    } else {
      ++it;
    }
  }
  return stepped;
}

void DeletedEntries::forget(const std::string& table) {
  const auto found = by_table_.find(table);
  if (found == by_table_.end()) return;
  assert(found->second.size() <= tracked_);
  tracked_ -= found->second.size();
  by_table_.erase(found);
}

}  // namespace wtsim::engine
