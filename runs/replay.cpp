#include "runs/replay.h"

#include "faults/fault_plan.h"
#include "sim/json_reader.h"
#include "traces/trace_reader.h"
#include "traces/trace_stream.h"

namespace wtsim::runs {
namespace {

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
  world::enable_planted_bug_of(header, origin);
  const world::Scenario scenario = world::recorded_scenario(header.at("scenario"), origin);
  const faults::FaultPlan plan = recorded_plan(header, origin);
  ReplayResult result;
  result.run = world::run_scenario(scenario, header.at("seed").get<uint64_t>(), &plan);
  result.divergence = traces::first_divergence(trace.at("events").get_ref<const nlohmann::json::array_t&>(),
                                               result.run.trace->events());
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
    divergence_ = traces::diverges_at(index, want, e);
  }
  // After the run: a recorded event past the re-run's end diverges; reads to the end record.
  std::optional<Divergence> finish() {
    if (!error_.empty()) throw std::invalid_argument(error_);
    nlohmann::json want;
    if (!divergence_ && recorded_.next(&want)) divergence_ = traces::diverges_at(produced_, want, nullptr);
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
  world::enable_planted_bug_of(header, path);
  const world::Scenario scenario = world::recorded_scenario(header.at("scenario"), path);
  const faults::FaultPlan plan = recorded_plan(header, path);
  StreamComparer comparer(recorded);
  ReplayResult result;
  result.run = world::run_scenario(scenario, header.at("seed").get<uint64_t>(), &plan, nullptr, &comparer);
  result.divergence = comparer.finish();
  return result;
}

}  // namespace wtsim::runs
