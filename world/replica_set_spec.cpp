#include "world/replica_set_spec.h"

#include <string>

#include "sim/json_reader.h"

namespace wtsim::world {
namespace {

MemberSpec member_from(const nlohmann::json& j, const std::string& path, size_t index) {
  sim::ObjectReader r(j, path);
  MemberSpec m;
  m.priority = r.number_or("priority", m.priority);
  sim::check_bounds(m.priority >= 0 && m.priority <= 1000, r.path_of("priority"), "in [0, 1000]");
  m.hidden = r.bool_or("hidden", m.hidden);
  m.votes = static_cast<int>(r.u64_or("votes", static_cast<uint64_t>(m.votes)));
  sim::check_bounds(m.votes == 0 || m.votes == 1, r.path_of("votes"), "0 or 1");
  // MongoDB's replSetInitiate refuses these (a hidden or non-voting member must have priority 0).
  if (m.hidden && m.priority > 0) throw sim::JsonError(r.path_of("priority"), "a hidden member must have priority 0");
  if (m.votes == 0 && m.priority > 0) throw sim::JsonError(r.path_of("priority"), "a non-voting member must have priority 0");
  if (index == 0 && m.priority == 0) throw sim::JsonError(r.path_of("priority"), "the first member is the primary: priority above 0");
  if (auto* plan = r.optional("fault_plan")) {
    if (index == 0) throw sim::JsonError(r.path_of("fault_plan"), "the first member's faults are the scenario's fault_plan or swarm");
    m.fault_plan = faults::plan_from_json(*plan, r.path_of("fault_plan"));
  }
  r.reject_unknown();
  return m;
}

void elections_from(const nlohmann::json& j, const std::string& path, ReplicaSetSpec* spec) {
  sim::ObjectReader r(j, path);
  const uint64_t heartbeat_ms = r.u64_or("heartbeat_interval_ms", static_cast<uint64_t>(spec->heartbeat_interval_ns / sim::kNsPerMs));
  const uint64_t timeout_ms = r.u64_or("election_timeout_ms", static_cast<uint64_t>(spec->election_timeout_ns / sim::kNsPerMs));
  sim::check_bounds(heartbeat_ms >= 100 && heartbeat_ms <= 60'000, r.path_of("heartbeat_interval_ms"), "in [100, 60000]");
  sim::check_bounds(timeout_ms >= 2 * heartbeat_ms && timeout_ms <= 600'000, r.path_of("election_timeout_ms"),
                    "in [2 x heartbeat_interval_ms, 600000]");
  r.reject_unknown();
  spec->elections = true;
  spec->heartbeat_interval_ns = static_cast<sim::Nanos>(heartbeat_ms) * sim::kNsPerMs;
  spec->election_timeout_ns = static_cast<sim::Nanos>(timeout_ms) * sim::kNsPerMs;
}

}  // namespace

ReplicaSetSpec replica_set_from_json(const nlohmann::json& j, const std::string& path) {
  sim::ObjectReader r(j, path);
  const nlohmann::json& members = r.required("members");
  const std::string members_path = r.path_of("members");
  sim::check_bounds(members.is_array() && !members.empty() && members.size() <= ReplicaSetSpec::kMembersMax, members_path,
                    "a list of 1 to " + std::to_string(ReplicaSetSpec::kMembersMax) + " members");
  ReplicaSetSpec spec;
  spec.members.clear();
  size_t voting = 0;
  for (size_t i = 0; i < members.size(); ++i) {
    spec.members.push_back(member_from(members[i], members_path + "/" + std::to_string(i), i));
    voting += static_cast<size_t>(spec.members.back().votes);
  }
  constexpr uint64_t kLatencyMsMax = 60'000;
  const uint64_t min_ms = r.u64_or("latency_min_ms", static_cast<uint64_t>(spec.latency_min_ns / sim::kNsPerMs));
  const uint64_t max_ms = r.u64_or("latency_max_ms", static_cast<uint64_t>(spec.latency_max_ns / sim::kNsPerMs));
  sim::check_bounds(max_ms <= kLatencyMsMax, r.path_of("latency_max_ms"), "at most 60000");
  sim::check_bounds(min_ms <= max_ms, r.path_of("latency_min_ms"), "at most latency_max_ms");
  spec.latency_min_ns = static_cast<sim::Nanos>(min_ms) * sim::kNsPerMs;
  spec.latency_max_ns = static_cast<sim::Nanos>(max_ms) * sim::kNsPerMs;
  if (auto* faults = r.optional("network_faults")) {
    spec.network_faults = network_faults_from_json(*faults, r.path_of("network_faults"), spec.members.size());
  }
  if (auto* swarm = r.optional("swarm")) spec.swarm = replica_set_swarm_from_json(*swarm, r.path_of("swarm"));
  if (auto* elections = r.optional("elections")) elections_from(*elections, r.path_of("elections"), &spec);
  for (size_t i = 0; i < spec.network_faults.size(); ++i) {
    if (spec.network_faults[i].kind == NetworkFault::Kind::kStepDown && !spec.elections) {
      throw sim::JsonError(r.path_of("network_faults") + "/" + std::to_string(i) + "/kind", "step_down needs \"elections\"");
    }
  }
  if (spec.swarm && spec.swarm->step_downs_max > 0 && !spec.elections) {
    throw sim::JsonError(r.path_of("swarm") + "/step_downs_max", "step-downs need \"elections\"");
  }
  spec.majority_fraction = r.number_or("majority_fraction", spec.majority_fraction);
  sim::check_bounds(spec.majority_fraction >= 0 && spec.majority_fraction <= 1, r.path_of("majority_fraction"), "in [0, 1]");
  if (spec.majority_fraction > 0 && !spec.elections) throw sim::JsonError(r.path_of("majority_fraction"), "needs \"elections\" (the clients that ask it)");
  const uint64_t wtimeout_ms = r.u64_or("wtimeout_ms", static_cast<uint64_t>(spec.wtimeout_ns / sim::kNsPerMs));
  sim::check_bounds(wtimeout_ms >= 1 && wtimeout_ms <= 60'000, r.path_of("wtimeout_ms"), "in [1, 60000]");
  spec.wtimeout_ns = static_cast<sim::Nanos>(wtimeout_ms) * sim::kNsPerMs;
  if (voting > ReplicaSetSpec::kVotingMembersMax) {
    throw sim::JsonError(members_path, "at most " + std::to_string(ReplicaSetSpec::kVotingMembersMax) + " members may vote (MongoDB's limit)");
  }
  r.reject_unknown();
  return spec;
}

}  // namespace wtsim::world
