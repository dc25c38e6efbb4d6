#pragma once
// What a System and its actors see of the run they are part of (world/system.h): the run's
// parts, the verdict's entry points, and client bookkeeping. The world implements it; what is
// the node's (its connection, its disk, calling into it) is in NodeContext (world/node_context.h).
#include <optional>
#include <string>

#include "properties/coverage.h"
#include "properties/violation.h"
#include "sim/buggify.h"
#include "sim/scheduler.h"
#include "sim/sync.h"
#include "traces/trace.h"
#include "world/scenario.h"
#include "world/verdict.h"

namespace wtsim::world {

class RunContext {
 public:
  // --- The run's parts. ---
  virtual sim::Simulator& sim() = 0;
  virtual const Scenario& scenario() const = 0;
  virtual uint64_t seed() const = 0;
  virtual sim::Nanos end_ns() const = 0;
  virtual traces::Trace& trace() = 0;
  virtual sim::Buggify& buggify() = 0;
  virtual RunStats& stats() = 0;

  // --- The verdict. ---
  // `subject`: the event the violation is about (a recovery check), when there is one.
  virtual void violation(properties::Property property, const std::string& detail, std::optional<uint64_t> subject = std::nullopt) = 0;
  // A fault no node could survive (world/verdict.h): classified, never a violation.
  virtual void classify(const std::string& reason, const std::string& detail) = 0;
  // A coverage marker (properties/coverage.h) was reached `times` times.
  virtual void reached(properties::Marker marker, uint64_t times = 1) = 0;

  // --- Clients (liveness). ---
  // A client registers for its lifetime with a ClientScope and reports each acknowledged
  // operation; one that makes none during the liveness phase starves.
  virtual void client_started() = 0;
  virtual void client_finished() = 0;
  virtual void note_progress() = 0;
  // A bulk-load client finished its share: the workload's virtual duration is the latest.
  virtual void note_workload_done() = 0;

 protected:
  ~RunContext() = default;
};

// Registers the calling fiber as a client for its scope (exceptions included).
class ClientScope {
 public:
  explicit ClientScope(RunContext& run) : run_(run) { run_.client_started(); }
  ~ClientScope() { run_.client_finished(); }
  ClientScope(const ClientScope&) = delete;
  ClientScope& operator=(const ClientScope&) = delete;

 private:
  RunContext& run_;
};

}  // namespace wtsim::world
