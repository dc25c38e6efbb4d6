// The write commands (insert, update, delete): each plans its targets with the query executor,
// writes every document in its own unit of work (engine/write_unit.h), reports per-document
// errors as MongoDB does, and, for j:true, waits for one journal flush at its end.
#include <wiredtiger.h>

#include <algorithm>
#include <cassert>

#include "sim/planted.h"
#include "engine/engine.h"
#include "engine/key_string.h"
#include "engine/update_ops.h"

namespace wtsim::engine {

const CollectionSpec* DocumentEngine::collection_for_write(OperationContext& op, const std::string& ns, WriteResult* result) {
  if (state_.catalog.find(ns) != nullptr) return state_.catalog.find(ns);
  const Status created = create_collection(op, ns);  // implicit, as MongoDB
  if (created.code != ErrorCode::kOk) result->errors.push_back({0, created.code, "cannot create " + ns});
  result->status = Status::from_wt(created.wt_code);
  assert(created.ok() == (state_.catalog.find(ns) != nullptr));
  return created.ok() ? state_.catalog.find(ns) : nullptr;
}

void DocumentEngine::finish(OperationContext& op, const CommitTickets& tickets, WriteResult* result) {
  const int flushed = writes_.finish_durable(op, tickets);
  if (result->status.ok()) result->status = Status::from_wt(flushed);
}

WriteOutcome DocumentEngine::insert_one(OperationContext& op, const CollectionSpec& coll, Document& doc,
                                        CommitTickets& tickets) {
  const WriteUnit::Mutation insert = [&doc](const std::optional<Document>& current, std::optional<Document>* next, WriteError* err) {
    if (current) {
      err->code = ErrorCode::kDuplicateKey;
      err->message = "E11000 duplicate key error index: _id_ dup key: " + doc["_id"].dump();
      return 0;
    }
    *next = doc;
    return 0;
  };
  const std::string rkey = coll.clustered ? record_key(doc["_id"]) : std::string();  // empty: a new record
  return writes_.write_one(op, {coll, rkey}, insert, tickets);
}

bool DocumentEngine::insert_one_by_one(OperationContext& op, const CollectionSpec& coll, std::vector<Document>& docs,
                                       size_t start, size_t stop, bool ordered, CommitTickets& tickets,
                                       WriteResult* result) {
  assert(start < stop && stop <= docs.size());
  for (size_t i = start; i < stop; ++i) {
    ++state_.metrics.opcounters.insert;
    WriteError error;
    if (!docs[i].is_object()) {
      error = {i, ErrorCode::kBadValue, "a document must be an object"};
    } else {
      const WriteOutcome outcome = insert_one(op, coll, docs[i], tickets);
      if (!(result->status = outcome.status).ok()) return true;  // the caller stops on a failure
      error = outcome.error;
    }
    if (error.code != ErrorCode::kOk) {
      error.index = i;
      result->errors.push_back(error);
      if (ordered) return false;
      continue;
    }
    ++result->n;
    ++state_.metrics.document.inserted;
  }
  return true;
}

void DocumentEngine::insert_in_groups(OperationContext& op, const CollectionSpec& coll, std::vector<Document>& docs,
                                      bool ordered, CommitTickets& tickets, WriteResult* result) {
  for (size_t start = 0; start < docs.size() && result->status.ok();) {
    // Up to kInsertGroupMax well-formed documents in one unit of work, as MongoDB 3.6+ does.
    std::vector<Document*> group;
    size_t end = start;
    const size_t group_max = sim::buggify(state_.env.buggify, "insert_group_of_two") ? 2 : kInsertGroupMax;
    for (; end < docs.size() && group.size() < group_max && docs[end].is_object(); ++end) {
      if (!docs[end].contains("_id")) docs[end]["_id"] = "oid" + std::to_string(state_.next_object_id++);
      group.push_back(&docs[end]);
    }
    // MMAPv1 inserts one at a time, and so does MongoDB into a capped collection.
    bool fallback = group.size() < 2 || coll.padded || coll.capped_max_docs > 0;
    if (!fallback) result->status = Status::from_wt(writes_.insert_group(op, coll, group, tickets, &fallback));
    if (!result->status.ok()) return;
    if (!fallback) {
      state_.metrics.opcounters.insert += group.size();
      state_.metrics.document.inserted += group.size();
      result->n += group.size();
      start = end;
      continue;
    }
    // One at a time: errors are reported per document; ordered stops at the first.
    const size_t stop = std::max(end, start + 1);
    if (!insert_one_by_one(op, coll, docs, start, stop, ordered, tickets, result)) return;
    start = stop;
  }
}

WriteResult DocumentEngine::insert_many(OperationContext& op, const std::string& ns, std::vector<Document> docs,
                                        WriteConcern wc, bool ordered) {
  WriteResult result;
  const CollectionSpec* coll = collection_for_write(op, ns, &result);
  if (coll == nullptr) return result;
  CommitTickets tickets{wc.durable, {}};
  insert_in_groups(op, *coll, docs, ordered, tickets, &result);
  finish(op, tickets, &result);
  return result;
}

void DocumentEngine::upsert(OperationContext& op, const CollectionSpec& coll, const Document& filter,
                            const Document& update, CommitTickets& tickets, WriteResult* result, Document* inserted) {
  Document doc = upsert_seed(filter);
  const std::string message = apply_update(doc, update);
  if (!message.empty()) {
    result->errors.push_back({0, ErrorCode::kBadValue, message});
    return;
  }
  if (!doc.contains("_id")) doc["_id"] = "oid" + std::to_string(state_.next_object_id++);
  const WriteUnit::Mutation insert = [&](const std::optional<Document>& current, std::optional<Document>* next, WriteError* error) {
    if (current) {
      error->code = ErrorCode::kDuplicateKey;
      error->message = "E11000 duplicate key error (upsert raced an insert)";
      return 0;
    }
    *next = doc;
    return 0;
  };
  const std::string rkey = coll.clustered ? record_key(doc["_id"]) : std::string();  // empty: a new record
  const WriteOutcome outcome = writes_.write_one(op, {coll, rkey}, insert, tickets);
  result->status = outcome.status;
  if (outcome.error.code != ErrorCode::kOk) result->errors.push_back(outcome.error);
  if (outcome.status.ok() && outcome.error.code == ErrorCode::kOk) result->upserted_ids.push_back(doc["_id"]);
  if (inserted != nullptr) *inserted = std::move(doc);
}

WriteResult DocumentEngine::update(OperationContext& op, const std::string& ns, const Document& filter,
                                   const Document& update, bool upsert, bool multi, WriteConcern wc) {
  WriteResult result;
  ++state_.metrics.opcounters.update;
  const CollectionSpec* coll = collection_for_write(op, ns, &result);
  if (coll == nullptr) return result;
  CommitTickets tickets{wc.durable, {}};
  const TargetKeys targets = queries_.target_keys(op, *coll, filter, !multi);
  if (!(result.status = targets.status).ok()) return result;
  const std::vector<std::string>& keys = targets.keys;
  if (planted::active(planted::Bug::kUpdateCountsPerDocument) && keys.size() > 1) state_.metrics.opcounters.update += keys.size() - 1;
  const WriteUnit::Mutation modify = [&](const std::optional<Document>& current, std::optional<Document>* next, WriteError* error) {
    if (!current || !matches(*current, filter)) return 0;  // gone or changed since the plan saw it
    Document doc = *current;
    error->message = apply_update(doc, update);
    if (!error->message.empty()) error->code = ErrorCode::kBadValue;
    if (error->code == ErrorCode::kOk && coll->capped_max_docs > 0) capped_size_kept(*current, doc, error);
    *next = doc;
    return 0;
  };
  for (const std::string& rkey : keys) {
    const WriteOutcome outcome = writes_.write_one(op, {*coll, rkey}, modify, tickets);
    if (!(result.status = outcome.status).ok()) break;
    if (outcome.error.code != ErrorCode::kOk) {
      result.errors.push_back(outcome.error);
      break;
    }
    ++result.n;
    ++state_.metrics.document.updated;
    if (outcome.changed) ++result.modified;
  }
  if (keys.empty() && upsert && result.status.ok()) this->upsert(op, *coll, filter, update, tickets, &result);
  finish(op, tickets, &result);
  return result;
}

WriteResult DocumentEngine::remove(OperationContext& op, const std::string& ns, const Document& filter, bool just_one,
                                   WriteConcern wc, bool count_as_user_op) {
  WriteResult result;
  if (count_as_user_op) ++state_.metrics.opcounters.remove;
  const CollectionSpec* coll = state_.catalog.find(ns);
  if (coll == nullptr) return result;
  // MongoDB 3.x refuses a user's remove on a capped collection before it touches a document
  // (getExecutorDelete; 2.6 answered 10101). Capped trimming and replication remove internally.
  if (count_as_user_op && coll->capped_max_docs > 0) {
    result.errors.push_back({0, ErrorCode::kIllegalOperation, "cannot remove from a capped collection: " + ns});
    return result;
  }
  CommitTickets tickets{wc.durable, {}};
  const TargetKeys targets = queries_.target_keys(op, *coll, filter, just_one);
  if (!(result.status = targets.status).ok()) return result;
  const std::vector<std::string>& keys = targets.keys;
  const WriteUnit::Mutation erase = [&](const std::optional<Document>& current, std::optional<Document>* next, WriteError*) {
    if (current && !matches(*current, filter)) *next = current;  // changed since the plan saw it
    return 0;
  };
  for (const std::string& rkey : keys) {
    const WriteOutcome outcome = writes_.write_one(op, {*coll, rkey}, erase, tickets);
    if (!(result.status = outcome.status).ok()) break;
    if (!outcome.changed) continue;
    ++result.n;
    if (count_as_user_op) ++state_.metrics.document.deleted;
  }
  finish(op, tickets, &result);
  return result;
}

Status DocumentEngine::apply_oplog_entry(OperationContext& op, const OplogEntry& entry) {
  assert(!op.oplog_ts && entry.ts >= oplog_.next_ts() && "entries above this node's applied point, in order");
  assert(entry.op == "u" || entry.op == "d" || entry.op == "n");
  WriteResult r;
  bool changed = false;
  const bool skip = entry.op == "d" && planted::active(planted::Bug::kApplySkipsDeletes);
  if (entry.op != "n" && !skip) {
    const Document by_id = {{"_id", entry.o.at("_id")}};
    op.oplog_ts = entry.ts;
    op.oplog_term = entry.term;
    if (entry.op == "u") {
      r = update(op, entry.ns, by_id, entry.o, /*upsert=*/true, /*multi=*/false, {});
      changed = r.modified > 0 || !r.upserted_ids.empty();
    } else {
      r = remove(op, entry.ns, by_id, /*just_one=*/true, {}, /*count_as_user_op=*/false);
      changed = r.n > 0;
    }
    op.oplog_ts.reset();
    op.oplog_term = 0;
    if (!r.status.ok()) return r.status;
    if (!r.errors.empty()) return Status::error(r.errors.front().code);
  }
  if (changed) return {};
  if (skip) return Status::from_wt(oplog_.append_copy(op, {entry.ts, entry.term, "", "n", Document::object()}));  // taken for a no-op
  return Status::from_wt(oplog_.append_copy(op, entry));
}

}  // namespace wtsim::engine
