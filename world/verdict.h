#pragma once
// What a run concludes, collected as it goes: the violations (each also a trace event), the
// faults no node could survive (classified, never violations), and the coverage markers reached.
// At the end it becomes the trace's verdict and the RunResult's lists.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "properties/coverage.h"
#include "properties/violation.h"
#include "sim/scheduler.h"
#include "traces/trace.h"

namespace wtsim::world {

// A fault that no node could survive (a device that refuses every read of the log): classified,
// never a violation. An administrator's answer (a power cycle of the device) follows, and the run
// goes on testing recovery.
struct Unsurvivable {
  sim::Nanos at_ns = 0;
  std::string reason;  // "device_refuses_io", "corruption_detected"
  std::string detail;
};

// The counts a run reports in its verdict.
struct RunStats {
  uint64_t commits_acked = 0;
  uint64_t commits_failed = 0;
  uint64_t crashes = 0;
  uint64_t recoveries = 0;
  uint64_t checkpoints = 0;
  sim::Nanos virtual_ns = 0;
  sim::Nanos workload_done_ns = 0;  // bulk loads: when the last client finished
  uint64_t mutating_disk_ops = 0;   // the crash points a fault plan's at_disk_op can name (not in the trace)
  uint64_t fault_phase_disk_ops = 0;  // those made before the fault phase ended: where a crash can fire
};

class Verdict {
 public:
  static constexpr size_t kUnsurvivableMax = 64;  // classified faults kept (all are traced)

  Verdict(traces::Trace& trace, const sim::Simulator& sim) : trace_(trace), sim_(sim) {}

  // `subject`: the event the violation is about (a recovery check), when there is one.
  void violation(properties::Property property, const std::string& detail, std::optional<uint64_t> subject = std::nullopt);
  void classify(const std::string& reason, const std::string& detail);
  // A coverage marker (properties/coverage.h) was reached `times` times.
  void reached(properties::Marker marker, uint64_t times = 1);

  bool ok() const { return violations_.empty(); }
  const std::vector<properties::Violation>& violations() const { return violations_; }
  const std::vector<Unsurvivable>& unsurvivable() const { return unsurvivable_; }
  // The trace's verdict record: outcome, violations, coverage, BUGGIFY's report, stats, and the
  // unsurvivable faults when there are any.
  nlohmann::json to_json(const char* outcome, const nlohmann::json& buggify, const RunStats& stats) const;

 private:
  traces::Trace& trace_;
  const sim::Simulator& sim_;
  std::vector<properties::Violation> violations_;
  std::vector<Unsurvivable> unsurvivable_;
  std::map<std::string, uint64_t> coverage_;  // marker -> times reached (ordered: deterministic)
};

}  // namespace wtsim::world
