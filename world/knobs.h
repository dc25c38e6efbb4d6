#pragma once
// Swarm testing of engine and workload knobs: a scenario's "knobs" section declares, per
// scenario field (a dotted path, as for --set), the range a seed draws it from:
//   "knobs": {"node.cache_mb": {"min": 1, "max": 64},
//             "node.lock_policy": {"one_of": ["document", "collection"]}}
// Each seed draws every knob from its "knobs" stream, so different seeds run the engine with
// different cache sizes, checkpoint intervals, batch sizes, lock policies, record stores or TTL
// sleeps. The run's trace header holds the concrete scenario (knobs applied, "knobs_drawn" says
// which values were drawn), so replaying and shrinking never draw again.
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace wtsim::world {

struct Scenario;

struct KnobSpec {
  std::string path;                  // "node.cache_mb"
  nlohmann::json min, max;           // a numeric range (integers if both are), or
  std::vector<nlohmann::json> one_of;  // a list of values
};

constexpr size_t kKnobsMax = 32;
constexpr size_t kKnobChoicesMax = 64;

// Reads the "knobs" object; throws sim::JsonError naming /knobs/<path>.
std::vector<KnobSpec> knobs_from_json(const nlohmann::json& j);
// Every extreme of every knob, applied alone to `source`, as the scenario reader would see it.
std::vector<std::pair<std::string, nlohmann::json>> knob_extremes(const std::vector<KnobSpec>& knobs);
// The scenario this seed runs: its knobs drawn and applied. Unchanged if it has none.
Scenario draw_knobs(const Scenario& s, uint64_t seed);
// The scenario a trace's header recorded (replay, shrink): its knobs were drawn before the run,
// so one with knobs left is refused (std::invalid_argument naming `origin`'s /header/scenario/knobs).
Scenario recorded_scenario(const nlohmann::json& header_scenario, const std::string& origin);

}  // namespace wtsim::world
