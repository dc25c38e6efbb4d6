#include "world/replica_set_swarm.h"

#include <cassert>

#include "faults/fault_swarm.h"
#include "sim/json_reader.h"
#include "sim/random.h"
#include "world/scenario.h"

namespace wtsim::world {
namespace {

// A window's times, in [0, duration_ms).
nlohmann::json draw_window(sim::Rng& rng, uint64_t duration_ms, uint64_t length_ms_max) {
  assert(duration_ms >= 2);
  const uint64_t at_ms = rng.below(duration_ms - 1);
  const uint64_t length_ms = ReplicaSetSwarm::kNetworkFaultMsMin + rng.below(length_ms_max - ReplicaSetSwarm::kNetworkFaultMsMin + 1);
  return {{"at_ms", at_ms}, {"until_ms", std::min(at_ms + length_ms, duration_ms)}};
}

// One window of cut links among `members`, in [0, duration_ms).
nlohmann::json draw_network_fault(sim::Rng& rng, size_t members, uint64_t duration_ms, uint64_t length_ms_max) {
  assert(members >= 2);
  nlohmann::json f = draw_window(rng, duration_ms, length_ms_max);
  switch (rng.below(3)) {
    case 0:
      f["kind"] = "isolate";
      f["member"] = rng.below(members);
      break;
    case 1: {
      const uint64_t from = rng.below(members);
      f["kind"] = "cut";
      f["from"] = from;
      f["to"] = (from + 1 + rng.below(members - 1)) % members;
      break;
    }
    default: {
      nlohmann::json side = nlohmann::json::array();
      for (size_t m = 0; m < members; ++m) {
        if (rng.below(2) == 1) side.push_back(m);
      }
      if (side.empty()) side.push_back(rng.below(members));
      if (side.size() == members) side.erase(side.begin() + static_cast<long>(rng.below(members)));
      f["kind"] = "partition";
      f["side"] = side;
    }
  }
  return f;
}

}  // namespace

ReplicaSetSwarm replica_set_swarm_from_json(const nlohmann::json& j, const std::string& path) {
  sim::ObjectReader r(j, path);
  ReplicaSetSwarm s;
  s.members = r.bool_or("members", s.members);
  s.network_faults_max = r.u64_or("network_faults_max", s.network_faults_max);
  sim::check_bounds(s.network_faults_max <= ReplicaSetSwarm::kNetworkFaultsMax, r.path_of("network_faults_max"),
                    "in [0, " + std::to_string(ReplicaSetSwarm::kNetworkFaultsMax) + "]");
  s.network_fault_ms_max = r.u64_or("network_fault_ms_max", s.network_fault_ms_max);
  sim::check_bounds(s.network_fault_ms_max >= ReplicaSetSwarm::kNetworkFaultMsMin && s.network_fault_ms_max <= 600'000,
                    r.path_of("network_fault_ms_max"), "in [100, 600000]");
  s.pauses_max = r.u64_or("pauses_max", s.pauses_max);
  sim::check_bounds(s.pauses_max <= ReplicaSetSwarm::kNetworkFaultsMax, r.path_of("pauses_max"),
                    "in [0, " + std::to_string(ReplicaSetSwarm::kNetworkFaultsMax) + "]");
  s.step_downs_max = r.u64_or("step_downs_max", s.step_downs_max);
  sim::check_bounds(s.step_downs_max <= ReplicaSetSwarm::kNetworkFaultsMax, r.path_of("step_downs_max"),
                    "in [0, " + std::to_string(ReplicaSetSwarm::kNetworkFaultsMax) + "]");
  r.reject_unknown();
  return s;
}

void draw_replica_set_swarm(const Scenario& s, uint64_t seed, nlohmann::json* j, nlohmann::json* drawn) {
  const std::optional<ReplicaSetSwarm>& swarm = s.replica_set.swarm;
  if (!swarm) return;
  nlohmann::json& rs = (*j)["replica_set"];
  rs.erase("swarm");
  const size_t members = s.replica_set.size();
  for (size_t m = 1; swarm->members && m < members; ++m) {
    if (rs["members"][m].contains("fault_plan")) continue;  // its own plan stands
    sim::Rng rng = sim::stream(seed, "fault-plan.m" + std::to_string(m));
    rs["members"][m]["fault_plan"] = faults::to_json(faults::draw_plan(s.swarm, rng, s.duration_ns));
    (*drawn)["replica_set.members." + std::to_string(m) + ".fault_plan"] = rs["members"][m]["fault_plan"];
  }
  if ((swarm->network_faults_max == 0 && swarm->pauses_max == 0 && swarm->step_downs_max == 0) || members < 2) return;
  const uint64_t duration_ms = static_cast<uint64_t>(s.duration_ns / sim::kNsPerMs);
  nlohmann::json windows = rs.value("network_faults", nlohmann::json::array());
  if (swarm->network_faults_max > 0) {
    sim::Rng rng = sim::stream(seed, "network-faults");
    const uint64_t n = rng.below(swarm->network_faults_max + 1);
    for (uint64_t i = 0; i < n && duration_ms >= 2; ++i) windows.push_back(draw_network_fault(rng, members, duration_ms, swarm->network_fault_ms_max));
  }
  // Each kind from its own stream, so that adding one leaves the others' windows as they were.
  // A pause names a drawn member; a step-down goes to the primary of its time.
  const auto draw_kind = [&](uint64_t max, const char* stream, const char* kind, bool with_member) {
    sim::Rng rng = sim::stream(seed, stream);
    const uint64_t n = max > 0 ? rng.below(max + 1) : 0;
    for (uint64_t i = 0; i < n && duration_ms >= 2; ++i) {
      nlohmann::json f = draw_window(rng, duration_ms, swarm->network_fault_ms_max);
      f["kind"] = kind;
      if (with_member) f["member"] = rng.below(members);
      windows.push_back(std::move(f));
    }
  };
  draw_kind(swarm->pauses_max, "pauses", "pause", true);
  draw_kind(swarm->step_downs_max, "step-downs", "step_down", false);
  rs["network_faults"] = windows;
  (*drawn)["replica_set.network_faults"] = windows;
}

}  // namespace wtsim::world
