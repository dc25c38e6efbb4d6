#include "traces/report_data.h"

#include <algorithm>
#include <optional>

#include "traces/phases.h"
#include "traces/report_parts.h"

namespace wtsim::traces {
namespace {

nlohmann::json facts(const nlohmann::json& trace) {
  const nlohmann::json& h = trace.at("header");
  const nlohmann::json& scenario = h.at("scenario");
  return {{"scenario", scenario.value("name", std::string())},
          {"description", scenario.value("description", std::string())},
          {"seed", h.at("seed")},
          {"tool", h.value("tool", std::string())},
          {"tool_version", h.value("tool_version", std::string())},
          {"wiredtiger_version", h.value("wiredtiger_version", std::string())},
          {"trace_hash", trace.value("trace_hash", std::string())},
          {"format", trace.value("format", std::string())},
          {"version", trace.value("version", 0)},
          {"events", trace.at("events").size()},
          {"dropped_events", trace.value("dropped_events", 0)},
          {"end_us", trace_end_us(trace)}};
}

// The kept position of event index i (events ascend by i; dropped ones were never kept).
std::optional<size_t> position_of(const nlohmann::json& events, uint64_t i) {
  auto it = std::lower_bound(events.begin(), events.end(), i,
                             [](const nlohmann::json& e, uint64_t x) { return e["i"].get<uint64_t>() < x; });
  if (it == events.end() || (*it)["i"].get<uint64_t>() != i) return std::nullopt;
  return static_cast<size_t>(it - events.begin());
}

nlohmann::json row(const nlohmann::json& e, size_t chars) {
  return {{"i", e["i"]}, {"t_us", e["t_us"]}, {"actor", e["actor"]}, {"kind", e["kind"]},
          {"details", e.contains("details") ? short_json(e["details"], chars) : ""}};
}

// Each violation with the events around it.
nlohmann::json contexts(const nlohmann::json& trace, const ReportLimits& limits) {
  nlohmann::json out = nlohmann::json::array();
  const nlohmann::json& events = trace.at("events");
  for (const auto& v : trace.at("verdict").value("violations", nlohmann::json::array())) {
    if (out.size() >= limits.violations_in_context) break;
    nlohmann::json c = {{"violation", v}, {"events", nlohmann::json::array()}};
    const auto at = v.contains("event") && v["event"].is_number_integer() && v["event"].get<int64_t>() >= 0 ? position_of(events, v["event"].get<uint64_t>()) : std::nullopt;
    c["found"] = at.has_value();
    if (at) {
      const size_t from = *at - std::min(*at, limits.context_events);
      const size_t to = std::min(events.size(), *at + limits.context_events + 1);
      for (size_t k = from; k < to; ++k) c["events"].push_back(row(events[k], 2 * limits.title_chars));
      c["at"] = *at - from;
    }
    out.push_back(std::move(c));
  }
  return out;
}

nlohmann::json verdict(const nlohmann::json& trace, const ReportLimits& limits) {
  nlohmann::json v = trace.at("verdict");
  nlohmann::json& list = v["violations"];
  if (!list.is_array()) list = nlohmann::json::array();
  v["violations_total"] = list.size();
  if (list.size() > limits.violations_listed) list.erase(list.begin() + static_cast<std::ptrdiff_t>(limits.violations_listed), list.end());
  return v;
}

}  // namespace

std::string short_json(const nlohmann::json& j, size_t max_chars) {
  std::string s = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  if (s.size() > max_chars) {
    s.resize(max_chars);
    while (!s.empty() && (static_cast<unsigned char>(s.back()) & 0xC0) == 0x80) s.pop_back();  // whole UTF-8 characters
    if (!s.empty() && static_cast<unsigned char>(s.back()) >= 0xC0) s.pop_back();
    s += "...";
  }
  return s;
}

std::string lane_of(const std::string& actor) {
  const size_t dot = actor.rfind(".g");
  if (dot == std::string::npos || dot + 2 >= actor.size()) return actor;
  for (size_t k = dot + 2; k < actor.size(); ++k) {
    if (actor[k] < '0' || actor[k] > '9') return actor;
  }
  return actor.substr(0, dot);
}

nlohmann::json report_data(const nlohmann::json& trace, const ReportLimits& limits) {
  const nlohmann::json& h = trace.at("header");
  nlohmann::json limits_json = {{"context_events", limits.context_events}, {"points_per_chart", limits.points_per_chart},
                                {"timeline_items", limits.timeline_items}, {"commit_buckets", limits.commit_buckets}};
  return {{"facts", facts(trace)},
          {"fault_plan", h.value("fault_plan", nlohmann::json::array())},
          {"cost_model", h.value("cost_model", nlohmann::json::object())},
          {"verdict", verdict(trace, limits)},
          {"contexts", contexts(trace, limits)},
          {"timeline", report_timeline(trace, limits)},
          {"charts", report_charts(trace, limits)},
          {"limits", std::move(limits_json)}};
}

}  // namespace wtsim::traces
