#include "traces/metric_series.h"

#include <array>

namespace wtsim::traces {
namespace {

// A nested object's numeric leaves as (a.b.c, value).
void leaves(const nlohmann::json& j, const std::string& prefix, std::vector<std::pair<std::string, nlohmann::json>>& out) {
  for (const auto& [k, v] : j.items()) {
    const std::string key = prefix.empty() ? k : prefix + "." + k;
    if (v.is_object()) {
      leaves(v, key, out);
    } else if (v.is_number()) {
      out.emplace_back(key, v);
    }
  }
}

// "cursor search near calls" -> "search near"
std::string cursor_series(std::string name) {
  if (name.rfind("cursor ", 0) == 0) name.erase(0, 7);
  const std::string calls = " calls";
  if (name.size() > calls.size() && name.compare(name.size() - calls.size(), calls.size(), calls) == 0) {
    name.erase(name.size() - calls.size());
  }
  return name;
}

const nlohmann::json* find_path(const nlohmann::json& j, std::initializer_list<const char*> path) {
  const nlohmann::json* at = &j;
  for (const char* key : path) {
    if (!at->is_object() || !at->contains(key)) return nullptr;
    at = &(*at)[key];
  }
  return at;
}

void server_status(const nlohmann::json& sample, std::vector<MetricValue>& out) {
  if (const nlohmann::json* ops = find_path(sample, {"serverStatus", "opcounters"})) {
    for (const auto& [op, v] : ops->items()) {
      if (v.is_number()) out.push_back({"opcounters", op, v});
    }
  }
  if (const nlohmann::json* metrics = find_path(sample, {"serverStatus", "metrics"})) {
    for (const auto& [group, v] : metrics->items()) {
      if (v.is_number()) out.push_back({"metrics", group, v});
      if (!v.is_object()) continue;
      std::vector<std::pair<std::string, nlohmann::json>> flat;
      leaves(v, "", flat);
      for (const auto& [name, x] : flat) out.push_back({"metrics." + group, name, x});
    }
  }
  // Cursor statistics: as reported, or under "measured" in traces written before the fiber layer.
  const nlohmann::json* cursor = find_path(sample, {"measured", "wiredTiger", "cursor"});
  if (cursor == nullptr) cursor = find_path(sample, {"serverStatus", "wiredTiger", "cursor"});
  if (cursor != nullptr) {
    for (const auto& [name, v] : cursor->items()) {
      if (v.is_number()) out.push_back({"wiredTiger cursor calls", cursor_series(name), v});
    }
  }
}

void coll_stats(const nlohmann::json& sample, std::vector<MetricValue>& out) {
  const nlohmann::json* reported = find_path(sample, {"collStats"});
  if (reported == nullptr || !reported->is_object()) return;
  for (const auto& [ns, stats] : reported->items()) {
    nlohmann::json all = stats.is_object() ? stats : nlohmann::json::object();
    if (const nlohmann::json* m = find_path(sample, {"measured", "collStats", ns.c_str()}); m && m->is_object()) all.update(*m);
    for (const auto& [field, v] : all.items()) {
      if (field == "ok" || field == "userFlags") continue;  // constants, not quantities
      if (v.is_number()) out.push_back({"collStats." + field, ns, v});
      if (field == "indexSizes" && v.is_object()) {
        for (const auto& [index, size] : v.items()) {
          if (size.is_number()) out.push_back({"collStats.indexSizes", ns + " " + index, size});
        }
      }
    }
  }
}

}  // namespace

std::vector<MetricValue> sample_values(const nlohmann::json& sample) {
  std::vector<MetricValue> out;
  if (!sample.is_object()) return out;
  coll_stats(sample, out);
  server_status(sample, out);
  const nlohmann::json* disk = find_path(sample, {"disk_bytes"});
  if (disk == nullptr) disk = find_path(sample, {"measured", "disk_bytes"});  // traces before the fiber layer
  if (disk != nullptr && disk->is_number()) {
    out.push_back({"disk bytes", "table files", *disk});
  }
  if (const nlohmann::json* q = find_path(sample, {"query_loop", "per_s"}); q != nullptr && q->is_number()) {
    out.push_back({"query_loop.per_s", "find().sort({created_at: 1}).limit(1)", *q});
  }
  if (const nlohmann::json* q = find_path(sample, {"query_loop", "max_us"}); q != nullptr && q->is_number()) {
    out.push_back({"query_loop.max_us", "slowest query (virtual us)", *q});
  }
  return out;
}

bool panel_before(const std::string& a, const std::string& b) {
  static constexpr std::array<const char*, 11> kFirst = {
      "query_loop.per_s", "collStats.count", "opcounters", "wiredTiger cursor calls", "metrics.ttl", "metrics.document",
      "disk bytes", "collStats.storageSize", "collStats.size", "collStats.paddingFactor", "metrics.record"};
  auto rank = [](const std::string& p) {
    for (size_t i = 0; i < kFirst.size(); ++i) {
      if (p == kFirst[i]) return i;
    }
    return kFirst.size();
  };
  const size_t ra = rank(a), rb = rank(b);
  return ra != rb ? ra < rb : a < b;
}

}  // namespace wtsim::traces
