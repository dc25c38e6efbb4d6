// A member's rollback via refetch, as MongoDB's (engine.h says the steps and why each is safe
// to redo after a crash), and the sync source's side of it.
#include <wiredtiger.h>

#include <algorithm>
#include <cassert>

#include "engine/engine.h"
#include "sim/planted.h"

namespace wtsim::engine {

int DocumentEngine::documents_by_id(OperationContext& op, const std::vector<std::pair<std::string, Document>>& keys,
                                    std::vector<std::optional<Document>>* out) {
  assert(out->empty());
  int ret = op.begin();
  for (size_t i = 0; ret == 0 && i < keys.size(); ++i) {
    const CollectionSpec* coll = state_.catalog.find(keys[i].first);
    std::vector<std::pair<std::string, Document>> found;
    if (coll != nullptr) ret = queries_.matching_records(op, *coll, {{"_id", keys[i].second}}, 1, &found);
    out->push_back(found.empty() ? std::nullopt : std::optional<Document>(std::move(found.front().second)));
  }
  op.rollback();  // a read: nothing to commit
  return ret;
}

Status DocumentEngine::begin_rollback(OperationContext& op, uint64_t min_valid_ts) {
  assert(min_valid_ts > 0);
  int ret = min_valid_.create(op);
  if (ret == 0) ret = op.begin();
  if (ret != 0) return Status::from_wt(ret);
  // A rollback redone after a crash keeps the higher point (the source may have moved on).
  const MinValidPoint point{std::max(min_valid_ts, min_valid() ? min_valid()->ts : 0), false};
  if ((ret = min_valid_.write(op, point)) != 0) return op.rollback(), Status::from_wt(ret);
  if ((ret = op.commit()) == 0 && !planted::active(planted::Bug::kMinValidUnflushed)) ret = op.flush_log();
  if (ret == 0) min_valid_.committed(point);
  return Status::from_wt(ret);
}

Status DocumentEngine::restore_document(OperationContext& op, const std::string& ns, const Document& id,
                                        const std::optional<Document>& image) {
  assert(min_valid() && !min_valid()->truncated && "between begin_rollback and finish_rollback");
  assert(!op.unreplicated && !op.oplog_ts);
  assert(!image || image->at("_id") == id);
  if (planted::active(planted::Bug::kRollbackSkipsRefetch)) return {};
  const Document by_id = {{"_id", id}};
  struct Unreplicated {  // over a cancellation too
    explicit Unreplicated(OperationContext& o) : op(o) { op.unreplicated = true; }
    ~Unreplicated() { op.unreplicated = false; }
    OperationContext& op;
  } unreplicated(op);
  WriteResult r;
  if (image) {
    r = update(op, ns, by_id, *image, /*upsert=*/true, /*multi=*/false, {});
  } else if (state_.catalog.find(ns) != nullptr) {
    r = remove(op, ns, by_id, /*just_one=*/true, {}, /*count_as_user_op=*/false);
  }
  if (!r.status.ok()) return r.status;
  if (!r.errors.empty()) return Status::error(r.errors.front().code);
  return {};
}

Status DocumentEngine::finish_rollback(OperationContext& op, uint64_t common_ts) {
  assert(min_valid() && !min_valid()->truncated && "after begin_rollback");
  const MinValidPoint point{min_valid()->ts, true};
  int ret = op.begin();
  if (ret != 0) return Status::from_wt(ret);
  if ((ret = oplog_.truncate_after(op, common_ts)) == 0) ret = min_valid_.write(op, point);
  if (ret != 0) return op.rollback(), Status::from_wt(ret);
  if ((ret = op.commit()) == 0) ret = op.flush_log();
  if (ret != 0) return Status::from_wt(ret);
  oplog_.truncated(common_ts);
  min_valid_.committed(point);
  return {};
}

Status DocumentEngine::note_applied(OperationContext& op) {
  if (!min_valid() || !min_valid()->truncated || oplog_.next_ts() <= min_valid()->ts) return {};
  int ret = op.begin();
  if (ret == 0) ret = min_valid_.clear(op);
  if (ret != 0) return op.rollback(), Status::from_wt(ret);
  if ((ret = op.commit()) != 0) return Status::from_wt(ret);
  min_valid_.committed(std::nullopt);
  return {};
}

}  // namespace wtsim::engine
