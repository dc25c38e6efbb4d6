#pragma once
// Swarm testing of a replica set (replica_set.swarm): each seed draws the faults of the members
// after the first and the network's, as the scenario's swarm draws the first member's:
//   "swarm": {"members": true, "network_faults_max": 3, "network_fault_ms_max": 3000}
// - members: every member after the first without a fault_plan of its own draws one from the
//   scenario's `swarm` spec, from its own stream ("fault-plan.m<k>", as the first member's is
//   "fault-plan");
// - network faults: 0..network_faults_max windows (isolate, cut or partition, drawn alike), each
//   starting in the fault phase and lasting 100 ms..network_fault_ms_max, from the stream
//   "network-faults";
// - pauses: 0..pauses_max pauses of a drawn member (a stalled process), each starting in the
//   fault phase and lasting 100 ms..network_fault_ms_max, from the stream "pauses", listed after
//   the network windows;
// - step-downs (with elections): 0..step_downs_max replSetStepDown commands on the primary of
//   their time, each starting in the fault phase with a stepDownSecs of 100 ms..network_fault_ms_max,
//   from the stream "step-downs", listed last.
// The seed's owner draws them with the knobs (world/knobs.h): the trace header's scenario holds
// the drawn plans and windows, and no swarm, so replay and shrink never draw again.
#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace wtsim::world {

struct ReplicaSetSwarm {
  static constexpr uint64_t kNetworkFaultsMax = 16;
  static constexpr uint64_t kNetworkFaultMsMin = 100;
  bool members = false;
  uint64_t network_faults_max = 0;
  uint64_t network_fault_ms_max = 3000;
  uint64_t pauses_max = 0;      // at most kNetworkFaultsMax
  uint64_t step_downs_max = 0;  // at most kNetworkFaultsMax
};

// Reads "replica_set.swarm" at `path`; throws sim::JsonError naming the field.
ReplicaSetSwarm replica_set_swarm_from_json(const nlohmann::json& j, const std::string& path);

struct Scenario;
// The scenario's JSON (`j`, as read) with this seed's member plans and network windows written
// in and its replica_set.swarm removed; `drawn` says what was drawn. Nothing without a swarm.
void draw_replica_set_swarm(const Scenario& s, uint64_t seed, nlohmann::json* j, nlohmann::json* drawn);

}  // namespace wtsim::world
