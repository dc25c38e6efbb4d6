#pragma once
// A property violation, and the catalogue of property names a verdict can carry.
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "sim/virtual_clock.h"

namespace wtsim::properties {

struct Violation {
  std::string property;  // a name from catalogue()
  sim::Nanos at_ns = 0;
  std::string detail;
  uint64_t event_index = 0;  // the trace event that reported it
};

struct PropertyInfo {
  const char* name;
  const char* checks;
};

// Every property the tool can report, for docs, `wtsim properties` and the trace schema.
const std::vector<PropertyInfo>& catalogue();
bool is_known_property(const std::string& name);

nlohmann::json to_json(const Violation& v);

}  // namespace wtsim::properties
