#pragma once
// WiredTiger's own threads as fibers of the run's seeded scheduler (wt_threads.cpp).
//
// The executable interposes the functions libwiredtiger.so imports to make threads, to wait and
// to read the clock (pthread_create/join/self, pthread_mutex_*, pthread_cond_*, sched_yield,
// select with no descriptors, clock_gettime) and two of WiredTiger's internal functions as
// preemption points (__wt_evict, __wt_txn_update_oldest); __wt_panic and __wt_txn_activity_drain
// let a panicked connection be closed (see wt_threads.cpp); __wt_open_internal_session and
// __wt_thread_create name the threads; __wt_log_acquire turns a wedged log into a panic (see
// take_log_switch_wedges). Only calls whose return address lies
// in libwiredtiger.so get fiber behaviour; every other caller gets the real function.
//
// For WiredTiger's calls:
// - a thread is a daemon fiber of the active Simulator, named "wt:" + its internal session's
//   name (wt:eviction-server, wt:log-server, wt:sweep-server, ...); pthread_self is its fiber id;
// - a mutex hands off in FIFO order, a condition variable's timed wait ends on virtual time;
// - sched_yield costs 1 us of virtual time, __wt_evict 50 us (a reconciliation's CPU) and
//   __wt_txn_update_oldest 1 us; select(0, ...) sleeps in virtual time;
// - CLOCK_REALTIME and CLOCK_MONOTONIC both read the virtual clock (frozen when no simulator is
//   active), so WiredTiger's start-up rdtsc calibration measures 0 ns and it keeps clock_gettime.
// A wait inside WiredTiger is never cancelled (see sim::FiberRecord::no_cancel_depth). WiredTiger
// may be called from the main context too (tests, benchmarks): its waits then run the other
// fibers until it can go on.
#include <cstdint>
#include <string>
#include <vector>

#include <wiredtiger.h>

namespace wtsim::sim {
struct FiberRecord;
}

namespace wtsim::sim::wt_threads {

// Empty if the layer is in effect: the interposed functions are the ones the dynamic linker
// binds, libwiredtiger.so is mapped, the real functions and WiredTiger's internal symbols resolve.
// Otherwise why not. (A WiredTiger thread started with no simulator active ends the process with
// exit code 2 and a message.)
std::string problem();

// Empty if this process runs on one OS thread (checked after each wiredtiger_open).
std::string single_thread_problem();

// Whether the current fiber (or the main context) is inside WiredTiger's __wt_evict: its disk
// operations are eviction's (the eviction server's workers or an application thread evicting).
bool in_eviction();

// Closes `conn` with `config`. A crashed node's connection stands for a killed process, so its
// close must end: if it is still inside WiredTiger after `budget_ns` of virtual time (WiredTiger
// 3.2.1 can wait for ever on a log slot after a failed log-file switch, or in a panicked
// connection's close), the closing fiber and every thread of that connection are unwound out of
// WiredTiger at their next sleep or condition wait, and the connection is leaked, never touched
// again. Returns true if it was abandoned. Outside a fiber it just closes.
bool close_or_abandon(WT_CONNECTION* conn, const char* config, int64_t budget_ns);

// Whether `conn` panicked (its close skips the transaction drain that would wait for ever).
bool panicked(const WT_CONNECTION* conn);
// After `conn` is closed: WiredTiger frees the connection (leak_memory=true keeps its pages, not
// the connection itself), so a later wiredtiger_open may get the same address, which must not
// inherit what was recorded about the old one.
void connection_closed(const WT_CONNECTION* conn);

// Freezes a fiber stuck inside a dead node's connection (sim::Simulator::freeze): the WiredTiger
// mutexes it holds stay locked, leaked with that connection, and it never waits for one again.
void freeze_inside_wiredtiger(FiberRecord& fiber);

// Halts the connection `session` belongs to, as WiredTiger's POSIX file system does when a file
// or directory sync fails (os_posix/os_fs.c: a flush is never retried, its failure halts the
// system): every later call of that connection fails with WT_PANIC. Returns WT_PANIC, or `error`
// when there is no session to halt.
int panic_connection(WT_SESSION* session, int error);

// WiredTiger 3.2.1 cannot go on after a failed log-file switch (docs/findings.md, finding 24): the caller
// has closed the active slot and set the old file aside for closing, but the old file closes only
// once that slot is written, which the caller does only after the switch succeeds, so every retry
// waits for it (EBUSY) for ever and the log never takes a write again. A real process hangs there
// until it is killed. Here a session's switch that failed and then found the old file still
// pending panics its connection (the node then crashes and restarts, as a watchdog would make it),
// and the error that started the wedge is kept for the world to classify. Returns the errors
// (errno or WiredTiger codes) since the last call, oldest first.
std::vector<int> take_log_switch_wedges();

struct Counters {
  uint64_t threads_started = 0;   // WiredTiger threads made fibers, process-wide
  uint64_t mutexes_held = 0;      // WiredTiger mutexes locked right now
  uint64_t mutexes_leaked = 0;    // locked for good in abandoned connections
  uint64_t preemptions = 0;       // preemption points passed in a fiber
  uint64_t yields = 0;            // sched_yield calls (1 us each)
  uint64_t connections_abandoned = 0;  // closes that close_or_abandon() cut short
  uint64_t fibers_frozen = 0;     // by freeze_inside_wiredtiger()
  uint64_t log_switch_wedges = 0;  // wedged logs turned into panics (take_log_switch_wedges)
};
const Counters& counters();

}  // namespace wtsim::sim::wt_threads
