#include "traces/perfetto.h"

#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/json_reader.h"

#include "traces/metric_series.h"
#include "traces/phases.h"

namespace wtsim::traces {
namespace {

constexpr int kPid = 1;

std::string dump(const nlohmann::json& j) { return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace); }

const char* category(const std::string& kind) {
  if (kind == "crash" || kind == "fired") return "fault";
  if (kind == "started" || kind == "open_failed" || kind == "checkpoint" || kind == "wt_error") return "node";
  if (kind == "recovery_check" || kind == "final_check" || kind == "violation" || kind == "restore_checked") return "check";
  if (kind == "commit") return "commit";
  if (kind == "message") return "wiredtiger";
  if (kind.rfind("ttl", 0) == 0 || kind == "delete_job" || kind == "index_built" || kind == "query") return "ttl";
  if (kind.find("backup") != std::string::npos || kind.rfind("sentinel", 0) == 0 || kind == "table_released") return "backup";
  return "event";
}

class Writer {
 public:
  explicit Writer(std::ostream& out) : out_(out) { out_ << "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n"; }

  void emit(const nlohmann::json& e) {
    out_ << (count_ == 0 ? "" : ",\n") << dump(e);
    ++count_;
  }

  size_t finish(const nlohmann::json& other) {
    out_ << "\n],\"otherData\":" << dump(other) << "}\n";
    return count_;
  }

  // The actor's track id, announcing a new track with its name and sort order.
  int tid(const std::string& actor) {
    auto [it, inserted] = tids_.emplace(actor, static_cast<int>(tids_.size()) + 1);
    if (inserted) {
      emit({{"name", "thread_name"}, {"ph", "M"}, {"ts", 0}, {"pid", kPid}, {"tid", it->second}, {"args", {{"name", actor}}}});
      emit({{"name", "thread_sort_index"}, {"ph", "M"}, {"ts", 0}, {"pid", kPid}, {"tid", it->second}, {"args", {{"sort_index", it->second}}}});
    }
    return it->second;
  }

 private:
  std::ostream& out_;
  size_t count_ = 0;
  std::map<std::string, int> tids_;
};

void instant(Writer& w, const nlohmann::json& e) {
  const std::string& kind = e["kind"].get_ref<const std::string&>();
  nlohmann::json args = e.contains("details") ? e["details"] : nlohmann::json::object();
  args["i"] = e["i"];
  // A violation concerns the whole run: drawn across every track.
  w.emit({{"name", kind}, {"cat", category(kind)}, {"ph", "i"}, {"s", kind == "violation" ? "g" : "t"},
          {"ts", e["t_us"]}, {"pid", kPid}, {"tid", w.tid(e["actor"].get<std::string>())}, {"args", std::move(args)}});
}

void counters(Writer& w, const nlohmann::json& e) {
  std::map<std::string, nlohmann::json> panels;  // one "C" event per panel, its series as args
  for (const MetricValue& v : sample_values(e.contains("details") ? e["details"] : nlohmann::json::object())) {
    panels[v.panel][v.series] = v.value;
  }
  const int tid = w.tid(e["actor"].get<std::string>());
  for (auto& [panel, series] : panels) {
    w.emit({{"name", panel}, {"cat", "metrics"}, {"ph", "C"}, {"ts", e["t_us"]}, {"pid", kPid}, {"tid", tid}, {"args", std::move(series)}});
  }
}

void span(Writer& w, const Phase& p) {
  const std::string track = p.overlaps ? p.actor + ": " + p.name : p.actor;
  nlohmann::json args = p.args;
  args["event"] = p.event;
  w.emit({{"name", p.name}, {"cat", "phase"}, {"ph", "X"}, {"ts", p.start_us}, {"dur", p.end_us - p.start_us},
          {"pid", kPid}, {"tid", w.tid(track)}, {"args", std::move(args)}});
}

size_t write_events(const nlohmann::json& trace, std::ostream& out) {
  const nlohmann::json& header = trace.at("header");
  Writer w(out);
  const std::string name = header.at("scenario").value("name", std::string("run"));
  w.emit({{"name", "process_name"}, {"ph", "M"}, {"ts", 0}, {"pid", kPid}, {"tid", 0},
          {"args", {{"name", "wtsim " + name + " seed " + dump(header.at("seed"))}}}});

  // Merge by time: phases (sorted by start) before the events at or after their start.
  const std::vector<Phase> phases = derive_phases(trace);
  size_t next_phase = 0;
  for (const auto& e : trace.at("events")) {
    const uint64_t t = e["t_us"].get<uint64_t>();
    while (next_phase < phases.size() && phases[next_phase].start_us <= t) span(w, phases[next_phase++]);
    if (e["kind"] == "sample") {
      counters(w, e);
    } else {
      instant(w, e);
    }
  }
  while (next_phase < phases.size()) span(w, phases[next_phase++]);

  const nlohmann::json& verdict = trace.at("verdict");
  return w.finish({{"scenario", name}, {"seed", header.at("seed")}, {"tool_version", header.value("tool_version", "")},
                   {"ok", verdict.value("ok", false)}, {"trace_hash", trace.value("trace_hash", "")},
                   {"time_unit", "microseconds of virtual time"}});
}

}  // namespace

size_t write_perfetto(const nlohmann::json& trace, std::ostream& out) {
  try {
    return write_events(trace, out);
  } catch (const nlohmann::json::exception& e) {  // a hand-edited trace: a field of another type
    throw std::invalid_argument(std::string("cannot export this trace (a field missing or of another type): ") + sim::plain_json_error(e));
  }
}

}  // namespace wtsim::traces
