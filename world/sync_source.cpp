#include "world/sync_source.h"

#include <wiredtiger.h>

#include <cassert>
#include <memory>

#include "engine/operation_context.h"

namespace wtsim::world {
namespace {

// A serve function's answer when only a primary may answer the request (not a WiredTiger code).
constexpr int kNotAuthoritative = -1;

int serve_fetch_checked(engine::DocumentEngine& primary, engine::OperationContext& op, uint64_t after_ts, uint64_t after_term,
                        SyncBatch* out) {
  if (after_ts > 0 && after_ts < primary.first_oplog_ts()) {
    out->outcome = SyncBatch::Outcome::kTooStale;
    out->why = "the primary's oldest entry is at ts " + std::to_string(primary.first_oplog_ts()) + ", above the member's last (" +
               std::to_string(after_ts) + ")";
    return 0;
  }
  if (after_ts > 0) {
    std::vector<engine::OplogEntry> at;
    if (const int ret = primary.read_oplog_visible(op, after_ts - 1, 1, &at); ret != 0) return ret;
    if (at.empty() || at.front().ts != after_ts || at.front().term != after_term) {
      out->outcome = SyncBatch::Outcome::kDiverged;
      out->why = at.empty() || at.front().ts != after_ts
                     ? "the primary has no entry at ts " + std::to_string(after_ts)
                     : "the primary's entry at ts " + std::to_string(after_ts) + " has term " + std::to_string(at.front().term) +
                           ", the member's " + std::to_string(after_term);
      return 0;
    }
  }
  if (const int ret = primary.read_oplog_visible(op, after_ts, SyncSource::kBatchEntriesMax, &out->entries); ret != 0) return ret;
  engine::Catalog catalog;
  if (const int ret = catalog.load(op.session()); ret != 0) return ret;
  out->catalog = catalog.collections();
  out->outcome = SyncBatch::Outcome::kEntries;
  return 0;
}

// The source's side of a fetch: checks the asking member's last entry against its own, then
// reads. Only a primary (`authoritative`) decides that the member diverged or is too stale; a
// secondary source (chaining) that cannot serve it says so, and the member asks again later.
int serve_fetch(engine::DocumentEngine& primary, engine::OperationContext& op, uint64_t after_ts, uint64_t after_term,
                bool authoritative, SyncBatch* out) {
  const int ret = serve_fetch_checked(primary, op, after_ts, after_term, out);
  if (ret == 0 && !authoritative && (out->outcome == SyncBatch::Outcome::kDiverged || out->outcome == SyncBatch::Outcome::kTooStale)) {
    out->outcome = SyncBatch::Outcome::kUnreachable;
    out->why = "a secondary source cannot serve it: " + out->why;
  }
  return ret;
}

int serve_terms(engine::DocumentEngine& primary, engine::OperationContext& op, uint64_t lo_ts, uint64_t hi_ts, OplogTerms* out) {
  assert(lo_ts >= 1 && lo_ts <= hi_ts && hi_ts - lo_ts < SyncSource::kBatchEntriesMax);
  out->first_ts = primary.first_oplog_ts();
  std::vector<engine::OplogEntry> entries;
  if (const int ret = primary.read_oplog_visible(op, lo_ts - 1, hi_ts - lo_ts + 1, &entries); ret != 0) return ret;
  for (const engine::OplogEntry& e : entries) {
    if (e.ts <= hi_ts) out->term_at[e.ts] = e.term;
  }
  return 0;
}

int serve_refetch(engine::DocumentEngine& primary, engine::OperationContext& op, const std::vector<DocumentKey>& keys, Refetched* out) {
  out->top_ts = primary.next_oplog_ts() - 1;  // every entry its snapshot sees is at or below it
  if (const int ret = primary.documents_by_id(op, keys, &out->documents); ret != 0) return ret;
  engine::Catalog catalog;
  if (const int ret = catalog.load(op.session()); ret != 0) return ret;
  out->catalog = catalog.collections();
  return 0;
}

}  // namespace

SyncBatch SyncSource::fetch(size_t member, uint64_t after_ts, uint64_t after_term, const MemberRpc::GiveUp& give_up) {
  auto batch = std::make_shared<SyncBatch>();
  size_t source = 0;
  const std::string why = ask(member, [batch, after_ts, after_term](engine::DocumentEngine& primary, engine::OperationContext& op, bool authoritative) {
    return serve_fetch(primary, op, after_ts, after_term, authoritative, batch.get());
  }, &source, give_up);
  if (!why.empty()) return SyncBatch{SyncBatch::Outcome::kUnreachable, {}, {}, why};
  if (batch->outcome == SyncBatch::Outcome::kEntries && on_position_) on_position_(source, member, after_ts, after_term);
  return std::move(*batch);
}

OplogTerms SyncSource::terms(size_t member, uint64_t lo_ts, uint64_t hi_ts) {
  auto terms = std::make_shared<OplogTerms>();
  const std::string why = ask(member, [terms, lo_ts, hi_ts](engine::DocumentEngine& primary, engine::OperationContext& op, bool authoritative) {
    if (!authoritative) return kNotAuthoritative;  // a rollback follows a primary only
    return serve_terms(primary, op, lo_ts, hi_ts, terms.get());
  });
  if (!why.empty()) {
    OplogTerms none;
    none.why = why;
    return none;
  }
  terms->answered = true;
  return std::move(*terms);
}

Refetched SyncSource::refetch(size_t member, const std::vector<DocumentKey>& keys) {
  assert(keys.size() <= kRefetchDocumentsMax);
  auto refetched = std::make_shared<Refetched>();
  const std::string why = ask(member, [refetched, keys](engine::DocumentEngine& primary, engine::OperationContext& op, bool authoritative) {
    if (!authoritative) return kNotAuthoritative;
    return serve_refetch(primary, op, keys, refetched.get());
  });
  if (!why.empty()) {
    Refetched none;
    none.why = why;
    return none;
  }
  assert(refetched->documents.size() == keys.size());
  refetched->answered = true;
  return std::move(*refetched);
}

std::string SyncSource::ask(size_t member, const Serve& serve, size_t* answered_by, const MemberRpc::GiveUp& give_up) {
  const std::optional<size_t> source = source_of_(member);
  if (!source || *source == member) return "no primary is known";
  if (answered_by != nullptr) *answered_by = *source;
  auto ret = std::make_shared<int>(0);
  const std::string why = rpc_.call(member, *source, "sync-source", kFetchTimeoutNs, [this, ret, serve, s = *source](bool* done) {
    engine::DocumentEngine* engine = engine_of_(s);
    if (engine == nullptr) return;  // not serving: no answer
    NodeContext& host = rpc_.host(s);
    const auto op = host.open_operation("sync_source_session");
    const bool authoritative = !authoritative_ || authoritative_(s);
    *ret = host.node_call("sync_source", [&] { return serve(*engine, *op, authoritative); }, {.handle_failure = false});
    *done = true;
  }, /*drop_on_crash=*/false, give_up);
  if (!why.empty()) return why;
  if (*ret == kNotAuthoritative) return "member " + std::to_string(*source) + " is not a primary";
  return *ret != 0 ? wiredtiger_strerror(*ret) : "";
}

}  // namespace wtsim::world
