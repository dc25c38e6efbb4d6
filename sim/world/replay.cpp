#include "sim/world/replay.h"

#include "faults/fault_plan.h"

namespace wtsim::world {
namespace {

nlohmann::json witness(nlohmann::json e) {
  if (e.contains("details") && e["details"].is_object()) e["details"].erase("measured");
  return e;
}

}  // namespace

ReplayResult replay(const nlohmann::json& trace, const std::string& origin) {
  const nlohmann::json& header = trace.at("header");
  const Scenario scenario = scenario_from_json(header.at("scenario"), origin + " (header)");
  const faults::FaultPlan plan = faults::plan_from_json(header.at("fault_plan"), "/header/fault_plan");
  ReplayResult result;
  result.run = run_scenario(scenario, header.at("seed").get<uint64_t>(), &plan);
  const auto& expected = trace.at("events");
  const auto& got = result.run.trace->events();
  for (size_t i = 0; i < std::max(expected.size(), got.size()); ++i) {
    const nlohmann::json want = i < expected.size() ? witness(expected[i]) : nlohmann::json();
    const nlohmann::json have = i < got.size() ? witness(got[i]) : nlohmann::json();
    if (want != have) {
      result.divergence = Divergence{i, want, have};
      break;
    }
  }
  return result;
}

}  // namespace wtsim::world
