#pragma once
// Replication's sync source: a member other than the primary asks the primary, over the
// simulated network (faults/network.h), for what it needs, as MongoDB's oplog fetcher and
// rollback do:
//   fetch    the oplog entries above the last one the member applied. The request carries that
//            entry's (ts, term); the primary answers only if its own entry at that ts has the
//            same term (else the member applied entries the primary lost in a crash: it must
//            roll back, `kDiverged`), and only if it still holds that entry (else the member is
//            too stale to catch up, `kTooStale`). The answer carries the primary's catalog too,
//            so the member creates and drops what the entries need (the oplog holds no DDL).
//            Entries are served only below the oldest one whose transaction is still open
//            (engine/oplog_holes.h): a member never skips an entry that commits late.
//   terms    the terms of the primary's entries in a ts range: the member finds the common
//            point of its oplog and the primary's (a rollback's first step).
//   refetch  the primary's current version of documents (a rollback's second step).
//
// The primary answers in a fiber of its own (group of the primary's node: it dies with it); the
// member waits for the answer for at most kFetchTimeoutNs, as a dropped connection times out.
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/catalog.h"
#include "engine/engine.h"
#include "engine/oplog.h"
#include "faults/network.h"
#include "sim/scheduler.h"
#include "world/node_context.h"

namespace wtsim::world {

struct SyncBatch {
  enum class Outcome { kEntries, kUnreachable, kDiverged, kTooStale };
  Outcome outcome = Outcome::kUnreachable;
  std::vector<engine::OplogEntry> entries;  // oldest first, above the asked ts
  std::map<std::string, engine::CollectionSpec> catalog;  // the primary's, as the batch was read
  std::string why;  // other than kEntries: why
};

// The primary's entries' terms over a ts range (a ts with no entry is absent).
struct OplogTerms {
  bool answered = false;
  std::string why;              // not answered: why
  uint64_t first_ts = 0;        // the primary's oldest entry (its next ts when it has none)
  std::map<uint64_t, uint64_t> term_at;
};

// A document as (ns, _id).
using DocumentKey = std::pair<std::string, engine::Document>;

struct Refetched {
  bool answered = false;
  std::string why;   // not answered: why
  uint64_t top_ts = 0;  // the primary's newest entry when it read the documents (0: none)
  std::vector<std::optional<engine::Document>> documents;  // per asked key; nullopt: absent
  std::map<std::string, engine::CollectionSpec> catalog;
};

class SyncSource {
 public:
  static constexpr size_t kBatchEntriesMax = 1000;  // per answer
  static constexpr size_t kRefetchDocumentsMax = 10'000;  // per answer
  static constexpr sim::Nanos kFetchTimeoutNs = 2 * sim::kNsPerSec;
  static constexpr sim::Nanos kPollNs = sim::kNsPerMs;  // how often a waiting member looks

  // The primary's engine while the primary is up (not crashed, not restarting); nullptr otherwise.
  using EngineOf = std::function<engine::DocumentEngine*()>;
  SyncSource(sim::Simulator& sim, faults::Network& network, NodeContext& primary, EngineOf primary_engine)
      : sim_(sim), network_(network), primary_(primary), primary_engine_(std::move(primary_engine)) {}

  // From a fiber of `member`: the primary's entries above (after_ts, after_term) (0, 0: from the
  // start). Costs the network's delays both ways, as every request does.
  SyncBatch fetch(size_t member, uint64_t after_ts, uint64_t after_term);
  // The terms of the primary's entries with ts in [lo_ts, hi_ts] (at most kBatchEntriesMax).
  OplogTerms terms(size_t member, uint64_t lo_ts, uint64_t hi_ts);
  // The primary's documents with these keys (at most kRefetchDocumentsMax; none: only the newest
  // ts and the catalog), in one snapshot.
  Refetched refetch(size_t member, const std::vector<DocumentKey>& keys);

 private:
  // The primary's side of a request: fills the reply; WiredTiger's code.
  using Serve = std::function<int(engine::DocumentEngine&, engine::OperationContext&)>;
  // Sends a request over the network, has the primary serve it, and brings the answer back:
  // "" if it was answered, else why not.
  std::string ask(size_t member, const Serve& serve);

  sim::Simulator& sim_;
  faults::Network& network_;
  NodeContext& primary_;
  EngineOf primary_engine_;
  uint64_t requests_ = 0;  // names the primary's answering fibers
};

}  // namespace wtsim::world
