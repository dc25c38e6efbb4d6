#pragma once
// What a node's lifecycle (world/node_host.h) may change in its run beyond what systems see: the
// run's phases. The world implements it.
#include <string>

#include "sim/virtual_clock.h"
#include "world/run_context.h"

namespace wtsim::world {

class RunControl : public RunContext {
 public:
  // When the fault phase ends (the liveness phase follows until end_ns()).
  virtual sim::Nanos fault_end_ns() const = 0;
  // A stall that stands for nothing real (a dead process's close that hung in WiredTiger): the
  // run's end moves by it, so liveness is not judged on it.
  virtual void extend_end(sim::Nanos stalled_ns) = 0;
  // The scenario's end_after_recovery_ms, after a recovery check: the fault phase ends at
  // `fault_end_ns` (if sooner; once per run), the liveness phase keeping its length.
  virtual void end_faults_at(sim::Nanos fault_end_ns) = 0;
  // A client fiber frozen inside a dead node's WiredTiger: it counts as finished.
  virtual void client_abandoned(const std::string& fiber_name) = 0;

 protected:
  ~RunControl() = default;
};

}  // namespace wtsim::world
