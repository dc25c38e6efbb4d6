#include <algorithm>
#include <map>
#include <vector>

#include "traces/phases.h"
#include "traces/report_parts.h"

namespace wtsim::traces {
namespace {

// Lanes in order of first appearance; the index is what items refer to.
class Lanes {
 public:
  size_t of(const std::string& actor) {
    const std::string lane = lane_of(actor);
    auto [it, inserted] = index_.emplace(lane, names_.size());
    if (inserted) names_.push_back(lane);
    return it->second;
  }
  const std::vector<std::string>& names() const { return names_; }

 private:
  std::map<std::string, size_t> index_;
  std::vector<std::string> names_;
};

bool on_timeline(const std::string& kind) {
  return kind != "commit" && kind != "complete" && kind != "flush_start" && kind != "flush_end" && kind != "sample";
}

std::string title(const nlohmann::json& e, size_t chars) {
  std::string t = e["kind"].get<std::string>() + " (" + e["actor"].get<std::string>() + ", event " + e["i"].dump() + ")";
  if (e.contains("details")) t += ": " + short_json(e["details"], chars);
  return t;
}

// Every k-th event of each kind, so that no kind crowds out the others.
std::map<std::string, size_t> strides(const nlohmann::json& events, const ReportLimits& limits) {
  std::map<std::string, size_t> count;
  for (const auto& e : events) {
    if (on_timeline(e["kind"].get_ref<const std::string&>())) ++count[e["kind"].get<std::string>()];
  }
  const size_t per_kind = std::max<size_t>(1, std::min(limits.timeline_items_per_kind, limits.timeline_items / std::max<size_t>(1, count.size())));
  std::map<std::string, size_t> stride;
  for (const auto& [kind, n] : count) stride[kind] = (n + per_kind - 1) / per_kind;
  return stride;
}

}  // namespace

nlohmann::json report_timeline(const nlohmann::json& trace, const ReportLimits& limits) {
  const nlohmann::json& events = trace.at("events");
  const uint64_t end_us = std::max<uint64_t>(trace_end_us(trace), 1);
  const size_t buckets = std::max<size_t>(limits.commit_buckets, 1);
  const uint64_t bucket_us = (end_us + buckets - 1) / buckets;

  Lanes lanes;
  nlohmann::json items = nlohmann::json::array();
  std::map<size_t, std::vector<uint64_t>> commits;  // lane -> count per bucket
  std::map<std::string, size_t> stride = strides(events, limits), seen;
  size_t items_total = 0;
  for (const auto& e : events) {
    const std::string& kind = e["kind"].get_ref<const std::string&>();
    const uint64_t t = e["t_us"].get<uint64_t>();
    if (kind == "commit") {
      auto& counts = commits[lanes.of(e["actor"].get<std::string>())];
      counts.resize(buckets, 0);
      ++counts[std::min<size_t>(t / bucket_us, buckets - 1)];
    }
    if (!on_timeline(kind)) continue;
    ++items_total;
    if (seen[kind]++ % stride[kind] != 0) continue;
    items.push_back({lanes.of(e["actor"].get<std::string>()), t, kind, title(e, limits.title_chars)});
  }

  nlohmann::json spans = nlohmann::json::array();
  const std::vector<Phase> phases = derive_phases(trace);
  const size_t span_stride = (phases.size() + limits.timeline_spans - 1) / std::max<size_t>(limits.timeline_spans, 1);
  for (size_t k = 0; k < phases.size(); k += std::max<size_t>(span_stride, 1)) {
    const Phase& p = phases[k];
    const std::string text = p.name + " " + std::to_string(p.start_us / 1000) + "-" + std::to_string(p.end_us / 1000) +
                             " ms (" + p.actor + ", event " + std::to_string(p.event) + "): " + short_json(p.args, limits.title_chars);
    spans.push_back({lanes.of(p.actor), p.start_us, p.end_us, p.name, text});
  }

  nlohmann::json commit_json = nlohmann::json::object();
  for (const auto& [lane, counts] : commits) commit_json[std::to_string(lane)] = counts;
  return {{"end_us", end_us},
          {"lanes", lanes.names()},
          {"items", std::move(items)},
          {"items_total", items_total},
          {"spans", std::move(spans)},
          {"spans_total", phases.size()},
          {"bucket_us", bucket_us},
          {"commits", std::move(commit_json)}};
}

}  // namespace wtsim::traces
