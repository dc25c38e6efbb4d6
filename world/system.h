#pragma once
// What runs on the node between a start and a crash: the schema, the client actors, and how the
// world reads the node's data for its checks. The world owns the lifecycle (start, crash,
// recovery, faults) and the model; a System owns the workload. Two exist: the key/value store of
// the first runs ("kv") and the document engine ("documents").
#include <wiredtiger.h>

#include <compare>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/kv_model.h"
#include "properties/coverage.h"
#include "properties/violation.h"

namespace wtsim::engine {
class DocumentEngine;
}

namespace wtsim::world {

// An oplog entry's identity: its ts and the term of the primary that wrote it.
struct OplogId {
  uint64_t ts = 0;
  uint64_t term = 0;
  auto operator<=>(const OplogId&) const = default;
};

class RunContext;
class NodeContext;

class System {
 public:
  virtual ~System() = default;
  // After every start, before any actor runs: creates or loads the schema. WiredTiger's code.
  virtual int open(WT_CONNECTION* conn) = 0;
  // The node's data as the model sees it. WiredTiger's code.
  virtual int read_state(WT_CONNECTION* conn, models::KvState* out) = 0;
  // Index-consistency problems (validate) and WiredTiger verify failures, by property name.
  virtual std::vector<properties::Finding> validate(WT_CONNECTION* conn) = 0;
  // Starts the client actors (group "node"); `suffix` names the generation (".g3").
  virtual void spawn_actors(const std::string& suffix) = 0;
  // The node's connection is about to close: release what refers to it.
  virtual void close() = 0;
  // Before WiredTiger opens on the disk (startup protocols such as the backup sentinel), and
  // after the node is up and its schema open.
  virtual void before_open() {}
  virtual void after_open(WT_CONNECTION*) {}
  // One sample of the metrics time series (serverStatus and collStats), or null.
  virtual nlohmann::json sample_metrics() { return nullptr; }
  // What the node is in the middle of right now (a padded-record move, a backup copy, a TTL
  // pass), as the coverage marker a crash at this instant reaches (crash_during_<phase>).
  virtual std::vector<properties::Marker> busy_phases() const { return {}; }
  // During the liveness phase (faults over since `since_ns`): what has not converged yet (a TTL
  // pass not yet run, a backup still copying), or "" once it has.
  virtual std::string liveness_pending(int64_t since_ns) const { return ""; }
  // Violations the system found itself while running (e.g. a counter that lost an increment).
  virtual std::vector<properties::Finding> take_findings() { return {}; }
  // A replica set member other than the primary, after the run's phases: fetches and applies
  // until it holds what the primary holds; false if it could not.
  virtual bool catch_up() { return true; }
  // Why this member's data need not equal the primary's at the end ("": it must), e.g. it needs
  // a resync that is not simulated.
  virtual std::string convergence_exempt() const { return ""; }
  // The code a replica set member answers a read it may not serve with ("": it serves it): a
  // member below a rollback's minValid is RECOVERING (NotMasterOrSecondary). One that serves is
  // judged there (min_valid_kept).
  virtual std::string read_refusal() { return ""; }
  // Below a rollback's minValid: replSetGetStatus says RECOVERING.
  virtual bool recovering() const { return false; }
  // The document engine while the node is open (a sync source serves from it); nullptr if none.
  virtual engine::DocumentEngine* engine() { return nullptr; }
  // NodeContext::begin_commit and end_commit: a commit outside the engine's observer.
  virtual void begin_commit() {}
  virtual void end_commit() {}
  // Every entry of the node's oplog, oldest first (none without an oplog). WiredTiger's code.
  virtual int read_oplog_ids(WT_CONNECTION*, std::vector<OplogId>* out) { return out->clear(), 0; }
};

std::unique_ptr<System> make_kv_system(RunContext& run, NodeContext& host);
// In doc_system.h: make_mixed_doc_system, make_time_series_system.

}  // namespace wtsim::world
