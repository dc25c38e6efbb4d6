// drop (a collection): its catalog row goes in one transaction with an oplog delete of each of
// its documents, then a journal flush, as DDL is durable before it is acknowledged. A secondary
// applies the deletes (DDL is not replicated here: each member's catalog is its own). The
// collection's tables stay on disk unread, as the remains of a crash between a catalog change and
// a table drop do: an operation that yielded may still hold a cursor on them, and WiredTiger
// refuses to drop a table in use. The next start drops them (engine/unnamed_tables.h).
#include <cassert>

#include "engine/engine.h"

namespace wtsim::engine {

Status DocumentEngine::drop_collection(OperationContext& op, const std::string& ns) {
  const CollectionSpec* found = state_.catalog.find(ns);
  if (found == nullptr) return Status::error(ErrorCode::kNamespaceNotFound);  // "ns not found"
  ++state_.metrics.opcounters.command;
  HierarchicalLock lock(state_.locks, found->db(), found->name(), LockMode::kIX, LockPolicy::kCollection);
  if ((found = state_.catalog.find(ns)) == nullptr) return Status::error(ErrorCode::kNamespaceNotFound);  // dropped while this waited
  const CollectionSpec coll = *found;
  int ret = op.begin();
  if (ret != 0) return Status::failed(ret);
  std::vector<std::pair<std::string, Document>> records;
  ret = queries_.matching_records(op, coll, Document::object(), 0, &records);
  std::vector<Document> ids;
  ids.reserve(records.size());
  for (size_t i = 0; ret == 0 && i < records.size(); ++i) {
    ids.push_back(records[i].second.at("_id"));
    ret = oplog_.append(op, coll, &ids.back(), nullptr);
  }
  if (ret == 0) ret = state_.catalog.remove(op.session(), ns);
  if (ret != 0) {
    op.rollback();
    return Status::failed(ret);
  }
  CommitObserver* observer = state_.env.observer;
  const uint64_t ticket = observer != nullptr ? observer->before_drop_commit(ns, ids) : 0;
  ret = op.commit();
  if (observer != nullptr) observer->after_commit(ticket, ret);
  if (ret != 0) return Status::failed(ret);
  state_.catalog.erase(ns);
  state_.counts.erase(ns);
  state_.deleted_entries.forget(coll.table);
  for (const IndexSpec& index : coll.indexes) state_.deleted_entries.forget(index.table);
  ret = op.flush_log();
  if (observer != nullptr) observer->after_flush({ticket}, ret);
  assert(state_.catalog.find(ns) == nullptr);
  return Status::from_wt(ret);
}

}  // namespace wtsim::engine
