#pragma once
// The numbers a metrics "sample" event holds, grouped into panels: one chart in the HTML report,
// one counter track in the Perfetto export. A panel is one kind of quantity (opcounters, cursor
// calls, collection counts, ...); its series are the lines drawn in it (insert, update, ...; or one
// per collection).
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace wtsim::traces {

struct MetricValue {
  std::string panel;   // "opcounters", "collStats.count", "wiredTiger cursor calls", ...
  std::string series;  // "insert", "test.demo", ...
  nlohmann::json value;  // a number, integer or not as the sample holds it
};

// Every numeric value of one sample's details, measured values included (the report and the
// exports show them; only the hash leaves them out). Deterministic order.
std::vector<MetricValue> sample_values(const nlohmann::json& sample);

// Panels in display order: the headline quantities first, the rest by name.
bool panel_before(const std::string& a, const std::string& b);

}  // namespace wtsim::traces
