#pragma once
// The TTL monitor (MongoDB's TTLMonitor): a background actor of the node that sleeps
// ttlMonitorSleepSecs, then runs one pass of the engine's TTL deletes (engine/ttl_pass.cpp) over every
// index with expireAfterSeconds, and traces it. Absent faults, it also checks that the pass left
// nothing older than its bound (the property ttl_bounded_age). Its state outlives a restart: the
// liveness phase asks when the last complete pass started. Whether a pass deletes is the node's
// role when the pass begins (MongoDB's monitor asks canAcceptWritesFor as it starts on an index):
// ttl.role for a single node, the member's elector on a replica set with elections.
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "engine/engine.h"
#include "properties/violation.h"
#include "sim/virtual_clock.h"
#include "world/scenario.h"

namespace wtsim::world {

class RunContext;
class NodeContext;

class TtlMonitor {
 public:
  using FindingFn = std::function<void(properties::Property, const std::string&)>;
  using PrimaryFn = std::function<bool()>;

  // `primary`: whether the node is a writable primary now (none: spec.primary, fixed).
  TtlMonitor(RunContext& run, NodeContext& host, const TtlSpec& spec, PrimaryFn primary = {})
      : run_(run), host_(host), spec_(spec), primary_(std::move(primary)) {}

  // The actor's body, for one generation of the node: passes until the run ends. `engine` is
  // the system's, read at each use.
  void run(const std::unique_ptr<engine::DocumentEngine>& engine, const FindingFn& finding);

  // One pass now, for a script's runTtlPass step: after the pass in progress, if any, ends (the
  // monitor runs one pass at a time). Deletes as the monitor's would and traces the same events.
  struct PassReport {
    engine::Status status;
    int64_t start_ms = 0;  // the pass's start, the Date its bounds are computed from
    uint64_t deleted = 0;
  };
  PassReport pass_now(engine::DocumentEngine& engine, engine::OperationContext& op, const FindingFn& finding);

  bool in_pass() const { return in_pass_; }
  sim::Nanos last_pass_start_ns() const { return last_pass_start_ns_; }  // -1: none yet
  // The ttl_pass_start event's index of the pass running (or the last one begun).
  uint64_t pass_start_event() const { return pass_start_event_; }

 private:
  // The role a pass takes; `first`: the generation's first answer (the planted bug keeps it).
  bool role(std::optional<bool>& first) const;
  PassReport pass(engine::DocumentEngine& engine, engine::OperationContext& op, bool primary, const FindingFn& finding);
  bool primary_now() const { return primary_ ? primary_() : spec_.primary; }
  uint64_t event(sim::Nanos at_ns, const char* kind, nlohmann::json details);  // with the member (a replica set's)
  void check_bounded_age(engine::DocumentEngine& engine, engine::OperationContext& op, int64_t pass_start_ms,
                         const FindingFn& finding);

  RunContext& run_;
  NodeContext& host_;
  const TtlSpec& spec_;
  PrimaryFn primary_;
  uint64_t passes_ = 0;                 // passes begun, over every generation (the trace's numbers)
  bool in_pass_ = false;                // inside a pass (a crash now reaches crash_during_ttl_pass)
  sim::Nanos last_pass_start_ns_ = -1;  // of the last complete pass
  uint64_t pass_start_event_ = 0;
};

}  // namespace wtsim::world
