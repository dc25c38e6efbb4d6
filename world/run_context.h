#pragma once
// What a System and its actors see of the run they are part of (world/system.h): the run's
// parts, the verdict's entry points, and client bookkeeping. The world implements it; what is
// the node's (its connection, its disk, calling into it) is in NodeContext (world/node_context.h).
#include <functional>
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

namespace wtsim::engine {
class DocumentEngine;
class OperationContext;
}  // namespace wtsim::engine

namespace wtsim::world {

class NodeContext;

// A replica set's other members as a script on the first member reaches them
// (world/script_system.cpp): over the simulated network, served in a fiber of the member's node.
class MemberAccess {
 public:
  using Read = std::function<void(NodeContext& member, engine::DocumentEngine& engine, engine::OperationContext& op)>;
  // Runs `read` on member `member` (up and not restarting): "" once it ran, else why not.
  virtual std::string read_on(size_t member, Read read) = 0;
  // The newest oplog ts member `member` holds (0: down, or none).
  virtual uint64_t newest_ts(size_t member) = 0;
  virtual size_t member_count() const = 0;
  // Its state as replSetGetStatus names it: PRIMARY, SECONDARY, DOWN (not serving) or
  // RECOVERING (it stopped applying and needs a resync, or it is below a rollback's minValid).
  virtual std::string member_state(size_t member) = 0;
  // Cuts the links of `shape` (or pauses its member) for script step `step`, traced as a network
  // event; it lasts until end_script_faults, or the liveness phase.
  virtual void start_script_fault(const NetworkFault& shape, size_t step) = 0;
  // Gives back every link the script's steps cut and resumes their paused members, in step order.
  virtual void end_script_faults() = 0;

 protected:
  ~MemberAccess() = default;
};

class RunContext {
 public:
  // A replica set's members (null for a single node).
  virtual MemberAccess* members() { return nullptr; }

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
