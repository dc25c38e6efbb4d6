#pragma once
// Replication's sync source: a member other than the primary asks the primary, over the
// simulated network (faults/network.h), for the oplog entries above the last one it applied,
// as MongoDB's oplog fetcher does. The request carries that entry's (ts, term); the primary
// answers only if its own entry at that ts has the same term (else the member has applied
// entries the primary lost in a crash: it must roll back, reported as `diverged`). The answer
// also carries the primary's catalog, so the member creates and drops the collections and
// indexes the entries need (the oplog holds no DDL).
//
// The primary reads in a fiber of its own (group of the primary's node: it dies with it); the
// member waits for the answer for at most kFetchTimeoutNs, as a dropped connection times out.
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "engine/catalog.h"
#include "engine/oplog.h"
#include "faults/network.h"
#include "sim/scheduler.h"
#include "world/node_context.h"

namespace wtsim::world {

struct SyncBatch {
  enum class Outcome { kEntries, kUnreachable, kDiverged };
  Outcome outcome = Outcome::kUnreachable;
  std::vector<engine::OplogEntry> entries;  // oldest first, above the asked ts
  std::map<std::string, engine::CollectionSpec> catalog;  // the primary's, as the batch was read
  std::string why;  // kUnreachable, kDiverged: why
};

class SyncSource {
 public:
  static constexpr size_t kBatchEntriesMax = 1000;  // per answer
  static constexpr sim::Nanos kFetchTimeoutNs = 2 * sim::kNsPerSec;
  static constexpr sim::Nanos kPollNs = sim::kNsPerMs;  // how often a waiting member looks

  // `primary_up`: the primary's node is up (not crashed, not restarting).
  SyncSource(sim::Simulator& sim, faults::Network& network, NodeContext& primary, std::function<bool()> primary_up)
      : sim_(sim), network_(network), primary_(primary), primary_up_(std::move(primary_up)) {}

  // From a fiber of `member`: the primary's entries above (after_ts, after_term) (0, 0: from the
  // start). Costs the network's delays both ways.
  SyncBatch fetch(size_t member, uint64_t after_ts, uint64_t after_term);

 private:
  sim::Simulator& sim_;
  faults::Network& network_;
  NodeContext& primary_;
  std::function<bool()> primary_up_;
  uint64_t requests_ = 0;   // names the primary's answering fibers
};

}  // namespace wtsim::world
