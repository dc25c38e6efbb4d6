#include "sim/world/scenario.h"

#include <fstream>
#include <sstream>

#include "sim/json_reader.h"

namespace wtsim::world {
namespace {

using sim::kNsPerMs;
using sim::ObjectReader;

NodeSpec node_from(const nlohmann::json& j, const std::string& path) {
  ObjectReader r(j, path);
  NodeSpec n;
  n.cache_mb = r.u64_or("cache_mb", n.cache_mb);
  if (n.cache_mb < 1) throw sim::JsonError(r.path_of("cache_mb"), "must be at least 1");
  n.checkpoint_interval_ns =
      static_cast<sim::Nanos>(r.u64_or("checkpoint_interval_ms", n.checkpoint_interval_ns / kNsPerMs)) * kNsPerMs;
  n.journal_commit_interval_ns =
      static_cast<sim::Nanos>(r.u64_or("journal_commit_interval_ms", n.journal_commit_interval_ns / kNsPerMs)) * kNsPerMs;
  if (n.checkpoint_interval_ns == 0 || n.journal_commit_interval_ns == 0) {
    throw sim::JsonError(path, "intervals must be positive");
  }
  r.reject_unknown();
  return n;
}

WorkloadSpec workload_from(const nlohmann::json& j, const std::string& path) {
  ObjectReader r(j, path);
  WorkloadSpec w;
  w.writers = r.u64_or("writers", w.writers);
  w.keys = r.u64_or("keys", w.keys);
  w.think_ns = static_cast<sim::Nanos>(r.u64_or("think_us", w.think_ns / sim::kNsPerUs)) * sim::kNsPerUs;
  w.durable_fraction = r.fraction_or("durable_fraction", w.durable_fraction);
  w.delete_fraction = r.fraction_or("delete_fraction", w.delete_fraction);
  w.keys_per_txn_max = r.u64_or("keys_per_txn_max", w.keys_per_txn_max);
  w.value_bytes_min = r.u64_or("value_bytes_min", w.value_bytes_min);
  w.value_bytes_max = r.u64_or("value_bytes_max", w.value_bytes_max);
  if (w.writers < 1 || w.writers > 1000) throw sim::JsonError(r.path_of("writers"), "must be in [1, 1000]");
  if (w.keys < 1) throw sim::JsonError(r.path_of("keys"), "must be at least 1");
  if (w.keys_per_txn_max < 1) throw sim::JsonError(r.path_of("keys_per_txn_max"), "must be at least 1");
  if (w.value_bytes_min > w.value_bytes_max || w.value_bytes_max > (1u << 20)) {
    throw sim::JsonError(r.path_of("value_bytes_max"), "needs value_bytes_min <= value_bytes_max <= 1 MiB");
  }
  r.reject_unknown();
  return w;
}

engine::CostModel cost_from(const nlohmann::json& j, const std::string& path) {
  ObjectReader r(j, path);
  engine::CostModel c;
  c.cpu_cores = static_cast<int>(r.u64_or("cpu_cores", static_cast<uint64_t>(c.cpu_cores)));
  if (c.cpu_cores < 1 || c.cpu_cores > 256) throw sim::JsonError(r.path_of("cpu_cores"), "must be in [1, 256]");
  auto ns = [&](const char* key, sim::Nanos& field) {
    field = static_cast<sim::Nanos>(r.u64_or(key, static_cast<uint64_t>(field)));
  };
  ns("cpu_per_op_ns", c.cpu_per_op_ns);
  ns("cpu_per_byte_ns", c.cpu_per_byte_ns);
  ns("disk_per_byte_ns", c.disk_per_byte_ns);
  ns("disk_sync_ns", c.disk_sync_ns);
  ns("checkpoint_base_ns", c.checkpoint_base_ns);
  ns("restart_ns", c.restart_ns);
  r.reject_unknown();
  return c;
}

}  // namespace

Scenario scenario_from_json(const nlohmann::json& j, const std::string& origin) {
  try {
    ObjectReader r(j, "");
    Scenario s;
    s.source = j;
    s.name = r.string("name");
    s.description = r.string_or("description", "");
    const uint64_t duration_ms = r.u64("duration_ms");
    if (duration_ms == 0 || duration_ms > 7ULL * 24 * 3600 * 1000) {
      throw sim::JsonError("/duration_ms", "must be in (0, 7 days]");
    }
    s.duration_ns = static_cast<sim::Nanos>(duration_ms) * kNsPerMs;
    if (auto* n = r.optional("node")) s.node = node_from(*n, "/node");
    if (auto* w = r.optional("workload")) s.workload = workload_from(*w, "/workload");
    if (auto* c = r.optional("cost_model")) s.cost = cost_from(*c, "/cost_model");
    auto* plan = r.optional("fault_plan");
    auto* swarm = r.optional("swarm");
    if (plan != nullptr && swarm != nullptr) {
      throw sim::JsonError("/fault_plan", "give either fault_plan or swarm, not both");
    }
    if (plan != nullptr) s.fault_plan = faults::plan_from_json(*plan, "/fault_plan");
    if (swarm != nullptr) s.swarm = faults::swarm_from_json(*swarm, "/swarm");
    r.reject_unknown();
    return s;
  } catch (const sim::JsonError& e) {
    throw std::invalid_argument(origin + ": " + e.what());
  }
}

Scenario load_scenario(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::invalid_argument(path + ": cannot open scenario file");
  std::stringstream buf;
  buf << in.rdbuf();
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(buf.str());
  } catch (const nlohmann::json::parse_error& e) {
    throw std::invalid_argument(path + ": not valid JSON: byte " + std::to_string(e.byte) + ": " + e.what());
  }
  return scenario_from_json(j, path);
}

}  // namespace wtsim::world
