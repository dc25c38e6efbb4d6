#include "sim/world/replay.h"

#include "faults/fault_plan.h"
#include "sim/json_reader.h"
#include "traces/trace_reader.h"
#include "traces/trace_stream.h"

namespace wtsim::world {
namespace {

nlohmann::json witness(nlohmann::json e) {
  if (e.contains("details") && e["details"].is_object()) e["details"].erase("measured");
  return e;
}

// The run's plan as recorded; its problems name the trace file.
faults::FaultPlan recorded_plan(const nlohmann::json& header, const std::string& origin) {
  try {
    return faults::plan_from_json(header.at("fault_plan"), "/header/fault_plan");
  } catch (const sim::JsonError& e) {
    throw std::invalid_argument(origin + ": " + e.what());
  }
}

}  // namespace

ReplayResult replay(const nlohmann::json& trace, const std::string& origin) {
  const nlohmann::json& header = trace.at("header");
  enable_planted_bug_of(header, origin);
  const Scenario scenario = scenario_from_json(header.at("scenario"), origin + " (header)");
  const faults::FaultPlan plan = recorded_plan(header, origin);
  ReplayResult result;
  result.run = run_scenario(scenario, header.at("seed").get<uint64_t>(), &plan);
  const auto& expected = trace.at("events");
  const auto& got = result.run.trace->events();
  for (size_t i = 0; i < std::max(expected.size(), got.size()); ++i) {
    const nlohmann::json want = i < expected.size() ? witness(expected[i]) : nlohmann::json();
    const nlohmann::json have = i < got.size() ? witness(got[i]) : nlohmann::json();
    if (want != have) {
      result.divergence = Divergence{i, want, have};
      break;
    }
  }
  return result;
}

namespace {

// Compares each event of the re-run with the next recorded one as it is produced. Runs inside the
// simulation, so a reading problem is kept (not thrown) and reported after the run.
class StreamComparer : public traces::EventSink {
 public:
  explicit StreamComparer(traces::JsonlTraceReader& recorded) : recorded_(recorded) {}
  void header(const nlohmann::json&) override {}
  void event(const nlohmann::json& e) override {
    const uint64_t index = produced_++;
    if (divergence_ || !error_.empty()) return;
    nlohmann::json want;
    try {
      if (!recorded_.next(&want)) want = nullptr;
    } catch (const std::exception& ex) {
      error_ = ex.what();
      return;
    }
    const nlohmann::json have = witness(e);
    if (!want.is_null()) want = witness(want);
    if (want != have) divergence_ = Divergence{index, want, have};
  }
  // After the run: a recorded event past the re-run's end diverges; reads to the end record.
  std::optional<Divergence> finish() {
    if (!error_.empty()) throw std::invalid_argument(error_);
    nlohmann::json want;
    if (!divergence_ && recorded_.next(&want)) divergence_ = Divergence{produced_, witness(want), nullptr};
    while (recorded_.next(&want)) {
    }
    return divergence_;
  }

 private:
  traces::JsonlTraceReader& recorded_;
  uint64_t produced_ = 0;
  std::optional<Divergence> divergence_;
  std::string error_;
};

}  // namespace

ReplayResult replay_file(const std::string& path) {
  if (!traces::is_jsonl_trace(path)) return replay(traces::read_trace(path).doc, path);
  traces::JsonlTraceReader recorded(path);
  const nlohmann::json& header = recorded.header();
  enable_planted_bug_of(header, path);
  const Scenario scenario = scenario_from_json(header.at("scenario"), path + " (header)");
  const faults::FaultPlan plan = recorded_plan(header, path);
  StreamComparer comparer(recorded);
  ReplayResult result;
  result.run = run_scenario(scenario, header.at("seed").get<uint64_t>(), &plan, nullptr, &comparer);
  result.divergence = comparer.finish();
  return result;
}

}  // namespace wtsim::world
