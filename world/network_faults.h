#pragma once
// Network faults of a replica set (replica_set.network_faults), each a window of virtual time:
//   {"kind": "isolate", "member": 2, "at_ms": 1000, "until_ms": 4000}   both ways, all its links
//   {"kind": "cut", "from": 1, "to": 0, "at_ms": 1000, "until_ms": 4000} one way
//   {"kind": "partition", "side": [0, 1], "at_ms": 1000, "until_ms": 4000} these members from
//                                                                           the rest, both ways
//   {"kind": "pause", "member": 2, "at_ms": 1000, "until_ms": 4000}   a stalled process: its
//       fibers stop (sim::Simulator::pause_group) and its links stay up, so what is sent to it
//       waits unanswered; WiredTiger's own threads go on, as nothing outside the member sees them
//   {"kind": "step_down", "at_ms": 1000, "until_ms": 4000}   replSetStepDown on the primary of
//       that time (or on "member"): with elections only; it steps down once an electable
//       secondary has caught up (within 10 s, secondaryCatchUpPeriodSecs) and stands for no
//       election until until_ms (stepDownSecs). An administrator's command, listed here for its
//       window.
// A window that has not ended when the fault phase does ends then, as disk-full windows do.
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/virtual_clock.h"

namespace wtsim::world {

struct NetworkFault {
  enum class Kind { kIsolate, kCut, kPartition, kPause, kStepDown };
  static constexpr size_t kThePrimary = SIZE_MAX;  // a step_down without "member"
  Kind kind = Kind::kIsolate;
  sim::Nanos at_ns = 0;
  sim::Nanos until_ns = 0;
  size_t member = 0;         // isolate, pause, step_down
  size_t from = 0, to = 0;   // cut
  std::vector<size_t> side;  // partition

  // The directed links the fault cuts, in a replica set of `members` (none for a pause or a
  // step-down).
  std::vector<std::pair<size_t, size_t>> links(size_t members) const;
};

constexpr size_t kNetworkFaultsMax = 64;

const char* to_string(NetworkFault::Kind kind);
// Reads the list at `path`; members must be below `members`. Throws sim::JsonError.
std::vector<NetworkFault> network_faults_from_json(const nlohmann::json& j, const std::string& path, size_t members);

}  // namespace wtsim::world
