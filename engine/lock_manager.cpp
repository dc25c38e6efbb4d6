#include "engine/lock_manager.h"
#include "sim/planted.h"

#include <algorithm>
#include <cassert>

namespace wtsim::engine {
namespace {

// MongoDB queues global S/X (e.g. fsyncLock, replication state changes) ahead of everyone, so
// they are not starved by a steady stream of intent locks.
bool enqueue_at_front(const std::string& resource, LockMode mode) {
  return resource == kGlobalResource && (mode == LockMode::kS || mode == LockMode::kX);
}

}  // namespace

const char* to_string(LockMode mode) {
  switch (mode) {
    case LockMode::kNone: return "NONE";
    case LockMode::kIS: return "IS";
    case LockMode::kIX: return "IX";
    case LockMode::kS: return "S";
    case LockMode::kX: return "X";
  }
  return "?";
}

std::string db_resource(const std::string& db) { return "db:" + db; }

std::string collection_resource(const std::string& db, const std::string& coll) {
  return "coll:" + db + "." + coll;
}

void LockManager::lock(const std::string& resource, LockMode mode) {
  assert(mode != LockMode::kNone);
  sim_.check_cancelled();  // a dying fiber takes no new locks
  sim::FiberRecord& me = sim_.current();
  Head& head = heads_[resource];
  if (try_recursive_grant(head, me, mode)) return tell(resource, me, mode, true);
  // A front-queued request has nobody ahead of it; others must not overtake waiters (FIFO).
  const bool nobody_ahead = enqueue_at_front(resource, mode) || head.queue.empty();
  if (nobody_ahead && !conflicts_with_granted(head, me, mode)) {
    head.granted.push_back(Request{&me, mode, 1, true, {}});
    ++grants_;
    on_granted(head);
    return tell(resource, me, mode, true);
  }
  wait_for_grant(resource, head, me, mode);
  tell(resource, me, mode, true);
}

void LockManager::unlock(const std::string& resource, LockMode mode) {
  sim::FiberRecord& me = sim_.current();
  tell(resource, me, mode, false);
  auto head_it = heads_.find(resource);
  assert(head_it != heads_.end() && "unlock of a resource nobody holds");
  Head& head = head_it->second;
  auto it = std::find_if(head.granted.begin(), head.granted.end(), [&](const Request& r) {
    return r.fiber == &me && r.mode == mode;
  });
  assert(it != head.granted.end() && "unlock of a mode this fiber does not hold");
  if (--it->holds > 0) return;
  head.granted.erase(it);
  if (!(mode == LockMode::kS && planted::active(planted::Bug::kSReleaseWakesNoOne))) grant_waiters(head);
  erase_if_idle(resource);
}

size_t LockManager::waiting(const std::string& resource) const {
  auto it = heads_.find(resource);
  return it == heads_.end() ? 0 : it->second.queue.size();
}

std::vector<std::pair<uint64_t, LockMode>> LockManager::granted(
    const std::string& resource) const {
  std::vector<std::pair<uint64_t, LockMode>> out;
  auto it = heads_.find(resource);
  if (it == heads_.end()) return out;
  for (const Request& r : it->second.granted) out.emplace_back(r.fiber->id, r.mode);
  std::sort(out.begin(), out.end());
  return out;
}

bool LockManager::decide_conflict(LockMode requested, LockMode granted) const {
  if (planted_bug_wrong_cell_ && requested == LockMode::kIS && granted == LockMode::kX) {
    return false;
  }
  if (planted::active(planted::Bug::kLockTableWrongCell) && requested == LockMode::kS && granted == LockMode::kX) {
    return false;
  }
  return conflicts(requested, granted);
}

// A fiber never conflicts with itself: its own grants are recursion or an upgrade.
bool LockManager::conflicts_with_granted(const Head& head, const sim::FiberRecord& fiber,
                                         LockMode mode) const {
  return std::any_of(head.granted.begin(), head.granted.end(), [&](const Request& r) {
    return r.fiber != &fiber && decide_conflict(mode, r.mode);
  });
}

// Re-entry must not queue: waiters behind could be waiting for this very fiber's hold.
bool LockManager::try_recursive_grant(Head& head, sim::FiberRecord& me, LockMode mode) {
  Request* same_mode = nullptr;
  bool covered = false;
  for (Request& r : head.granted) {
    if (r.fiber != &me) continue;
    if (r.mode == mode) same_mode = &r;
    covered = covered || covers(r.mode, mode);
  }
  if (!covered) return false;
  if (same_mode != nullptr) {
    ++same_mode->holds;
  } else {
    head.granted.push_back(Request{&me, mode, 1, true, {}});
  }
  ++grants_;
  on_granted(head);
  return true;
}

void LockManager::wait_for_grant(const std::string& resource, Head& head, sim::FiberRecord& me,
                                 LockMode mode) {
  const auto where = enqueue_at_front(resource, mode) ? head.queue.begin() : head.queue.end();
  auto request = head.queue.insert(
      where, Request{&me, mode, 0, false, resource + " " + to_string(mode)});
  ++waits_;
  try {
    sim_.park("lock", &request->description);  // reported as "lock coll:test.c X"
  } catch (const sim::Cancelled&) {
    abandon(resource, head, request);
    throw;
  }
  // Only grant_waiters() unparks a waiter without cancelling it.
  assert(request->granted);
}

// A cancelled waiter leaves; if the grant raced ahead of the cancel, it gives the grant back.
// Either way the queue may now be grantable further (it could have been the blocking head).
void LockManager::abandon(const std::string& resource, Head& head,
                          std::list<Request>::iterator request) {
  if (request->granted) {
    head.granted.erase(request);
  } else {
    head.queue.erase(request);
  }
  grant_waiters(head);
  erase_if_idle(resource);
}

// FIFO hand-off: grant from the front while compatible, stop at the first that is not.
void LockManager::grant_waiters(Head& head) {
  for (auto it = head.queue.begin(); it != head.queue.end();) {
    auto next = std::next(it);
    // A cancelled waiter is already unparked and unwinding; it removes itself (abandon()).
    if (!it->fiber->cancel) {
      if (conflicts_with_granted(head, *it->fiber, it->mode)) break;
      it->granted = true;
      it->holds = 1;
      head.granted.splice(head.granted.end(), head.queue, it);
      ++grants_;
      on_granted(head);
      sim_.unpark(*it->fiber);
    }
    it = next;
  }
}

// The manager's own check, apart from the grant decision (which a planted bug may bend): all
// granted pairs of different fibers against the true table.
void LockManager::on_granted(const Head& head) {
  const auto compatible = [](LockMode a, LockMode b) { return !conflicts(a, b) && !conflicts(b, a); };
  bool violated = false;
  for (auto a = head.granted.begin(); a != head.granted.end(); ++a) {
    for (auto b = std::next(a); b != head.granted.end(); ++b) {
      if (a->fiber == b->fiber) continue;
      violated = violated || !compatible(a->mode, b->mode);
    }
  }
  if (violated) ++conflict_violations_;  // reported as lock_safety
}

void LockManager::erase_if_idle(const std::string& resource) {
  auto it = heads_.find(resource);
  if (it != heads_.end() && it->second.granted.empty() && it->second.queue.empty()) {
    heads_.erase(it);
  }
}

LockGuard::LockGuard(LockManager& manager, std::string resource, LockMode mode)
    : manager_(manager), resource_(std::move(resource)), mode_(mode) {
  manager_.lock(resource_, mode_);  // if this throws, nothing is held and no destructor runs
}

LockGuard::~LockGuard() { manager_.unlock(resource_, mode_); }

LockMode intent_mode(LockMode collection_mode) {
  assert(collection_mode != LockMode::kNone);
  const bool read = collection_mode == LockMode::kIS || collection_mode == LockMode::kS;
  return read ? LockMode::kIS : LockMode::kIX;
}

LockMode effective_collection_mode(LockMode collection_mode, LockPolicy policy) {
  if (policy == LockPolicy::kDocument) return collection_mode;
  // One writer per collection, readers behind it: MMAPv1 has no finer-grained control.
  if (collection_mode == LockMode::kIS) return LockMode::kS;
  if (collection_mode == LockMode::kIX) return LockMode::kX;
  return collection_mode;
}

HierarchicalLock::HierarchicalLock(LockManager& manager, const std::string& db,
                                   const std::string& collection, LockMode collection_mode,
                                   LockPolicy policy)
    : global_(manager, kGlobalResource, intent_mode(collection_mode)),
      db_(manager, db_resource(db), intent_mode(collection_mode)),
      collection_(manager, collection_resource(db, collection),
                  effective_collection_mode(collection_mode, policy)) {}

}  // namespace wtsim::engine
