#pragma once
// Server selection as a driver does it, for the clients of a replica set with elections (the
// workload's, world/replica_clients.h, and a script's, world/script_clients.h): it asks each
// member clients can see (not a hidden one) over the network whether it is a writable primary
// and takes the newest term's; with none, it asks again after a pause.
#include <cstddef>
#include <optional>

#include "world/replica_set.h"
#include "world/run_context.h"

namespace wtsim::world {

constexpr sim::Nanos kNoPrimaryWaitNs = 500 * sim::kNsPerMs;  // between rounds
constexpr sim::Nanos kIsMasterTimeoutNs = sim::kNsPerSec;

// From a fiber of network endpoint `endpoint`: the primary, or nullopt once the run ended first.
std::optional<size_t> select_primary(RunContext& run, ReplicaSet& set, size_t endpoint);

}  // namespace wtsim::world
