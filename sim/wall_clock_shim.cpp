// Interposes clock_gettime so that WiredTiger's only wall-clock source (CLOCK_REALTIME, used for
// checkpoint `time=` metadata and message prefixes) answers from the virtual clock during a run.
// CLOCK_MONOTONIC is left alone: WiredTiger's condition waits depend on it.
#include <dlfcn.h>
#include <time.h>

#include <atomic>

#include "sim/virtual_clock.h"

namespace {

std::atomic<const wtsim::sim::VirtualClock*> g_clock{nullptr};

using ClockGettimeFn = int (*)(clockid_t, struct timespec*);

ClockGettimeFn real_clock_gettime() {
  static ClockGettimeFn fn = reinterpret_cast<ClockGettimeFn>(dlsym(RTLD_NEXT, "clock_gettime"));
  return fn;
}

}  // namespace

namespace wtsim::sim {

void install_wall_clock(const VirtualClock* clock) { g_clock.store(clock); }
void uninstall_wall_clock() { g_clock.store(nullptr); }

}  // namespace wtsim::sim

extern "C" int clock_gettime(clockid_t id, struct timespec* ts) {
  const wtsim::sim::VirtualClock* clock = g_clock.load(std::memory_order_relaxed);
  if (clock != nullptr && id == CLOCK_REALTIME) {
    const wtsim::sim::Nanos now = clock->now_ns();
    ts->tv_sec = wtsim::sim::kVirtualEpochSec + now / wtsim::sim::kNsPerSec;
    ts->tv_nsec = now % wtsim::sim::kNsPerSec;
    return 0;
  }
  return real_clock_gettime()(id, ts);
}
