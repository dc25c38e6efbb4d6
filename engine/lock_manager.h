#pragma once
// The multi-granularity lock manager of a MongoDB-like engine (semantics.md section 1), on
// simulated fibers and virtual time.
//
// Modes follow MongoDB: IS, IX, S, X on string-named resources ("global", "db:test",
// "coll:test.c"), taken top-down by HierarchicalLock. A blocked request parks its fiber; the run's
// deadlock report names it ("lock coll:test.c X"). Every grant re-checks the whole granted set
// against the true conflict table, so a bug in the grant logic shows up as an assertion (or, with
// the planted bug switched on, as a counted violation); the world's lock_safety judges the holds
// its observer is told of, with a matrix and a list of holders of its own.
//
// Deliberate simplifications, relative to MongoDB 3.0's LockHead:
// - FIFO is strict: a new request waits if anyone is queued ahead, even if its mode is compatible
//   with every queued mode (MongoDB only checks conflicts against queued modes).
// - No compatibleFirst: global S/X requests are only queued at the front.
// - Upgrades (a fiber holding IS asking for X) are plain new requests; they ignore the fiber's own
//   grants but queue FIFO like others, so two upgraders can deadlock (the run reports it).
#include <array>
#include <functional>
#include <cstdint>
#include <list>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "sim/scheduler.h"

namespace wtsim::engine {

enum class LockMode { kNone, kIS, kIX, kS, kX };
constexpr size_t kLockModeCount = 5;

const char* to_string(LockMode mode);

// kConflictTable[requested][granted]: true if `requested` must wait while `granted` is held.
// Indexed by the enum's value; kNone conflicts with nothing.
inline constexpr std::array<std::array<bool, kLockModeCount>, kLockModeCount> kConflictTable = {{
    //  granted: None   IS     IX     S      X
    {{false, false, false, false, false}},  // requested None
    {{false, false, false, false, true}},   // requested IS
    {{false, false, false, true, true}},    // requested IX
    {{false, false, true, false, true}},    // requested S
    {{false, true, true, true, true}},      // requested X
}};

constexpr bool conflicts(LockMode requested, LockMode granted) {
  return kConflictTable[static_cast<size_t>(requested)][static_cast<size_t>(granted)];
}

// True if holding `held` already grants everything `requested` would (X covers all; S and IX
// cover IS). Such a request by the holder is recursion, never a wait.
constexpr bool covers(LockMode held, LockMode requested) {
  if (held == requested || held == LockMode::kX) return true;
  return requested == LockMode::kIS && (held == LockMode::kS || held == LockMode::kIX);
}

inline const std::string kGlobalResource = "global";
std::string db_resource(const std::string& db);                                  // "db:test"
std::string collection_resource(const std::string& db, const std::string& coll);  // "coll:test.c"

class LockManager {
 public:
  explicit LockManager(sim::Simulator& sim) : sim_(sim) {}
  LockManager(const LockManager&) = delete;
  LockManager& operator=(const LockManager&) = delete;

  // Blocks the calling fiber until `mode` on `resource` is granted. Re-entrant per fiber: a
  // request covered by one of the fiber's grants is granted at once. Throws sim::Cancelled if the
  // fiber is cancelled (before or while waiting), holding nothing new.
  void lock(const std::string& resource, LockMode mode);
  // Releases one hold of `mode` on `resource` by the calling fiber. Never blocks.
  void unlock(const std::string& resource, LockMode mode);

  // --- Observation, for tests and reports ---
  size_t waiting(const std::string& resource) const;
  // (fiber id, mode) per granted request, sorted; a recursive hold appears once.
  std::vector<std::pair<uint64_t, LockMode>> granted(const std::string& resource) const;
  uint64_t grants() const { return grants_; }  // including recursive ones
  uint64_t waits() const { return waits_; }    // requests that had to queue
  // Grants after which two requests of different fibers held modes kConflictTable calls
  // incompatible: the manager's own check of its list, for its tests. lock_safety judges what
  // the observer is told instead (properties/lock_holders.h).
  uint64_t conflict_violations() const { return conflict_violations_; }
  // Told of every hold as its caller sees it: once lock() is about to return the mode to `fiber`
  // (acquired: true), and as unlock() is called (false).
  using Observer = std::function<void(const std::string& resource, uint64_t fiber, LockMode mode, bool acquired)>;
  void set_observer(Observer observer) { observer_ = std::move(observer); }

  // Test-only: makes the grant decision treat IS-requested-vs-X-granted as compatible. The safety
  // check keeps the true table and counts violations instead of asserting.
  void set_planted_bug_wrong_cell(bool on) { planted_bug_wrong_cell_ = on; }

 private:
  struct Request {
    sim::FiberRecord* fiber;
    LockMode mode;
    int holds = 0;  // recursion count once granted
    bool granted = false;
    std::string description;  // "coll:test.c X": what the parked fiber waits on, for reports
  };
  // Stable element addresses: a parked waiter points at its own description, and a grant moves
  // the request between the lists with splice.
  struct Head {
    std::list<Request> granted;
    std::list<Request> queue;
  };

  bool decide_conflict(LockMode requested, LockMode granted) const;
  bool conflicts_with_granted(const Head& head, const sim::FiberRecord& fiber,
                              LockMode mode) const;
  bool try_recursive_grant(Head& head, sim::FiberRecord& me, LockMode mode);
  void wait_for_grant(const std::string& resource, Head& head, sim::FiberRecord& me,
                      LockMode mode);
  void abandon(const std::string& resource, Head& head, std::list<Request>::iterator request);
  void grant_waiters(Head& head);
  void on_granted(const Head& head);
  void tell(const std::string& resource, const sim::FiberRecord& fiber, LockMode mode, bool acquired) const {
    if (observer_) observer_(resource, fiber.id, mode, acquired);
  }
  void erase_if_idle(const std::string& resource);

  sim::Simulator& sim_;
  std::map<std::string, Head> heads_;  // ordered: deterministic iteration
  uint64_t grants_ = 0;
  uint64_t waits_ = 0;
  uint64_t conflict_violations_ = 0;
  Observer observer_;
  bool planted_bug_wrong_cell_ = false;
};

// Holds one lock for its scope.
class LockGuard {
 public:
  LockGuard(LockManager& manager, std::string resource, LockMode mode);
  ~LockGuard();
  LockGuard(const LockGuard&) = delete;
  LockGuard& operator=(const LockGuard&) = delete;

 private:
  LockManager& manager_;
  std::string resource_;
  LockMode mode_;
};

// MMAPv1 locks whole collections; WiredTiger leaves conflicts to its per-key concurrency control.
enum class LockPolicy { kCollection /*MMAPv1*/, kDocument /*WiredTiger*/ };

// Global's and the database's intent mode for an operation on a collection: IS for reads (IS, S),
// IX for writes (IX, X).
LockMode intent_mode(LockMode collection_mode);
// The mode actually taken on the collection: under kCollection, IS->S and IX->X.
LockMode effective_collection_mode(LockMode collection_mode, LockPolicy policy);

// global -> db -> collection, released in reverse. Pass kIS for a read, kIX for a write (S/X for
// collection-exclusive work). If cancelled midway, the members already acquired unwind.
class HierarchicalLock {
 public:
  HierarchicalLock(LockManager& manager, const std::string& db, const std::string& collection,
                   LockMode collection_mode, LockPolicy policy);
  HierarchicalLock(const HierarchicalLock&) = delete;
  HierarchicalLock& operator=(const HierarchicalLock&) = delete;

 private:
  // Declaration order is acquisition order; destruction runs in reverse.
  LockGuard global_;
  LockGuard db_;
  LockGuard collection_;
};

}  // namespace wtsim::engine
