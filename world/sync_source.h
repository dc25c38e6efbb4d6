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
// The source answers in a fiber of its own (world/member_rpc.h: it dies with its node); the
// member waits for the answer for at most kFetchTimeoutNs, as a dropped connection times out.
// Without elections the source is always the first member; with them, the primary the asking
// member knows of (world/elector.h), and only while it is a writable primary.
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
#include "world/member_rpc.h"
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

  // A member's engine while it may serve as a sync source (up and not restarting); nullptr
  // otherwise. Whether its answer may decide divergence is Authoritative's.
  using EngineOf = std::function<engine::DocumentEngine*(size_t member)>;
  // The member `member` syncs from now (the primary it knows of, or a member ahead of it); nullopt: none.
  using SourceOf = std::function<std::optional<size_t>(size_t member)>;
  // A fetch that `source` answered with entries: `member`'s oplog is the source's up to
  // (ts, term), which the member has made durable (a w:"majority" write's commit point).
  using OnPosition = std::function<void(size_t source, size_t member, uint64_t ts, uint64_t term)>;

  // Whether a member's answer decides that the asking member diverged or is too stale (with
  // elections, only a primary's does); null: every source's does.
  using Authoritative = std::function<bool(size_t member)>;

  SyncSource(MemberRpc& rpc, EngineOf engine_of, SourceOf source_of, OnPosition on_position = nullptr,
             Authoritative authoritative = nullptr)
      : rpc_(rpc),
        engine_of_(std::move(engine_of)),
        source_of_(std::move(source_of)),
        on_position_(std::move(on_position)),
        authoritative_(std::move(authoritative)) {}

  // From a fiber of `member`: the source's entries above (after_ts, after_term) (0, 0: from the
  // start). Costs the network's delays both ways, as every request does.
  // A `give_up` that turns true while it waits for the answer ends the wait (MongoDB stops its
  // oplog fetcher when its member is elected).
  SyncBatch fetch(size_t member, uint64_t after_ts, uint64_t after_term, const MemberRpc::GiveUp& give_up = nullptr);
  // The terms of the source's entries with ts in [lo_ts, hi_ts] (at most kBatchEntriesMax).
  OplogTerms terms(size_t member, uint64_t lo_ts, uint64_t hi_ts);
  // The source's documents with these keys (at most kRefetchDocumentsMax; none: only the newest
  // ts and the catalog), in one snapshot.
  Refetched refetch(size_t member, const std::vector<DocumentKey>& keys);

 private:
  // The source's side of a request: fills the reply; WiredTiger's code. `authoritative`: the
  // source may decide that the member diverged or is too stale.
  using Serve = std::function<int(engine::DocumentEngine&, engine::OperationContext&, bool authoritative)>;
  // Sends a request over the network, has the source serve it, and brings the answer back:
  // "" if it was answered, else why not. `source`: who answered.
  std::string ask(size_t member, const Serve& serve, size_t* source = nullptr, const MemberRpc::GiveUp& give_up = nullptr);

  MemberRpc& rpc_;
  EngineOf engine_of_;
  SourceOf source_of_;
  OnPosition on_position_;
  Authoritative authoritative_;
};

}  // namespace wtsim::world
