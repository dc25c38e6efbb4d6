#include "properties/min_valid_ledger.h"

#include <algorithm>
#include <cassert>

#include "engine/wt_schema.h"

namespace wtsim::properties {
namespace {

constexpr const char* kMinValidUri = "table:minvalid";
constexpr int64_t kRowKey = 1;

}  // namespace

void MinValidLedger::rollback_began(uint64_t min_valid_ts) {
  assert(min_valid_ts > 0);
  owed_ts_ = std::max(min_valid_ts, owed_ts_.value_or(0));  // a rollback redone keeps the higher point
}

void MinValidLedger::applied(uint64_t ts) {
  if (owed_ts_ && ts >= *owed_ts_) owed_ts_.reset();
}

std::optional<Finding> MinValidLedger::check_start(std::optional<uint64_t> stored_ts) const {
  if (!owed_ts_ || (stored_ts && *stored_ts >= *owed_ts_)) return std::nullopt;
  const std::string stored = stored_ts ? "ts " + std::to_string(*stored_ts) : "no point";
  return Finding{Property::kMinValidKept, "at start: a rollback made minValid ts " + std::to_string(*owed_ts_) +
                                              " durable and the oplog has not reached it, but the minValid table holds " + stored};
}

std::optional<Finding> MinValidLedger::check_serving(const std::string& what) const {
  if (!owed_ts_) return std::nullopt;
  return Finding{Property::kMinValidKept, "it was about to " + what + " below minValid (ts " + std::to_string(*owed_ts_) +
                                              "): its oplog has not reached the point of its last rollback"};
}

int read_min_valid_ts(WT_SESSION* session, std::optional<uint64_t>* ts) {
  ts->reset();
  if (!engine::table_exists(session, kMinValidUri)) return 0;
  WT_CURSOR* c = nullptr;
  int ret = session->open_cursor(session, kMinValidUri, nullptr, nullptr, &c);
  if (ret != 0) return ret;
  c->set_key(c, kRowKey);
  if ((ret = c->search(c)) == 0) {
    uint64_t stored = 0;
    int32_t truncated = 0;
    if ((ret = c->get_value(c, &stored, &truncated)) == 0) *ts = stored;
  }
  c->close(c);
  return ret == WT_NOTFOUND ? 0 : ret;
}

}  // namespace wtsim::properties
