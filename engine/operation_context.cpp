#include "engine/operation_context.h"

#include <algorithm>
#include <cassert>
#include <iterator>

#include "engine/wt_error.h"
#include "sim/planted.h"

namespace wtsim::engine {

OperationContext::OperationContext(WT_CONNECTION* conn) {
  check_wt(conn->open_session(conn, nullptr, "isolation=snapshot", &session_), "open_session");
}

OperationContext::~OperationContext() {
  release_oplog_holds();
  if (session_ != nullptr) session_->close(session_, nullptr);  // closes its cursors too
}

WT_CURSOR* OperationContext::cursor(const std::string& uri, int* ret) {
  auto it = cursors_.find(uri);
  if (it != cursors_.end()) {
    it->second->reset(it->second);
    *ret = 0;
    return it->second;
  }
  WT_CURSOR* c = nullptr;
  *ret = session_->open_cursor(session_, uri.c_str(), nullptr, nullptr, &c);
  if (*ret != 0) return nullptr;
  cursors_[uri] = c;
  return c;
}

void OperationContext::hold_oplog_ts(const std::shared_ptr<OplogHoles>& holes, uint64_t ts) {
  assert(holes != nullptr && (held_ts_.empty() || holes_ == holes) && "one oplog per transaction");
  holes_ = holes;
  holes_->hold(ts);
  held_ts_.push_back(ts);
  last_op_ts = std::max(last_op_ts, ts);
}

void OperationContext::release_oplog_holds() {
  if (held_ts_.empty()) return;
  for (const uint64_t ts : held_ts_) holes_->release(ts);
  held_ts_.clear();
}

void OperationContext::close_cursors() {
  for (auto it = cursors_.begin(); it != cursors_.end(); ++it) {
    const bool last = std::next(it) == cursors_.end();
    if (last && planted::active(planted::Bug::kCloseCursorsSkipsLast)) break;  // leaked, still open
    it->second->close(it->second);
  }
  cursors_.clear();
}

}  // namespace wtsim::engine
