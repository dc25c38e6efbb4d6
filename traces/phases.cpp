#include "traces/phases.h"

#include <algorithm>
#include <map>
#include <optional>

namespace wtsim::traces {
namespace {

// A non-negative integer field, or 0. (Integers built in memory may be signed; parsed ones unsigned.)
uint64_t u64_at(const nlohmann::json& details, const char* key) {
  if (!details.is_object() || !details.contains(key) || !details[key].is_number_integer()) return 0;
  const int64_t v = details[key].get<int64_t>();
  return v > 0 ? static_cast<uint64_t>(v) : 0;
}

// Events emitted when an operation ends, with how long it took.
std::optional<uint64_t> took_us(const std::string& kind, const nlohmann::json& details) {
  if (kind == "query" || kind == "ttl_pass") return u64_at(details, "took_us");
  if (kind == "delete_job" || kind == "index_built") return u64_at(details, "took_ms") * 1000;
  return std::nullopt;
}

class PhaseBuilder {
 public:
  explicit PhaseBuilder(uint64_t end_us) : end_us_(end_us) {}

  void add(const nlohmann::json& e) {
    const std::string& kind = e["kind"].get_ref<const std::string&>();
    const std::string& actor = e["actor"].get_ref<const std::string&>();
    const uint64_t t = e["t_us"].get<uint64_t>();
    const uint64_t i = e["i"].get<uint64_t>();
    const nlohmann::json& d = e.contains("details") ? e["details"] : empty_;
    if (auto took = took_us(kind, d)) {
      out_.push_back({actor, kind, t - std::min(*took, t), t, i, false, d});
    } else if (kind == "crash") {
      close_backups(t, "crash");
      if (!down_) down_ = Phase{"node", "node down", t, t, i, false, {{"cause", d.value("cause", "")}, {"mode", d.value("mode", "")}}};
    } else if (kind == "started" && down_) {
      close(*down_, t);
      down_.reset();
    } else if (kind == "backup_start") {
      backups_[actor] = Phase{actor, "backup", t, t, i, false, {{"mode", d.value("mode", "")}}};
    } else if ((kind == "backup_done" || kind == "backup_failed") && backups_.count(actor)) {
      Phase p = backups_[actor];
      p.args["outcome"] = kind;
      close(p, t);
      backups_.erase(actor);
    } else if (kind == "fired" && d.contains("phase")) {
      window(d, t, i);
    }
  }

  std::vector<Phase> finish() {
    if (down_) close(*down_, end_us_, true);
    close_backups(end_us_, "end of run");
    for (auto& [index, p] : windows_) close(p, end_us_, true);
    std::stable_sort(out_.begin(), out_.end(), [](const Phase& a, const Phase& b) {
      return a.start_us != b.start_us ? a.start_us < b.start_us : a.event < b.event;
    });
    return std::move(out_);
  }

 private:
  void close(Phase p, uint64_t t, bool unfinished = false) {
    p.end_us = std::max(p.start_us, t);
    if (unfinished) p.args["unfinished"] = true;
    out_.push_back(std::move(p));
  }

  void close_backups(uint64_t t, const char* why) {
    for (auto& [actor, p] : backups_) {
      p.args["outcome"] = why;
      close(p, t, true);
    }
    backups_.clear();
  }

  // A disk-full or latency window: "phase" start, then end, per plan index.
  void window(const nlohmann::json& d, uint64_t t, uint64_t i) {
    const uint64_t index = u64_at(d, "plan_index");
    if (d["phase"] == "start") {
      const std::string name = d.value("kind", "fault") + " window #" + std::to_string(index);
      windows_[index] = Phase{"faults", name, t, t, i, true, {{"plan_index", index}}};
    } else if (windows_.count(index)) {
      close(windows_[index], t);
      windows_.erase(index);
    }
  }

  const uint64_t end_us_;
  const nlohmann::json empty_ = nlohmann::json::object();
  std::vector<Phase> out_;
  std::optional<Phase> down_;
  std::map<std::string, Phase> backups_;  // by actor
  std::map<uint64_t, Phase> windows_;     // by plan index
};

}  // namespace

uint64_t trace_end_us(const nlohmann::json& trace) {
  uint64_t end = 0;
  const nlohmann::json& events = trace.at("events");
  if (!events.empty()) end = events.back().at("t_us").get<uint64_t>();
  if (trace.contains("verdict") && trace["verdict"].contains("stats")) {
    end = std::max(end, u64_at(trace["verdict"]["stats"], "virtual_ms") * 1000);
  }
  return end;
}

std::vector<Phase> derive_phases(const nlohmann::json& trace) {
  PhaseBuilder b(trace_end_us(trace));
  for (const auto& e : trace.at("events")) b.add(e);
  return b.finish();
}

}  // namespace wtsim::traces
