#include "world/sync_source.h"

#include <wiredtiger.h>

#include <cassert>
#include <memory>

#include "engine/operation_context.h"

namespace wtsim::world {
namespace {

struct Answer {
  bool done = false;
  SyncBatch batch;
};

// On the primary: checks the asking member's last entry against its own, then reads.
int answer(engine::OperationContext& op, uint64_t after_ts, uint64_t after_term, SyncBatch* out) {
  if (after_ts > 0) {
    std::vector<engine::OplogEntry> at;
    if (const int ret = engine::Oplog::read_after(op, after_ts - 1, 1, &at); ret != 0) return ret;
    if (at.empty() || at.front().ts != after_ts || at.front().term != after_term) {
      out->outcome = SyncBatch::Outcome::kDiverged;
      out->why = at.empty() || at.front().ts != after_ts
                     ? "the primary has no entry at ts " + std::to_string(after_ts)
                     : "the primary's entry at ts " + std::to_string(after_ts) + " has term " + std::to_string(at.front().term) +
                           ", the member's " + std::to_string(after_term);
      return 0;
    }
  }
  if (const int ret = engine::Oplog::read_after(op, after_ts, SyncSource::kBatchEntriesMax, &out->entries); ret != 0) return ret;
  engine::Catalog catalog;
  if (const int ret = catalog.load(op.session()); ret != 0) return ret;
  out->catalog = catalog.collections();
  out->outcome = SyncBatch::Outcome::kEntries;
  return 0;
}

}  // namespace

SyncBatch SyncSource::fetch(size_t member, uint64_t after_ts, uint64_t after_term) {
  assert(member > 0 && member < network_.nodes());
  SyncBatch lost;
  const sim::Nanos start_ns = sim_.now_ns();
  const std::optional<sim::Nanos> there = network_.delay(member, 0);
  if (!there) {
    sim_.sleep_for(kFetchTimeoutNs);
    lost.why = "the link to the primary is cut";
    return lost;
  }
  sim_.sleep_for(*there);
  auto reply = std::make_shared<Answer>();
  if (primary_up_()) {
    NodeContext& primary = primary_;
    const std::function<bool()>& up = primary_up_;
    sim_.spawn("sync-source" + primary.generation_suffix() + "." + std::to_string(++requests_), primary.fiber_group(),
               [reply, &primary, &up, after_ts, after_term] {
                 if (!up()) return;  // it crashed before this fiber ran: no answer
                 engine::OperationContext op(primary.node().conn());
                 const int ret = primary.node_call("sync_source", [&] { return answer(op, after_ts, after_term, &reply->batch); },
                                                   {.handle_failure = false});
                 if (ret != 0) reply->batch = SyncBatch{SyncBatch::Outcome::kUnreachable, {}, {}, wiredtiger_strerror(ret)};
                 reply->done = true;
               });
  }
  while (!reply->done && sim_.now_ns() - start_ns < kFetchTimeoutNs) sim_.sleep_for(kPollNs);
  if (!reply->done) {
    lost.why = primary_up_() ? "no answer in time" : "the primary is down";
    return lost;
  }
  const std::optional<sim::Nanos> back = network_.delay(0, member);
  if (!back) {
    sim_.sleep_for(kFetchTimeoutNs);
    lost.why = "the link from the primary is cut";
    return lost;
  }
  sim_.sleep_for(*back);
  return std::move(reply->batch);
}

}  // namespace wtsim::world
