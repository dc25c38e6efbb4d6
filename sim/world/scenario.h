#pragma once
// A scenario file: what to run (duration, node knobs, workload) and which faults may happen,
// either as an explicit fault plan or as a swarm spec a seed draws a plan from.
#include <nlohmann/json.hpp>

#include <optional>
#include <string>

#include "engine/cost_model.h"
#include "faults/fault_plan.h"
#include "faults/fault_swarm.h"
#include "sim/virtual_clock.h"

namespace wtsim::world {

struct NodeSpec {
  uint64_t cache_mb = 64;
  sim::Nanos checkpoint_interval_ns = 60 * sim::kNsPerSec;
  sim::Nanos journal_commit_interval_ns = 100 * sim::kNsPerMs;
};

struct WorkloadSpec {
  uint64_t writers = 3;
  uint64_t keys = 500;
  sim::Nanos think_ns = 5 * sim::kNsPerMs;  // mean pause between a writer's commits
  double durable_fraction = 0.5;
  double delete_fraction = 0.1;
  uint64_t keys_per_txn_max = 3;
  uint64_t value_bytes_min = 16;
  uint64_t value_bytes_max = 200;
};

struct Scenario {
  std::string name;
  std::string description;
  sim::Nanos duration_ns = 10 * sim::kNsPerSec;
  NodeSpec node;
  WorkloadSpec workload;
  engine::CostModel cost;
  std::optional<faults::FaultPlan> fault_plan;  // explicit plan, used as is
  faults::SwarmSpec swarm;                      // otherwise drawn per seed
  nlohmann::json source;                        // the scenario as read, for the trace header
};

// Throws std::invalid_argument "FILE: /path: problem".
Scenario load_scenario(const std::string& path);
// `origin` names the source in messages (a file name, or "trace header").
Scenario scenario_from_json(const nlohmann::json& j, const std::string& origin);

}  // namespace wtsim::world
