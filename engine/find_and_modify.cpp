// findAndModify (MongoDB 3.2's find_and_modify.cpp and FindAndModifyRequest::parseFromBSON): one
// document, the first matching the query in the sort's order, updated or removed in one unit of
// work, and that document returned as it was before the change or, with `new`, after it.
#include <cassert>

#include "engine/engine.h"
#include "engine/projection.h"
#include "engine/update_ops.h"

namespace wtsim::engine {
namespace {

// The request's refusal as MongoDB's parser words it (FailedToParse), or "".
std::string parse_error(const FindAndModifyRequest& r) {
  const bool is_update = r.update.has_value();
  if (!r.remove && !is_update) return "Either an update or remove=true must be specified";
  if (!r.remove) return "";
  if (is_update) return "Cannot specify both an update and remove=true";
  if (r.upsert) return "Cannot specify both upsert=true and remove=true";
  if (r.return_new) return "Cannot specify both new=true and remove=true; 'remove' always returns the deleted document";
  return "";
}

// The reply's document under the request's projection.
void project_value(const FindAndModifyRequest& r, std::optional<Document>* value) {
  if (*value && !r.fields.empty()) *value = project(**value, r.fields);
}

}  // namespace

Status DocumentEngine::pick_one(OperationContext& op, const CollectionSpec& coll, const FindAndModifyRequest& request,
                                std::string* rkey) {
  rkey->clear();
  Document query = request.query;
  if (request.sort) {  // the first in the sort's order names the document by its _id
    FindRequest first{request.query, request.sort, 1, "", /*user_query=*/false};
    const FindResult found = queries_.find(op, coll.ns, first);
    if (!found.status.ok() || found.docs.empty()) return found.status;
    query["_id"] = found.docs.front().at("_id");
  }
  const TargetKeys targets = queries_.target_keys(op, coll, query, /*just_one=*/true);
  if (targets.status.ok() && !targets.keys.empty()) *rkey = targets.keys.front();
  assert(targets.keys.size() <= 1);
  return targets.status;
}

FindAndModifyResult DocumentEngine::find_and_modify(OperationContext& op, const std::string& ns, const FindAndModifyRequest& request,
                                                    WriteConcern wc) {
  FindAndModifyResult out;
  ++state_.metrics.opcounters.command;
  if (out.message = parse_error(request); !out.message.empty()) {
    out.errors.push_back({0, ErrorCode::kFailedToParse, out.message});
    return out;
  }
  // The projection is parsed with the plan, before any write (getExecutorUpdate/Delete).
  if (out.message = projection_error(request.fields); !out.message.empty()) {
    out.errors.push_back({0, ErrorCode::kBadValue, out.message});
    return out;
  }
  const bool may_insert = request.update && request.upsert;
  if (state_.catalog.find(ns) == nullptr && !may_insert) return out;  // nothing matches: value null
  const CollectionSpec* coll = collection_for_write(op, ns, &out);
  if (coll == nullptr) return out;
  if (request.remove && coll->capped_max_docs > 0) {  // as a remove's (getExecutorDelete)
    out.message = "cannot remove from a capped collection: " + ns;
    out.errors.push_back({0, ErrorCode::kIllegalOperation, out.message});
    return out;
  }
  std::string rkey;
  if (!(out.status = pick_one(op, *coll, request, &rkey)).ok()) return out;
  CommitTickets tickets{wc.durable, {}};
  std::optional<Document> before, after;
  const WriteUnit::Mutation change = [&](const std::optional<Document>& current, std::optional<Document>* next, WriteError* error) {
    before.reset(), after.reset();
    if (!current || !matches(*current, request.query)) {  // gone or changed since the pick: nothing to do
      *next = current;
      return 0;
    }
    before = current;
    if (request.remove) return 0;  // *next stays empty: deleted
    Document doc = *current;
    error->message = apply_update(doc, *request.update);
    if (!error->message.empty()) error->code = ErrorCode::kBadValue;
    if (error->code == ErrorCode::kOk && coll->capped_max_docs > 0) capped_size_kept(*current, doc, error);
    *next = after = doc;
    return 0;
  };
  if (!rkey.empty()) {
    const WriteOutcome outcome = writes_.write_one(op, {*coll, rkey}, change, tickets);
    out.status = outcome.status;
    if (outcome.error.code != ErrorCode::kOk) out.errors.push_back(outcome.error), out.message = outcome.error.message;
  }
  if (out.ok() && before) {
    out.n = 1;
    out.updated_existing = !request.remove;
    out.value = request.return_new && after ? after : before;
    ++(request.remove ? state_.metrics.document.deleted : state_.metrics.document.updated);
  } else if (out.ok() && may_insert) {
    Document inserted;
    upsert(op, *coll, request.query, *request.update, tickets, &out, &inserted);
    out.n = out.ok() ? 1 : 0;
    if (out.ok() && request.return_new) out.value = std::move(inserted);
  }
  finish(op, tickets, &out);
  project_value(request, &out.value);
  return out;
}

}  // namespace wtsim::engine
