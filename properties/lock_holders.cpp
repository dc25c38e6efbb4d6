#include "properties/lock_holders.h"

#include <cassert>

#include "properties/lock_matrix.h"

namespace wtsim::properties {

bool LockHolders::acquired(const std::string& resource, uint64_t fiber, engine::LockMode mode) {
  assert(mode != engine::LockMode::kNone);
  Holds& holds = by_resource_[resource];
  bool compatible = true;
  for (const auto& [holder, count] : holds) {
    assert(count > 0);
    if (holder.first != fiber) compatible = compatible && mongodb_modes_compatible(mode, holder.second);
  }
  uint32_t& count = holds[{fiber, mode}];
  if (count++ == 0) ++holds_;
  assert(holds_ <= kHoldsMax);
  if (!compatible) ++conflicting_grants_;
  return compatible;
}

void LockHolders::released(const std::string& resource, uint64_t fiber, engine::LockMode mode) {
  auto resource_it = by_resource_.find(resource);
  assert(resource_it != by_resource_.end() && "a release follows its hold");
  if (resource_it == by_resource_.end()) return;
  Holds& holds = resource_it->second;
  auto it = holds.find({fiber, mode});
  assert(it != holds.end() && "a client releases only what it holds");
  if (it == holds.end()) return;
  if (--it->second > 0) return;
  holds.erase(it);
  --holds_;
  if (holds.empty()) by_resource_.erase(resource_it);
}

}  // namespace wtsim::properties
