#include <algorithm>
#include <map>
#include <vector>

#include "traces/metric_series.h"
#include "traces/report_parts.h"

namespace wtsim::traces {
namespace {

// One panel's samples: times, and per series one value per time (null where it was absent).
struct Panel {
  std::vector<uint64_t> t_us;
  std::map<std::string, std::vector<nlohmann::json>> series;
};

std::map<std::string, Panel> collect(const nlohmann::json& events) {
  std::map<std::string, Panel> panels;
  for (const auto& e : events) {
    if (e["kind"] != "sample" || !e.contains("details")) continue;
    const uint64_t t = e["t_us"].get<uint64_t>();
    for (const MetricValue& v : sample_values(e["details"])) {
      Panel& p = panels[v.panel];
      if (p.t_us.empty() || p.t_us.back() != t) p.t_us.push_back(t);
      std::vector<nlohmann::json>& values = p.series[v.series];
      values.resize(p.t_us.size() - 1);  // null where this series was absent
      values.push_back(v.value);
    }
  }
  for (auto& [name, p] : panels) {
    for (auto& [s, values] : p.series) values.resize(p.t_us.size());
  }
  return panels;
}

// Indexes 0, k, 2k, ... and the last: at most `points` of n.
std::vector<size_t> pick(size_t n, size_t points) {
  std::vector<size_t> out;
  if (n == 0) return out;
  points = std::max<size_t>(points, 2);
  const size_t stride = n <= points ? 1 : (n - 1 + points - 2) / (points - 1);
  for (size_t k = 0; k < n - 1; k += stride) out.push_back(k);
  out.push_back(n - 1);
  return out;
}

}  // namespace

nlohmann::json report_charts(const nlohmann::json& trace, const ReportLimits& limits) {
  std::map<std::string, Panel> panels = collect(trace.at("events"));
  std::vector<std::string> order;
  size_t lines = 0;
  for (const auto& [name, p] : panels) {
    order.push_back(name);
    lines += std::min(p.series.size(), limits.series_per_panel) + 1;  // + the time axis
  }
  std::sort(order.begin(), order.end(), panel_before);
  if (order.size() > limits.panels) order.resize(limits.panels);
  const size_t points = std::min(limits.points_per_chart, limits.chart_points_total / std::max<size_t>(lines, 1));

  nlohmann::json charts = nlohmann::json::array();
  for (const std::string& name : order) {
    const Panel& p = panels[name];
    const std::vector<size_t> kept = pick(p.t_us.size(), points);
    nlohmann::json t = nlohmann::json::array(), series = nlohmann::json::array();
    for (size_t k : kept) t.push_back(p.t_us[k]);
    for (const auto& [s, values] : p.series) {
      if (series.size() >= limits.series_per_panel) break;
      nlohmann::json v = nlohmann::json::array();
      for (size_t k : kept) v.push_back(values[k]);
      series.push_back({{"name", s}, {"v", std::move(v)}});
    }
    charts.push_back({{"panel", name}, {"t_us", std::move(t)}, {"series", std::move(series)},
                      {"samples", p.t_us.size()}, {"series_total", p.series.size()}});
  }
  return charts;
}

}  // namespace wtsim::traces
