#pragma once
// The HTML report: one self-contained page (inline CSS and JS, no network, no libraries) showing
// a trace's verdict, the violations in context, a timeline, the metric charts and the header
// facts. The page is traces/report_template.html, compiled in; the data (traces/report_data.h)
// is embedded as JSON in a <script type="application/json"> block.
#include <nlohmann/json.hpp>

#include <string>

#include "traces/report_data.h"

namespace wtsim::traces {

// The page for a validated trace.
std::string report_html(const nlohmann::json& trace, const ReportLimits& limits = {});

// JSON safe inside a <script> element: every '<' is written as \u003c (inside JSON strings, the
// only place it can occur), so neither "</script>" nor "<!--" can end or confuse the block.
// Invalid UTF-8 (a WiredTiger message, say) is replaced, not thrown on.
std::string script_safe_json(const nlohmann::json& data);

// The compiled-in page template (generated from traces/report_template.html at build time).
extern const char* const kReportTemplate;

}  // namespace wtsim::traces
