#pragma once
// The report page's data, part by part (assembled by report_data()).
#include <nlohmann/json.hpp>

#include <string>

#include "traces/report_data.h"

namespace wtsim::traces {

// Swimlanes per actor (generation suffix ".gN" dropped), phases as spans, non-commit events as
// marks, commit counts per time bucket.
nlohmann::json report_timeline(const nlohmann::json& trace, const ReportLimits& limits);
// One chart per metrics panel, its series downsampled to the same sample times.
nlohmann::json report_charts(const nlohmann::json& trace, const ReportLimits& limits);

// Helpers shared by the parts.
std::string short_json(const nlohmann::json& j, size_t max_chars);  // compact, cut with "..."
std::string lane_of(const std::string& actor);                       // "writer-0.g2" -> "writer-0"

}  // namespace wtsim::traces
