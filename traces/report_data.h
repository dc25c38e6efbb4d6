#pragma once
// What the HTML report page shows, extracted from a trace into one bounded JSON object: header
// facts, the verdict, each violation's neighbouring events, a timeline (phases, the non-commit
// events, commit counts per time bucket) and the metric time series, downsampled. The limits keep
// the page small whatever the trace's size (hundreds of thousands of events for the TTL account).
#include <nlohmann/json.hpp>

#include <cstddef>

namespace wtsim::traces {

struct ReportLimits {
  size_t context_events = 15;        // shown before and after each violation event
  size_t violations_in_context = 10;  // violations shown with their context
  size_t violations_listed = 100;
  size_t points_per_chart = 2000;     // per series
  size_t chart_points_total = 250'000;  // over all charts; fewer points per chart beyond it
  size_t panels = 60;
  size_t series_per_panel = 16;
  size_t timeline_items = 8000;       // non-commit events on the timeline
  size_t timeline_items_per_kind = 1500;
  size_t timeline_spans = 4000;
  size_t commit_buckets = 400;
  size_t title_chars = 240;           // hover text per item
};

// The page's data for a validated trace (traces/trace_reader.h).
nlohmann::json report_data(const nlohmann::json& trace, const ReportLimits& limits = {});

}  // namespace wtsim::traces
