#include "traces/openmetrics.h"

#include <cstdio>
#include <map>
#include <set>

#include "sim/virtual_clock.h"

namespace wtsim::traces {
namespace {

// "cursor remove calls" -> "cursor_remove_calls"
std::string metric_suffix(std::string name) {
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
}

std::string number(const nlohmann::json& v) {
  if (v.is_number_unsigned()) return std::to_string(v.get<uint64_t>());
  if (v.is_number_integer()) return std::to_string(v.get<int64_t>());
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", v.get<double>());
  return buf;
}

std::string line(const std::string& name, const std::string& labels, const nlohmann::json& v, double ts) {
  char t[32];
  std::snprintf(t, sizeof t, "%.3f", ts);
  return name + (labels.empty() ? "" : "{" + labels + "}") + " " + number(v) + " " + t;
}

// A sample's value as a line; anything but a number (a hand-edited trace) is left out.
void add(std::vector<std::string>& out, const std::string& name, const std::string& labels, const nlohmann::json& v,
         double ts) {
  if (v.is_number()) out.push_back(line(name, labels, v, ts));
}

// A label value as OpenMetrics quotes it (backslash, double quote and newline escaped).
std::string label_value(const std::string& s) {
  std::string out;
  for (const char c : s) {
    if (c == '\\' || c == '"') out += '\\';
    out += c == '\n' ? std::string("\\n") : std::string(1, c);
  }
  return out;
}

// The flat scalar leaves of an object, "a.b" -> value.
void leaves(const nlohmann::json& j, const std::string& prefix, std::map<std::string, nlohmann::json>& out) {
  for (const auto& [k, v] : j.items()) {
    const std::string key = prefix.empty() ? k : prefix + "_" + k;
    if (v.is_object()) {
      leaves(v, key, out);
    } else if (v.is_number()) {
      out[key] = v;
    }
  }
}

}  // namespace

std::vector<std::string> openmetrics_lines(const nlohmann::json& sample, double ts) {
  std::vector<std::string> out;
  if (sample.contains("serverStatus")) {
    const nlohmann::json& ss = sample["serverStatus"];
    if (ss.contains("opcounters")) {
      for (const auto& [op, v] : ss["opcounters"].items()) {
        add(out, "mongodb_ss_opcounters", "legacy_op_type=\"" + label_value(op) + "\"", v, ts);
      }
    }
    if (ss.contains("metrics")) {
      std::map<std::string, nlohmann::json> flat;
      leaves(ss["metrics"], "", flat);
      for (const auto& [k, v] : flat) add(out, "mongodb_ss_metrics_" + metric_suffix(k), "", v, ts);
    }
    const nlohmann::json* wt = ss.contains("wiredTiger") ? &ss["wiredTiger"] : nullptr;
    if (sample.contains("measured") && sample["measured"].contains("wiredTiger")) wt = &sample["measured"]["wiredTiger"];
    if (wt != nullptr && wt->contains("cursor")) {
      for (const auto& [name, v] : (*wt)["cursor"].items()) {
        add(out, "mongodb_ss_wt_cursor_" + metric_suffix(name), "", v, ts);
      }
    }
  }
  if (sample.contains("collStats")) {
    for (const auto& [ns, reported] : sample["collStats"].items()) {
      nlohmann::json stats = reported;
      if (sample.contains("measured") && sample["measured"].contains("collStats") && sample["measured"]["collStats"].contains(ns)) {
        const nlohmann::json& measured = sample["measured"]["collStats"][ns];
        if (stats.is_object() && measured.is_object()) stats.update(measured);  // the file sizes kept outside the hash
      }
      const size_t dot = ns.find('.');
      const std::string labels = "database=\"" + label_value(ns.substr(0, dot)) + "\",collection=\"" + label_value(ns.substr(dot + 1)) + "\"";
      for (const char* field : {"count", "size", "avgObjSize", "storageSize", "nindexes", "totalIndexSize"}) {
        if (stats.contains(field)) add(out, std::string("mongodb_collstats_storageStats_") + field, labels, stats[field], ts);
      }
    }
  }
  if (sample.contains("disk_bytes")) add(out, "wtsim_disk_bytes", "", sample["disk_bytes"], ts);
  if (sample.contains("query_loop") && sample["query_loop"].is_object()) {  // the TTL account's query loop
    const nlohmann::json& q = sample["query_loop"];
    for (const char* field : {"per_s", "mean_us", "max_us", "deleted_entries_stepped_max"}) {
      if (q.contains(field)) add(out, std::string("wtsim_query_loop_") + field, "", q[field], ts);
    }
  }
  if (sample.contains("measured") && sample["measured"].contains("disk_bytes")) {  // traces before the fiber layer
    add(out, "wtsim_disk_bytes", "", sample["measured"]["disk_bytes"], ts);
  }
  return out;
}

std::string openmetrics_document(const nlohmann::json& trace) {
  std::map<std::string, std::vector<std::string>> by_metric;  // families must be contiguous
  for (const auto& e : trace.at("events")) {
    if (e.at("kind") != "sample" || !e.contains("details")) continue;
    const double ts = static_cast<double>(sim::kVirtualEpochSec) + static_cast<double>(e.at("t_us").get<int64_t>()) / 1e6;
    for (std::string& l : openmetrics_lines(e.at("details"), ts)) {
      const std::string name = l.substr(0, l.find_first_of("{ "));
      by_metric[name].push_back(std::move(l));
    }
  }
  std::string doc;
  for (const auto& [name, lines] : by_metric) {
    const bool counter = name.find("opcounters") != std::string::npos || name.find("cursor") != std::string::npos;
    doc += "# TYPE " + name + " " + (counter ? "unknown" : "gauge") + "\n";
    for (const std::string& l : lines) doc += l + "\n";
  }
  return doc + "# EOF\n";
}

}  // namespace wtsim::traces
