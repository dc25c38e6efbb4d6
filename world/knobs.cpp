#include "world/knobs.h"

#include <cassert>

#include "sim/json_reader.h"
#include "sim/random.h"
#include "world/replica_set_swarm.h"
#include "world/scenario.h"

namespace wtsim::world {
namespace {

KnobSpec knob_from(const std::string& path, const nlohmann::json& j) {
  const std::string where = "/knobs/" + path;
  if (!j.is_object()) throw sim::JsonError(where, "expected {\"min\": A, \"max\": B} or {\"one_of\": [...]}, found " + j.dump());
  KnobSpec k{path, nullptr, nullptr, {}};
  if (j.contains("one_of")) {
    const nlohmann::json& list = j["one_of"];
    if (!list.is_array() || list.empty() || list.size() > kKnobChoicesMax || j.size() != 1) {
      throw sim::JsonError(where + "/one_of", "expected a list of 1 to " + std::to_string(kKnobChoicesMax) + " values (and nothing else)");
    }
    k.one_of.assign(list.begin(), list.end());
    return k;
  }
  if (j.size() != 2 || !j.contains("min") || !j.contains("max") || !j["min"].is_number() || !j["max"].is_number()) {
    throw sim::JsonError(where, "expected {\"min\": A, \"max\": B} with numbers, or {\"one_of\": [...]}");
  }
  k.min = j["min"];
  k.max = j["max"];
  if (k.min.get<double>() > k.max.get<double>()) throw sim::JsonError(where, "min is above max");
  return k;
}

bool integral(const KnobSpec& k) { return k.min.is_number_integer() && k.max.is_number_integer(); }

nlohmann::json draw(const KnobSpec& k, sim::Rng& rng) {
  if (!k.one_of.empty()) return k.one_of[rng.below(k.one_of.size())];
  if (integral(k)) return rng.between(k.min.get<int64_t>(), k.max.get<int64_t>());
  const double lo = k.min.get<double>(), hi = k.max.get<double>();
  return lo + (hi - lo) * rng.unit();
}

}  // namespace

std::vector<KnobSpec> knobs_from_json(const nlohmann::json& j) {
  if (!j.is_object()) throw sim::JsonError("/knobs", "expected an object of field paths");
  if (j.size() > kKnobsMax) throw sim::JsonError("/knobs", "at most " + std::to_string(kKnobsMax) + " knobs");
  std::vector<KnobSpec> knobs;
  for (const auto& [path, spec] : j.items()) {  // nlohmann::json objects iterate in key order
    if (path.empty() || path.rfind("knobs", 0) == 0 || path == "name") throw sim::JsonError("/knobs/" + path, "not a field a knob may set");
    knobs.push_back(knob_from(path, spec));
  }
  return knobs;
}

std::vector<std::pair<std::string, nlohmann::json>> knob_extremes(const std::vector<KnobSpec>& knobs) {
  std::vector<std::pair<std::string, nlohmann::json>> out;
  for (const KnobSpec& k : knobs) {
    if (k.one_of.empty()) {
      out.emplace_back(k.path, k.min);
      out.emplace_back(k.path, k.max);
    }
    for (const auto& v : k.one_of) out.emplace_back(k.path, v);
  }
  return out;
}

Scenario recorded_scenario(const nlohmann::json& header_scenario, const std::string& origin) {
  Scenario s = scenario_from_json(header_scenario, origin + " (header)");
  if (!s.knobs.empty()) {
    throw std::invalid_argument(origin + ": /header/scenario/knobs: a recorded scenario has its knobs drawn (knobs_drawn); this one has knobs left");
  }
  if (s.replica_set.swarm) {
    throw std::invalid_argument(origin + ": /header/scenario/replica_set/swarm: a recorded scenario has its replica set's faults drawn; this one has a swarm left");
  }
  return s;
}

Scenario draw_knobs(const Scenario& s, uint64_t seed) {
  if (s.knobs.empty() && !s.replica_set.swarm) return s;
  sim::Rng rng = sim::stream(seed, "knobs");
  nlohmann::json j = s.source;
  j.erase("knobs");
  nlohmann::json drawn = nlohmann::json::object();
  for (const KnobSpec& k : s.knobs) {
    drawn[k.path] = draw(k, rng);
    set_field(j, k.path, drawn[k.path], "knobs");
  }
  draw_replica_set_swarm(s, seed, &j, &drawn);
  j["knobs_drawn"] = drawn;
  Scenario out = scenario_from_json(j, s.name + " (knobs drawn for seed " + std::to_string(seed) + ")");
  assert(out.knobs.empty() && !out.replica_set.swarm);
  return out;
}

}  // namespace wtsim::world
