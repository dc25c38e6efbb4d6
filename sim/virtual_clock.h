#pragma once
// The virtual clock: the only source of time inside a run.
#include <cassert>
#include <cstdint>

namespace wtsim::sim {

using Nanos = int64_t;
constexpr Nanos kNsPerUs = 1'000;
constexpr Nanos kNsPerMs = 1'000'000;
constexpr Nanos kNsPerSec = 1'000'000'000;

// Wall-clock seconds that virtual time zero maps to (2020-09-13T12:26:40Z), so WiredTiger's
// checkpoint timestamps and MongoDB-style Dates look like real dates.
constexpr int64_t kVirtualEpochSec = 1'600'000'000;

class VirtualClock {
 public:
  Nanos now_ns() const { return now_ns_; }

  // Time never goes backwards.
  void advance_to(Nanos t_ns) {
    assert(t_ns >= now_ns_);
    now_ns_ = t_ns;
  }

 private:
  Nanos now_ns_ = 0;
};

}  // namespace wtsim::sim
