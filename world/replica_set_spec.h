#pragma once
// A scenario's replica set: its members, as MongoDB's replica set configuration gives them
// (priority, hidden, votes), each with its own fault plan. Absent, a run has one member, the
// primary, and runs exactly as a single node does.
//   "replica_set": {"members": [{}, {"priority": 0.5}, {"priority": 0, "hidden": true,
//                               "fault_plan": [{"kind": "crash", "at_ms": 3000}]}]}
// Member 0 is the first primary (without elections, the primary of the whole run); it has the
// scenario's own fault plan or swarm. The others start after it, each on its own simulated disk
// with its own WiredTiger. With elections:
//   "elections": {"heartbeat_interval_ms": 2000, "election_timeout_ms": 10000},
//   "majority_fraction": 0.5, "wtimeout_ms": 5000
#include <cstddef>
#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

#include "faults/fault_plan.h"
#include "sim/virtual_clock.h"
#include "world/network_faults.h"
#include "world/replica_set_swarm.h"

namespace wtsim::world {

struct MemberSpec {
  double priority = 1;  // 0: never primary
  bool hidden = false;  // invisible to clients; priority 0
  int votes = 1;        // 0 or 1; a non-voting member has priority 0
  faults::FaultPlan fault_plan;  // members after the first: their own plan (none by default)
};

struct ReplicaSetSpec {
  // MongoDB's limits: at most 50 members, at most 7 of them voting.
  static constexpr size_t kMembersMax = 50;
  static constexpr size_t kVotingMembersMax = 7;
  std::vector<MemberSpec> members{MemberSpec{}};
  // The network between members: each message's one-way delay, uniform in this range.
  sim::Nanos latency_min_ns = 1 * sim::kNsPerMs;
  sim::Nanos latency_max_ns = 5 * sim::kNsPerMs;
  std::vector<NetworkFault> network_faults;  // windows of cut links (network_faults.h)
  // Faults each seed draws (replica_set_swarm.h); none left once drawn (world/knobs.h).
  std::optional<ReplicaSetSwarm> swarm;
  // "elections": {...}: members elect their primary (world/elector.h) and the workload's clients
  // follow it over the network (world/replica_clients.h). Without it the first member is the
  // primary for the whole run and its clients run on it.
  bool elections = false;
  sim::Nanos heartbeat_interval_ns = 2 * sim::kNsPerSec;  // MongoDB's heartbeatIntervalMillis
  sim::Nanos election_timeout_ns = 10 * sim::kNsPerSec;   // MongoDB's electionTimeoutMillis
  // With elections: the share of the clients' writes that ask w:"majority", and its wtimeout.
  double majority_fraction = 0;
  sim::Nanos wtimeout_ns = 5 * sim::kNsPerSec;

  size_t size() const { return members.size(); }
  // Whether the run replicates: more than one member, or elections (one member elects itself).
  bool replicated() const { return size() > 1 || elections; }
};

// Reads the "replica_set" section at `path`; throws sim::JsonError naming the field, for
// MongoDB's configuration rules too (a hidden member with a priority, more than 7 voters, a
// first member that cannot be primary).
ReplicaSetSpec replica_set_from_json(const nlohmann::json& j, const std::string& path);

}  // namespace wtsim::world
