// WiredTiger's own threads as fibers: the interposed functions (see wt_threads.h for the rules).
//
// Why each piece is here (the measured facts are in shared/docs/wiredtiger-notes.md):
// - The executable's unversioned definitions satisfy libwiredtiger.so's versioned references; the
//   real functions are reached with dlsym/dlvsym (GLIBC_2.3.2 for pthread_cond_*).
// - Mutex and condition-variable state lives inside WiredTiger's own pthread_mutex_t and
//   pthread_cond_t (all zero is "unlocked, no waiters", as PTHREAD_MUTEX_INITIALIZER is), so
//   there is no table keyed by address.
// - __wt_evict and __wt_txn_update_oldest are preemption points: the eviction server's pass loops
//   while it "makes progress" without reaching any pthread call, waiting for application threads
//   that on one OS thread only run if it yields.
// - Nothing here may add a switch point inside WiredTiger's spin windows (its rwlock retries,
//   is_allocating waits, evict_lock trylock loop): those only PAUSE, and stay safe because no
//   fiber switch happens inside them.
#include "sim/wt_threads.h"

#include <dirent.h>
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <sched.h>
#include <sys/select.h>
#include <time.h>
#include <wiredtiger.h>

#include <cassert>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <map>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "sim/scheduler.h"

extern "C" int __wt_panic(void* session);  // interposed below; forwards to WiredTiger's

namespace wtsim::sim::wt_threads {
namespace {

constexpr Nanos kYieldNs = kNsPerUs;                      // one sched_yield in virtual time
// The CPU time of one page eviction (a reconciliation; its writes pay their disk time apart) and
// of one update of the oldest transaction id: a stuck cache, where eviction retries the same pages,
// must cost virtual time as it costs real time, or the waits that end it take for ever.
constexpr Nanos kEvictNs = 50 * kNsPerUs;
constexpr Nanos kUpdateOldestNs = kNsPerUs;
constexpr Nanos kMonotonicBaseNs = 1000 * kNsPerSec;      // CLOCK_MONOTONIC at virtual time 0
constexpr uint64_t kThreadIdTag = 0x5754ull << 48;         // "WT": a fiber's pthread_t
constexpr size_t kSessionNamesMax = 4096;                 // bound on the session-name table

// ---- libwiredtiger.so's mapping: which calls are WiredTiger's. ----
uintptr_t g_wt_lo = 0, g_wt_hi = 0;

int find_wiredtiger(struct dl_phdr_info* info, size_t, void*) {
  if (info->dlpi_name == nullptr || std::strstr(info->dlpi_name, "libwiredtiger") == nullptr) return 0;
  if (std::strstr(info->dlpi_name, "libwiredtiger_") != nullptr) return 0;  // java, snappy, zlib
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_LOAD) continue;
    const uintptr_t lo = info->dlpi_addr + ph.p_vaddr;
    const uintptr_t hi = lo + ph.p_memsz;
    if (g_wt_lo == 0 || lo < g_wt_lo) g_wt_lo = lo;
    if (hi > g_wt_hi) g_wt_hi = hi;
  }
  return 1;
}

// Runs once the libraries are loaded; earlier calls (the loader's own) all get the real functions.
__attribute__((constructor)) void locate_wiredtiger() { dl_iterate_phdr(find_wiredtiger, nullptr); }

bool from_wiredtiger(const void* return_address) {
  const auto a = reinterpret_cast<uintptr_t>(return_address);
  return a >= g_wt_lo && a < g_wt_hi;
}

#define WTSIM_CALLER_IS_WT() from_wiredtiger(__builtin_return_address(0))

// ---- The real functions. ----
template <class Fn>
Fn resolve(Fn& slot, const char* name, const char* version) {
  // No guard variable: a C++ static's guard could itself call into these functions.
  if (slot == nullptr) {
    void* p = version != nullptr ? dlvsym(RTLD_NEXT, name, version) : dlsym(RTLD_NEXT, name);
    slot = reinterpret_cast<Fn>(p);
  }
  return slot;
}

#define WTSIM_REAL(fn, version)                              \
  [] {                                                       \
    static decltype(&::fn) slot = nullptr;                   \
    return resolve(slot, #fn, version);                      \
  }()

Counters g_counters;

// The owner of locks taken by WiredTiger with no simulator active (only uncontended ones work).
FiberRecord g_outside;

[[noreturn]] void fatal(const char* what) {
  std::fprintf(stderr, "wtsim: WiredTiger fiber layer: %s\n", what);
  std::abort();
}

FiberRecord& me(Simulator* sim) { return sim != nullptr ? sim->current_or_main() : g_outside; }

// ---- FIFO waiter lists, intrusive: each node lives on its waiting fiber's stack. ----
struct Waiter {
  FiberRecord* fiber = nullptr;
  Waiter* prev = nullptr;
  Waiter* next = nullptr;
  bool queued = false;
};

struct WaitList {
  Waiter* head;
  Waiter* tail;

  void push_back(Waiter& w) {
    assert(!w.queued);
    w.prev = tail;
    w.next = nullptr;
    (tail != nullptr ? tail->next : head) = &w;
    tail = &w;
    w.queued = true;
  }
  void remove(Waiter& w) {
    assert(w.queued);
    (w.prev != nullptr ? w.prev->next : head) = w.next;
    (w.next != nullptr ? w.next->prev : tail) = w.prev;
    w.queued = false;
  }
  Waiter* pop_front() {
    Waiter* w = head;
    if (w != nullptr) remove(*w);
    return w;
  }
};

struct FiberMutex {  // overlays pthread_mutex_t
  FiberRecord* owner;
  WaitList waiters;
};
static_assert(sizeof(FiberMutex) <= sizeof(pthread_mutex_t));

struct FiberCond {  // overlays pthread_cond_t
  WaitList waiters;
  clockid_t clock;  // the clock of timed waits' deadlines
};
static_assert(sizeof(FiberCond) <= sizeof(pthread_cond_t));

FiberMutex* as_fiber(pthread_mutex_t* m) { return reinterpret_cast<FiberMutex*>(m); }
FiberCond* as_fiber(pthread_cond_t* c) { return reinterpret_cast<FiberCond*>(c); }

// ---- Abandoned connections (close_or_abandon). ----
// Thrown at a wait of a fiber whose connection is abandoned: it unwinds WiredTiger's C frames
// (libwiredtiger.so has unwind tables; C frames have nothing to clean up) to the fiber's body or
// to close_or_abandon(). The connection's memory, locks included, is leaked and never used again.
struct Unwind {};

// The fibers inside close_or_abandon() -> their deadlines: one per connection being closed (the
// members of a replica set may close theirs at the same virtual time). Lookup only.
std::unordered_map<const FiberRecord*, Nanos> g_close_deadlines;
// Fiber id -> the connection whose thread it is (ordered by id: abandonment walks it).
std::map<uint64_t, const WT_CONNECTION*> g_thread_connection;
const WT_CONNECTION* g_pending_connection = nullptr;  // set while __wt_thread_create runs
std::unordered_set<const FiberRecord*> g_abandoned;  // lookup only: fibers to unwind
struct MutexWait {
  FiberMutex* mutex;
  Waiter* waiter;
};
std::unordered_map<const FiberRecord*, MutexWait> g_mutex_waits;  // lookup only

const Nanos* close_deadline(const FiberRecord& self) {
  const auto it = g_close_deadlines.find(&self);
  return it != g_close_deadlines.end() ? &it->second : nullptr;
}

bool closer_overdue(const FiberRecord& self) {
  const Simulator* sim = Simulator::active();
  const Nanos* deadline_ns = close_deadline(self);
  return deadline_ns != nullptr && sim != nullptr && sim->now_ns() >= *deadline_ns;
}

// Its connection's locks mean nothing to it any more: an abandoned or frozen fiber, or a closer
// past its deadline. Its lock() succeeds at once, its unlock() of a lock it never got does nothing.
bool abandoned(const FiberRecord& self) { return self.frozen || g_abandoned.count(&self) > 0 || closer_overdue(self); }

// At a wait that may throw (select, the condition waits): unwinds an abandoned fiber, or the
// closer once its deadline has passed.
void unwind_if_abandoned(Simulator* sim, const FiberRecord& self) {
  assert(sim != nullptr);
  if (self.frozen) return;  // its next park never returns
  if (abandoned(self)) throw Unwind{};
}

int lock(FiberMutex* m) {
  Simulator* sim = Simulator::active();
  FiberRecord& self = me(sim);
  if (abandoned(self)) return 0;  // see abandoned()
  if (m->owner == nullptr) {
    m->owner = &self;
    ++self.wt_mutexes_held;
    ++g_counters.mutexes_held;
    return 0;
  }
  if (m->owner == &self) fatal("WiredTiger locked a mutex it holds (not recursive)");
  if (sim == nullptr) fatal("a WiredTiger mutex is contended with no simulator active");
  Waiter w;
  w.fiber = &self;
  m->waiters.push_back(w);
  g_mutex_waits[&self] = MutexWait{m, &w};
  // The closer waits no longer than its deadline: the holder may be frozen.
  const Nanos* deadline_ns = close_deadline(self);
  sim->park_until("wt:mutex", deadline_ns);
  g_mutex_waits.erase(&self);
  if (w.queued) m->waiters.remove(w);  // the closer's deadline passed
  if (abandoned(self)) return 0;  // off the list: abandon_threads(), or the deadline
  assert(m->owner == &self && !w.queued);  // handed over by unlock()
  return 0;
}

int unlock(FiberMutex* m) {
  const FiberRecord& self = me(Simulator::active());
  if (abandoned(self) && m->owner != &self) return 0;  // a lock it never got (see abandoned())
  if (m->owner == nullptr) fatal("WiredTiger unlocked a mutex nobody holds");
  assert(m->owner->wt_mutexes_held > 0);
  --m->owner->wt_mutexes_held;
  Waiter* next = m->waiters.pop_front();
  if (next == nullptr) {
    m->owner = nullptr;
    assert(g_counters.mutexes_held > 0);
    --g_counters.mutexes_held;
    return 0;
  }
  m->owner = next->fiber;  // FIFO hand-off: no barging, the order of waiting decides
  ++m->owner->wt_mutexes_held;
  Simulator::active()->unpark(*next->fiber);
  return 0;
}

Nanos deadline_of(const FiberCond& c, const struct timespec& abstime) {
  const Nanos t_ns = static_cast<Nanos>(abstime.tv_sec) * kNsPerSec + abstime.tv_nsec;
  return c.clock == CLOCK_MONOTONIC ? t_ns - kMonotonicBaseNs : t_ns - kVirtualEpochSec * kNsPerSec;
}

int cond_wait(FiberCond* c, FiberMutex* m, const struct timespec* abstime) {
  Simulator* sim = Simulator::active();
  if (sim == nullptr) fatal("WiredTiger waits on a condition with no simulator active");
  Waiter w;
  w.fiber = &sim->current_or_main();
  unwind_if_abandoned(sim, *w.fiber);
  if (m->owner != w.fiber) fatal("WiredTiger waits on a condition without holding its mutex");
  c->waiters.push_back(w);
  unlock(m);
  Nanos deadline_ns = 0;
  if (abstime != nullptr) deadline_ns = deadline_of(*c, *abstime);
  const bool timed_out = sim->park_until("wt:condition", abstime != nullptr ? &deadline_ns : nullptr);
  if (w.queued) c->waiters.remove(w);
  unwind_if_abandoned(sim, *w.fiber);  // with the mutex released
  lock(m);
  return timed_out ? ETIMEDOUT : 0;
}

int cond_broadcast(FiberCond* c) {
  Simulator* sim = Simulator::active();
  while (Waiter* w = c->waiters.pop_front()) {
    // A waiter whose deadline already woke it is ready, not parked: taking it off is enough.
    if (w->fiber->parked) sim->unpark(*w->fiber);
  }
  return 0;
}

// ---- Threads. ----
std::string g_pending_name;  // set while __wt_thread_create runs: the new thread's session name
std::unordered_map<const void*, std::string> g_session_names;  // lookup only, never iterated
uint64_t g_simulator_serial = 0;
const Simulator* g_serial_owner = nullptr;

uint64_t serial_of(const Simulator* sim) {
  if (sim != g_serial_owner) {
    g_serial_owner = sim;
    ++g_simulator_serial;
  }
  return g_simulator_serial & 0xffff;
}

pthread_t encode_thread(Simulator* sim, uint64_t fiber_id) {
  return static_cast<pthread_t>(kThreadIdTag | (serial_of(sim) << 32) | fiber_id);
}

FiberRecord* decode_thread(Simulator* sim, pthread_t t) {
  const auto v = static_cast<uint64_t>(t);
  if ((v & (0xffffull << 48)) != kThreadIdTag) return nullptr;
  if (((v >> 32) & 0xffff) != serial_of(sim)) fatal("WiredTiger joins a thread of another simulator's run");
  return sim->fiber_by_id(v & 0xffffffffull);
}

std::unordered_map<const FiberRecord*, int> g_evict_depth;  // lookup only, never iterated
// Connections that panicked (WT_SESSION_IMPL starts with its WT_SESSION, whose first member is the
// connection). Lookup only; an entry goes when its connection is closed (connection_closed()),
// since WiredTiger frees the connection and a new one may get its address.
std::unordered_set<const WT_CONNECTION*> g_panicked;

// A switch point that also costs virtual time, as the work that follows does on a real CPU: an
// eviction loop that finds nothing to write (an in-memory split, a page it cannot evict) would
// otherwise spin with time standing still, and the fibers it waits for sleep on timers.
void preemption_point(Nanos cost_ns) {
  Simulator* sim = Simulator::active();
  if (sim == nullptr || !sim->in_fiber()) return;
  ++g_counters.preemptions;
  const Nanos until_ns = sim->now_ns() + cost_ns;
  sim->park_until("wt:preempted", &until_ns);  // never cancellable: we are inside WiredTiger
}

}  // namespace

const Counters& counters() { return g_counters; }

namespace {

// The mutexes an unwound fiber held stay locked, in the leaked connection's memory.
void leak_mutexes(FiberRecord& fiber) {
  assert(g_counters.mutexes_held >= static_cast<uint64_t>(fiber.wt_mutexes_held));
  g_counters.mutexes_held -= fiber.wt_mutexes_held;
  g_counters.mutexes_leaked += fiber.wt_mutexes_held;
  fiber.wt_mutexes_held = 0;
}

// Unwinds every thread of `conn` out of WiredTiger and waits until each has ended; `closer` is
// the fiber whose close was unwound.
void abandon_threads(Simulator* sim, const WT_CONNECTION* conn, FiberRecord& closer) {
  std::vector<FiberRecord*> threads;
  for (const auto& [id, owner] : g_thread_connection) {
    FiberRecord* fiber = sim->fiber_by_id(id);
    if (owner != conn || fiber == nullptr || fiber->finished) continue;
    threads.push_back(fiber);
    g_abandoned.insert(fiber);
  }
  for (FiberRecord* fiber : threads) {
    if (const auto it = g_mutex_waits.find(fiber); it != g_mutex_waits.end()) {
      it->second.mutex->waiters.remove(*it->second.waiter);  // never handed the mutex now
    }
    // A condition wait or a sleep throws once woken; a yield or preemption wakes on its own.
    if (fiber->parked && fiber->waits_on != nullptr && std::strcmp(fiber->waits_on, "join") != 0) sim->unpark(*fiber);
  }
  for (FiberRecord* fiber : threads) sim->join(*fiber);
  threads.push_back(&closer);
  for (FiberRecord* fiber : threads) {
    assert(fiber->finished || fiber == &closer);
    leak_mutexes(*fiber);
    g_abandoned.erase(fiber);
    g_thread_connection.erase(fiber->id);
  }
  ++g_counters.connections_abandoned;
}

}  // namespace

void freeze_inside_wiredtiger(FiberRecord& fiber) {
  Simulator* sim = Simulator::active();
  assert(sim != nullptr && !fiber.finished && !fiber.frozen);
  if (const auto it = g_mutex_waits.find(&fiber); it != g_mutex_waits.end()) {
    it->second.mutex->waiters.remove(*it->second.waiter);  // never handed the mutex now
    g_mutex_waits.erase(it);
  }
  leak_mutexes(fiber);
  sim->freeze(fiber);
  ++g_counters.fibers_frozen;
}

bool close_or_abandon(WT_CONNECTION* conn, const char* config, int64_t budget_ns) {
  assert(conn != nullptr && budget_ns > 0);
  Simulator* sim = Simulator::active();
  if (sim == nullptr || !sim->in_fiber()) {
    (void)conn->close(conn, config);
    connection_closed(conn);
    return false;
  }
  const bool first = g_close_deadlines.emplace(&sim->current(), sim->now_ns() + budget_ns).second;
  assert(first && "a fiber closes one connection at a time");
  (void)first;
  bool unwound = false;
  try {
    (void)conn->close(conn, config);
  } catch (const Unwind&) {
    unwound = true;
  }
  g_close_deadlines.erase(&sim->current());
  if (unwound) abandon_threads(sim, conn, sim->current());
  connection_closed(conn);  // freed, or leaked and never used again
  return unwound;
}

bool panicked(const WT_CONNECTION* conn) { return g_panicked.count(conn) > 0; }

int panic_connection(WT_SESSION* session, int error) {
  assert(error != 0);
  if (session == nullptr) return error;
  return __wt_panic(session);  // also reports "the process must exit and restart", as WiredTiger does
}

namespace {
constexpr size_t kLogSwitchWedgesMax = 64;  // kept until taken; a bound, not an expectation
struct SwitchFailure {
  const WT_CONNECTION* conn;  // the session's, so that its close can drop the entry
  int error;
};
// Session -> its switch's error (lookup only). An entry outlives its session only if the
// connection died between the failure and the retry; connection_closed() then drops it, since
// WiredTiger frees the sessions with the connection and a new session may get the address.
std::unordered_map<const void*, SwitchFailure> g_log_switch_failed;
std::vector<int> g_log_switch_wedges;

// After WiredTiger's __wt_log_acquire returned `ret` in `session`: a failure, then EBUSY (the
// old file still set aside) is the wedge take_log_switch_wedges() describes.
int after_log_acquire(void* session, int ret) {
  if (ret == 0) {
    g_log_switch_failed.erase(session);
    return 0;
  }
  const auto it = g_log_switch_failed.find(session);
  if (ret != EBUSY) {
    const WT_CONNECTION* conn = static_cast<WT_SESSION*>(session)->connection;
    if (it == g_log_switch_failed.end()) g_log_switch_failed.emplace(session, SwitchFailure{conn, ret});
    return ret;
  }
  if (it == g_log_switch_failed.end()) return ret;  // a close still pending: WiredTiger retries
  ++g_counters.log_switch_wedges;
  if (g_log_switch_wedges.size() < kLogSwitchWedgesMax) g_log_switch_wedges.push_back(it->second.error);
  g_log_switch_failed.erase(it);
  return panic_connection(static_cast<WT_SESSION*>(session), ret);
}
}  // namespace

// docs/findings.md, finding 26: a panicked connection's address, once freed, was given to the final
// reopen's connection in some runs (always under glibc's malloc, now and then under jemalloc), and
// that healthy connection's close then skipped its transaction drain. Nothing recorded by address
// may outlive what it describes.
void connection_closed(const WT_CONNECTION* conn) {
  g_panicked.erase(conn);
  for (auto it = g_log_switch_failed.begin(); it != g_log_switch_failed.end();) {  // order irrelevant: erasing
    it = it->second.conn == conn ? g_log_switch_failed.erase(it) : std::next(it);
  }
}

std::vector<int> take_log_switch_wedges() {
  std::vector<int> taken;
  taken.swap(g_log_switch_wedges);
  return taken;
}

bool in_eviction() {
  Simulator* sim = Simulator::active();
  if (sim == nullptr) return false;
  const auto it = g_evict_depth.find(&sim->current_or_main());
  return it != g_evict_depth.end() && it->second > 0;
}

extern "C" {
// Referenced by the link options of wtsim_sim (sim/CMakeLists.txt): pulls this object into every
// executable, whether or not it calls problem().
int wtsim_wt_threads_anchor = 0;
}

std::string problem() {
  if (g_wt_lo == 0) return "libwiredtiger.so is not mapped in this process";
  if (dlsym(RTLD_DEFAULT, "pthread_mutex_lock") != reinterpret_cast<void*>(&::pthread_mutex_lock)) {
    return "the executable does not export the interposed pthread functions (link it with ENABLE_EXPORTS)";
  }
  const bool reals_found = WTSIM_REAL(pthread_create, nullptr) && WTSIM_REAL(pthread_join, nullptr) &&
                           WTSIM_REAL(pthread_self, nullptr) && WTSIM_REAL(pthread_mutex_lock, nullptr) &&
                           WTSIM_REAL(pthread_cond_wait, "GLIBC_2.3.2") &&
                           WTSIM_REAL(pthread_cond_timedwait, "GLIBC_2.3.2") && WTSIM_REAL(sched_yield, nullptr) &&
                           WTSIM_REAL(select, nullptr) && WTSIM_REAL(clock_gettime, nullptr);
  if (!reals_found) return "a real pthread, sched_yield, select or clock_gettime function is not found";
  for (const char* internal : {"__wt_evict", "__wt_txn_update_oldest", "__wt_thread_create", "__wt_open_internal_session",
                               "__wt_panic", "__wt_txn_activity_drain"}) {
    if (dlsym(RTLD_NEXT, internal) == nullptr) {
      return std::string("libwiredtiger.so does not export ") + internal + " (a build other than Debian's 3.2.1?)";
    }
  }
  return "";
}

std::string single_thread_problem() {
  DIR* dir = opendir("/proc/self/task");
  if (dir == nullptr) return "";  // no /proc: nothing to check against
  int threads = 0;
  while (const struct dirent* e = readdir(dir)) threads += e->d_name[0] != '.' ? 1 : 0;
  closedir(dir);
  if (threads <= 1) return "";
  return std::to_string(threads) + " OS threads run in this process: a WiredTiger thread escaped the fiber layer";
}

}  // namespace wtsim::sim::wt_threads

// ===================== The interposed functions (C linkage, exported). =====================
using namespace wtsim::sim;
using namespace wtsim::sim::wt_threads;

extern "C" {

int pthread_create(pthread_t* thread, const pthread_attr_t* attr, void* (*start)(void*), void* arg) noexcept {
  if (!WTSIM_CALLER_IS_WT()) return WTSIM_REAL(pthread_create, nullptr)(thread, attr, start, arg);
  Simulator* sim = Simulator::active();
  if (sim == nullptr) {
    // Fail closed: no WiredTiger thread ever runs as an OS thread. Not an error code: WiredTiger
    // 3.2.1 crashes in its clean-up after a failed thread start.
    std::fprintf(stderr, "wtsim: refusing to run: WiredTiger started a thread with no simulator active "
                         "(call it from a sim::Simulator's fibers or with one alive)\n");
    std::fflush(nullptr);
    std::_Exit(2);
  }
  const std::string name = "wt:" + (g_pending_name.empty() ? std::string("thread") : g_pending_name);
  FiberRecord& fiber = sim->spawn(name, "wt", [start, arg] {
    try {
      (void)start(arg);
    } catch (const Unwind&) {  // its connection was abandoned
    }
  }, /*daemon=*/true);
  if (g_pending_connection != nullptr) g_thread_connection[fiber.id] = g_pending_connection;
  *thread = encode_thread(sim, fiber.id);
  ++g_counters.threads_started;
  return 0;
}

int pthread_join(pthread_t thread, void** retval) {
  if (!WTSIM_CALLER_IS_WT()) return WTSIM_REAL(pthread_join, nullptr)(thread, retval);
  Simulator* sim = Simulator::active();
  if (sim == nullptr) fatal("WiredTiger joins a thread with no simulator active");
  FiberRecord* fiber = decode_thread(sim, thread);
  if (fiber == nullptr) return ESRCH;
  sim->join(*fiber);
  g_thread_connection.erase(fiber->id);
  if (retval != nullptr) *retval = nullptr;
  return 0;
}

pthread_t pthread_self() noexcept {
  if (!WTSIM_CALLER_IS_WT()) return WTSIM_REAL(pthread_self, nullptr)();
  Simulator* sim = Simulator::active();
  if (sim == nullptr) return WTSIM_REAL(pthread_self, nullptr)();
  return encode_thread(sim, sim->in_fiber() ? sim->current().id : 0);  // deterministic in messages
}

int pthread_mutex_init(pthread_mutex_t* m, const pthread_mutexattr_t* attr) noexcept {
  if (!WTSIM_CALLER_IS_WT()) return WTSIM_REAL(pthread_mutex_init, nullptr)(m, attr);
  std::memset(m, 0, sizeof(*m));
  return 0;
}

int pthread_mutex_destroy(pthread_mutex_t* m) noexcept {
  if (!WTSIM_CALLER_IS_WT()) return WTSIM_REAL(pthread_mutex_destroy, nullptr)(m);
  const FiberMutex* fm = as_fiber(m);
  if (fm->owner != nullptr || fm->waiters.head != nullptr) return EBUSY;
  return 0;
}

int pthread_mutex_lock(pthread_mutex_t* m) noexcept {
  if (!WTSIM_CALLER_IS_WT()) return WTSIM_REAL(pthread_mutex_lock, nullptr)(m);
  return lock(as_fiber(m));
}

int pthread_mutex_trylock(pthread_mutex_t* m) noexcept {
  if (!WTSIM_CALLER_IS_WT()) return WTSIM_REAL(pthread_mutex_trylock, nullptr)(m);
  FiberMutex* fm = as_fiber(m);
  if (fm->owner != nullptr) return EBUSY;
  return lock(fm);
}

int pthread_mutex_unlock(pthread_mutex_t* m) noexcept {
  if (!WTSIM_CALLER_IS_WT()) return WTSIM_REAL(pthread_mutex_unlock, nullptr)(m);
  return unlock(as_fiber(m));
}

int pthread_cond_init(pthread_cond_t* c, const pthread_condattr_t* attr) noexcept {
  if (!WTSIM_CALLER_IS_WT()) return WTSIM_REAL(pthread_cond_init, "GLIBC_2.3.2")(c, attr);
  std::memset(c, 0, sizeof(*c));
  clockid_t clock = CLOCK_REALTIME;
  if (attr != nullptr) pthread_condattr_getclock(attr, &clock);
  as_fiber(c)->clock = clock;
  return 0;
}

int pthread_cond_destroy(pthread_cond_t* c) noexcept {
  if (!WTSIM_CALLER_IS_WT()) return WTSIM_REAL(pthread_cond_destroy, "GLIBC_2.3.2")(c);
  return as_fiber(c)->waiters.head != nullptr ? EBUSY : 0;
}

int pthread_cond_wait(pthread_cond_t* c, pthread_mutex_t* m) {
  if (!WTSIM_CALLER_IS_WT()) return WTSIM_REAL(pthread_cond_wait, "GLIBC_2.3.2")(c, m);
  return cond_wait(as_fiber(c), as_fiber(m), nullptr);
}

int pthread_cond_timedwait(pthread_cond_t* c, pthread_mutex_t* m, const struct timespec* abstime) {
  if (!WTSIM_CALLER_IS_WT()) return WTSIM_REAL(pthread_cond_timedwait, "GLIBC_2.3.2")(c, m, abstime);
  return cond_wait(as_fiber(c), as_fiber(m), abstime);
}

int pthread_cond_broadcast(pthread_cond_t* c) noexcept {
  if (!WTSIM_CALLER_IS_WT()) return WTSIM_REAL(pthread_cond_broadcast, "GLIBC_2.3.2")(c);
  return cond_broadcast(as_fiber(c));
}

int sched_yield() noexcept {
  // __wt_yield tail-calls sched_yield: the return address is __wt_yield's caller, still WiredTiger.
  if (!WTSIM_CALLER_IS_WT()) return WTSIM_REAL(sched_yield, nullptr)();
  Simulator* sim = Simulator::active();
  if (sim == nullptr) return 0;
  ++g_counters.yields;
  // 1 us of virtual time, so that spin-yield loops waiting for a timeout end.
  const Nanos until_ns = sim->now_ns() + kYieldNs;
  sim->park_until("wt:yield", &until_ns);
  return 0;
}

int select(int nfds, fd_set* r, fd_set* w, fd_set* e, struct timeval* timeout) {
  // select(0, NULL, NULL, NULL, &t) is __wt_sleep.
  if (nfds != 0 || timeout == nullptr || !WTSIM_CALLER_IS_WT() || Simulator::active() == nullptr) {
    return WTSIM_REAL(select, nullptr)(nfds, r, w, e, timeout);
  }
  Simulator* sim = Simulator::active();
  const Nanos until_ns = sim->now_ns() + timeout->tv_sec * kNsPerSec + timeout->tv_usec * kNsPerUs;
  unwind_if_abandoned(sim, sim->current_or_main());
  sim->park_until("wt:sleep", &until_ns);
  unwind_if_abandoned(sim, sim->current_or_main());
  return 0;
}

int clock_gettime(clockid_t id, struct timespec* ts) noexcept {
  if (!WTSIM_CALLER_IS_WT() || (id != CLOCK_REALTIME && id != CLOCK_MONOTONIC)) {
    return WTSIM_REAL(clock_gettime, nullptr)(id, ts);
  }
  // Frozen (0) with no simulator active: WiredTiger's rdtsc calibration then measures nothing and
  // its clock stays clock_gettime, that is, virtual, for the life of the process.
  const Simulator* sim = Simulator::active();
  const Nanos now_ns = (sim != nullptr ? sim->now_ns() : 0) +
                       (id == CLOCK_MONOTONIC ? kMonotonicBaseNs : kVirtualEpochSec * kNsPerSec);
  ts->tv_sec = now_ns / kNsPerSec;
  ts->tv_nsec = now_ns % kNsPerSec;
  return 0;
}

// ---- WiredTiger's own functions (internal symbols of Debian's build, called through its PLT). ----
int __wt_evict(void* session, void* ref, uint32_t previous_state, uint32_t flags) {
  static int (*real)(void*, void*, uint32_t, uint32_t) = nullptr;
  resolve(real, "__wt_evict", nullptr);
  preemption_point(kEvictNs);
  Simulator* sim = Simulator::active();
  if (sim == nullptr) return real(session, ref, previous_state, flags);
  const FiberRecord* self = &sim->current_or_main();
  ++g_evict_depth[self];
  const int ret = real(session, ref, previous_state, flags);
  if (--g_evict_depth[self] == 0) g_evict_depth.erase(self);
  return ret;
}

int __wt_txn_update_oldest(void* session, uint32_t flags) {
  static int (*real)(void*, uint32_t) = nullptr;
  resolve(real, "__wt_txn_update_oldest", nullptr);
  preemption_point(kUpdateOldestNs);
  return real(session, flags);
}

int __wt_open_internal_session(void* conn, const char* name, bool open_metadata, uint32_t session_flags, void** sessionp) {
  static int (*real)(void*, const char*, bool, uint32_t, void**) = nullptr;
  resolve(real, "__wt_open_internal_session", nullptr);
  const int ret = real(conn, name, open_metadata, session_flags, sessionp);
  if (ret == 0 && name != nullptr && *sessionp != nullptr) {
    if (g_session_names.size() >= kSessionNamesMax) g_session_names.clear();  // bounded; names only
    g_session_names[*sessionp] = name;
  }
  return ret;
}

// A panicked connection's transactions never end (its sessions refuse to roll back), so its close
// would wait in __wt_txn_activity_drain for ever: WiredTiger expects the process to exit. A run
// cannot; it abandons the connection (leak_memory=true) without that wait, and the close stops
// WiredTiger's threads as usual.
int __wt_panic(void* session) {
  static int (*real)(void*) = nullptr;
  resolve(real, "__wt_panic", nullptr);
  if (session != nullptr) g_panicked.insert(static_cast<WT_SESSION*>(session)->connection);
  return real(session);
}

int __wt_log_acquire(void* session, uint64_t recsize, void* slot) {
  static int (*real)(void*, uint64_t, void*) = nullptr;
  resolve(real, "__wt_log_acquire", nullptr);
  return after_log_acquire(session, real(session, recsize, slot));
}

int __wt_txn_activity_drain(void* session) {
  static int (*real)(void*) = nullptr;
  resolve(real, "__wt_txn_activity_drain", nullptr);
  if (session != nullptr && panicked(static_cast<WT_SESSION*>(session)->connection)) return 0;
  return real(session);
}

int __wt_thread_create(void* session, void* tidret, void* (*func)(void*), void* arg) {
  static int (*real)(void*, void*, void* (*)(void*), void*) = nullptr;
  resolve(real, "__wt_thread_create", nullptr);
  const auto it = g_session_names.find(session);
  g_pending_name = it != g_session_names.end() ? it->second : "";
  g_pending_connection = session != nullptr ? static_cast<WT_SESSION*>(session)->connection : nullptr;
  const int ret = real(session, tidret, func, arg);
  g_pending_name.clear();
  g_pending_connection = nullptr;
  return ret;
}

}  // extern "C"
