#include "properties/oplog_bound.h"

#include <cassert>
#include <cerrno>

namespace wtsim::properties {
namespace {

constexpr const char* kOplogUri = "table:oplog";

}  // namespace

std::optional<Finding> OplogBoundJudge::pass(std::optional<uint64_t> newest_before_ts, std::optional<uint64_t> oldest_after_ts) {
  assert(max_entries_ > 0);
  if (!newest_before_ts || !oldest_after_ts) return last_excess_.reset(), std::nullopt;
  // The lowest ts the pass may leave: max_entries ts up to and including the newest.
  const uint64_t lowest_ts = *newest_before_ts >= max_entries_ ? *newest_before_ts + 1 - max_entries_ : 1;
  if (*oldest_after_ts >= lowest_ts) return last_excess_.reset(), std::nullopt;
  std::string excess = "the oldest entry left is ts " + std::to_string(*oldest_after_ts) + ", below ts " + std::to_string(lowest_ts) +
                       " (newest ts " + std::to_string(*newest_before_ts) + " before the pass, bound " + std::to_string(max_entries_) + " entries)";
  if (!last_excess_) {
    last_excess_ = std::move(excess);
    return std::nullopt;
  }
  Finding f{Property::kOplogWithinBound, "two trim passes in a row left the oplog past its bound: " + *last_excess_ + "; then " + excess};
  last_excess_.reset();
  return f;
}

int read_oplog_end(WT_SESSION* session, bool newest, std::optional<uint64_t>* ts) {
  ts->reset();
  WT_CURSOR* c = nullptr;
  int ret = session->open_cursor(session, kOplogUri, nullptr, nullptr, &c);
  if (ret == ENOENT) return 0;  // not created yet
  if (ret != 0) return ret;
  if ((ret = newest ? c->prev(c) : c->next(c)) == 0) {
    int64_t key = 0;
    if ((ret = c->get_key(c, &key)) == 0) *ts = static_cast<uint64_t>(key);
  }
  c->close(c);
  return ret == WT_NOTFOUND ? 0 : ret;
}

}  // namespace wtsim::properties
