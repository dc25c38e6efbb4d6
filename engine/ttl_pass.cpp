#include "engine/ttl_pass.h"

#include <algorithm>
#include <cassert>
#include <limits>

#include "sim/planted.h"
#include "engine/index_keys.h"
#include "engine/update_ops.h"

namespace wtsim::engine {

Status TtlPass::delete_expired(OperationContext& op, const CollectionSpec& coll, const IndexSpec& index, int64_t bound_ms,
                               uint64_t* deleted) {
  // Dates only: the lower bound skips nulls, numbers and strings, which sort before dates. A
  // partial index holds only what its filter matches: the other fields' conditions narrow the
  // scan, and each document is checked against the whole filter before it goes.
  const std::string& field = index.fields.front().first;
  Document filter = index.partial_filter ? *index.partial_filter : Document::object();
  filter[field] = {{"$gte", make_date(std::numeric_limits<int64_t>::min())}, {"$lt", make_date(bound_ms)}};
  const TargetKeys targets = queries_.target_keys(op, coll, filter, false, /*user_op=*/false);
  if (!targets.status.ok()) return targets.status;
  assert(!op.ttl_tag);
  op.ttl_tag = OperationContext::TtlTag{field, index.expire_after_seconds->get<double>(), index.name, bound_ms};
  const WriteUnit::Mutation erase = [&](const std::optional<Document>& current, std::optional<Document>* next, WriteError*) {
    // Outside a partial index, or changed since the scan saw it (a refreshed created_at): it stays.
    const bool in_index = !current || !index.partial_filter || matches(*current, *index.partial_filter);
    if (current && (!in_index || (!matches(*current, filter) && !planted::active(planted::Bug::kTtlDeleteSkipsRecheck)))) *next = current;
    return 0;
  };
  // The mutation reads the indexed field only; the indexes (with _id's) name every field needed.
  const std::vector<std::string> view_fields = indexed_fields(coll);
  assert(std::count(view_fields.begin(), view_fields.end(), field.substr(0, field.find('.'))) > 0);
  assert(std::count(view_fields.begin(), view_fields.end(), "_id") > 0);
  Status status;
  const uint64_t deleted_before = *deleted;
  CommitTickets not_durable;
  for (const std::string& rkey : targets.keys) {
    if (planted::active(planted::Bug::kTtlPassStopsEarly) && *deleted - deleted_before == 100) break;
    const WriteOutcome outcome = writes_.write_one(op, {coll, rkey, &view_fields}, erase, not_durable);
    if (!(status = outcome.status).ok()) break;
    if (outcome.error.code == ErrorCode::kNamespaceNotFound) break;  // dropped meanwhile: nothing left to expire
    assert(outcome.error.code == ErrorCode::kOk);  // a delete has no other engine error
    *deleted += outcome.changed ? 1 : 0;
  }
  assert(not_durable.ids.empty());
  op.ttl_tag.reset();
  return status;
}

TtlPassResult TtlPass::run(OperationContext& op, bool primary) {
  TtlPassResult result;
  ++state_.metrics.ttl.passes;
  // Copy the list: deletes may yield, and DDL may change the catalog meanwhile.
  const std::map<std::string, CollectionSpec> collections = state_.catalog.collections();
  for (const auto& [ns, coll] : collections) {
    for (const IndexSpec& index : coll.indexes) {
      if (!index.expire_after_seconds || index.fields.size() != 1) continue;  // compound: skipped
      if (!index.expire_after_seconds->is_number()) continue;                // non-numeric: skipped
      ++result.indexes;
      if (!primary && !planted::active(planted::Bug::kTtlOnSecondary)) continue;  // a secondary never deletes; it waits for the primary's oplog
      // MongoDB 3.x's delete refuses a capped collection (the monitor logs it and goes on).
      if (coll.capped_max_docs > 0) continue;
      const int64_t expire_s = number_long(*index.expire_after_seconds);  // as MongoDB's monitor reads it: 1.9 s is 1 s
      const int64_t ms_per_unit = planted::active(planted::Bug::kTtlWrongUnits) ? 1 : 1000;
      const int64_t bound_ms = state_.now_ms() - expire_s * ms_per_unit;
      uint64_t n = 0;
      result.status = delete_expired(op, coll, index, bound_ms, &n);
      result.deleted += n;
      state_.metrics.ttl.deleted_documents += n;
      if (!result.status.ok()) return result;
    }
  }
  return result;
}

}  // namespace wtsim::engine
