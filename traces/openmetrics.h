#pragma once
// Metrics samples in the Prometheus/OpenMetrics text format, under mongodb_exporter's names
// (mongodb_ss_opcounters{legacy_op_type="insert"}, mongodb_ss_wt_cursor_cursor_remove_calls,
// mongodb_collstats_storageStats_count{collection=...}, ...).
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace wtsim::traces {

// One sample's lines (no header) with timestamp `timestamp_s` (Unix seconds: virtual time zero
// is sim::kVirtualEpochSec). `sample` is a trace "sample" event's details.
std::vector<std::string> openmetrics_lines(const nlohmann::json& sample, double timestamp_s);

// A whole trace's samples as one OpenMetrics document (with # TYPE lines and # EOF).
std::string openmetrics_document(const nlohmann::json& trace);

}  // namespace wtsim::traces
