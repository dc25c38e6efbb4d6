#include "engine/oplog.h"

#include <wiredtiger.h>

#include <algorithm>
#include <cassert>

#include "engine/bson.h"
#include "engine/wt_schema.h"
#include "sim/planted.h"

namespace wtsim::engine {

int Oplog::open(OperationContext& op) {
  if (!config_.oplog) return 0;
  int ret = create_table(op.session(), kUri, "key_format=q,value_format=u");
  if (ret != 0) return ret;
  WT_CURSOR* c = op.cursor(kUri, &ret);
  if (c == nullptr) return ret;
  if ((ret = c->prev(c)) == 0) {
    int64_t last = 0;
    c->get_key(c, &last);
    next_ts_ = static_cast<uint64_t>(last) + 1;
  }
  if (ret == 0 && (ret = c->next(c)) == 0) {
    int64_t first = 0;
    c->get_key(c, &first);
    first_ts_ = static_cast<uint64_t>(first);
  }
  assert(ret != 0 || first_ts_ < next_ts_);
  return ret == WT_NOTFOUND ? 0 : ret;
}

// The entry {ns, o, op, ts} (nlohmann's key order), built around the document's own bytes.
int Oplog::append(OperationContext& op, const CollectionSpec& coll, const Document* id,
                  const std::vector<uint8_t>* after_bson) {
  assert(after_bson != nullptr || id != nullptr);
  if (!config_.oplog) return 0;
  if (op.unreplicated) return 0;
  if (op.ttl_tag && planted::active(planted::Bug::kTtlDeleteSkipsOplog)) return 0;
  int ret = 0;
  WT_CURSOR* c = op.cursor(kUri, &ret);
  if (c == nullptr) return ret;
  const int64_t ts = static_cast<int64_t>(take_ts(op));
  std::vector<uint8_t> deleted;
  if (after_bson == nullptr) deleted = to_bson(Document{{"_id", *id}});
  const std::vector<uint8_t>& o = after_bson != nullptr ? *after_bson : deleted;
  BsonBuilder entry;
  entry.add_string("ns", coll.ns);
  entry.add_document("o", o.data(), o.size());
  entry.add_string("op", after_bson != nullptr ? "u" : "d");
  entry.add_int("ts", ts);
  const uint64_t term = op.oplog_ts ? op.oplog_term : config_.oplog_term;
  if (term > 0) entry.add_int("t", static_cast<int64_t>(term));
  const std::vector<uint8_t> bson = std::move(entry).finish();
  WT_ITEM value{};
  value.data = bson.data();
  value.size = bson.size();
  c->set_key(c, ts);
  c->set_value(c, &value);
  return c->insert(c);
}

uint64_t Oplog::take_ts(OperationContext& op) {
  uint64_t ts = next_ts_;
  if (op.oplog_ts) {
    // In ts order; a write conflict's retry takes its entry's ts again.
    assert(*op.oplog_ts + 1 >= next_ts_ && "a replica applies its source's entries in ts order");
    ts = *op.oplog_ts;
  }
  next_ts_ = ts + 1;
  op.hold_oplog_ts(holes_, ts);
  return ts;
}

int Oplog::append_copy(OperationContext& op, const OplogEntry& entry) {
  assert(!op.oplog_ts && entry.ts >= next_ts_);
  if (!config_.oplog) return 0;
  int ret = op.begin();
  if (ret != 0) return ret;
  WT_CURSOR* c = op.cursor(kUri, &ret);
  if (c == nullptr) return op.rollback(), ret;
  const std::vector<uint8_t> o = to_bson(entry.o);
  BsonBuilder copy;  // the field order of append()'s entries
  copy.add_string("ns", entry.ns);
  copy.add_document("o", o.data(), o.size());
  copy.add_string("op", entry.op);
  copy.add_int("ts", static_cast<int64_t>(entry.ts));
  if (entry.term > 0) copy.add_int("t", static_cast<int64_t>(entry.term));
  const std::vector<uint8_t> bson = std::move(copy).finish();
  WT_ITEM value{};
  value.data = bson.data();
  value.size = bson.size();
  op.oplog_ts = entry.ts;
  c->set_key(c, static_cast<int64_t>(take_ts(op)));
  op.oplog_ts.reset();
  c->set_value(c, &value);
  ret = c->insert(c);
  if (ret != 0) return op.rollback(), ret;
  return op.commit();
}

int Oplog::read_after(OperationContext& op, uint64_t after_ts, size_t max, std::vector<OplogEntry>* out, uint64_t below_ts) {
  assert(max > 0);
  int ret = op.begin();
  if (ret != 0) return ret;
  WT_CURSOR* c = op.cursor(kUri, &ret);
  if (c == nullptr) return op.rollback(), ret;
  c->set_key(c, static_cast<int64_t>(after_ts + 1));
  int exact = 0;
  ret = c->search_near(c, &exact);
  if (ret == 0 && exact < 0) ret = c->next(c);  // landed below: the first entry above is next
  for (; ret == 0 && out->size() < max; ret = c->next(c)) {
    int64_t ts = 0;
    WT_ITEM value{};
    c->get_key(c, &ts);
    if (static_cast<uint64_t>(ts) >= below_ts) break;
    c->get_value(c, &value);
    assert(static_cast<uint64_t>(ts) > after_ts);
    const Document d = from_bson(static_cast<const uint8_t*>(value.data), value.size);
    out->push_back({static_cast<uint64_t>(ts), d.value("t", uint64_t{0}), d.at("ns").get<std::string>(), d.at("op").get<std::string>(),
                    d.at("o")});
  }
  op.rollback();  // a read: nothing to commit
  return ret == WT_NOTFOUND ? 0 : ret;
}

int Oplog::truncate_after(OperationContext& op, uint64_t ts) {
  assert(config_.oplog && holes_->held() == 0 && "no writer is open while a rollback truncates");
  assert(ts + 1 >= first_ts_ && "a rollback's common point is in the oplog (or below its first entry: 0)");
  if (ts + 1 >= next_ts_) return 0;
  WT_SESSION* s = op.session();
  WT_CURSOR* start = nullptr;
  int ret = s->open_cursor(s, kUri, nullptr, nullptr, &start);
  if (ret != 0) return ret;
  start->set_key(start, static_cast<int64_t>(ts + 1));
  ret = s->truncate(s, nullptr, start, nullptr, nullptr);  // to the end
  start->close(start);
  return ret;
}

void Oplog::truncated(uint64_t ts) {
  next_ts_ = std::min(next_ts_, ts + 1);
  first_ts_ = std::min(first_ts_, next_ts_);
}

// A range truncate, as MongoDB's oplog truncation does: one positioning, then a walk (keys need
// not exist: an aborted writer leaves a hole), and no per-entry cursor remove calls.
// It keeps every entry from the oldest ts an open transaction holds: that entry may still commit,
// and one committed below the oplog's first ts would never be trimmed.
int Oplog::trim(OperationContext& op) {
  if (!config_.oplog || next_ts_ - first_ts_ <= config_.oplog_max_entries) return 0;
  const uint64_t bound_ts = next_ts_ - config_.oplog_max_entries - (planted::active(planted::Bug::kOplogTrimOffByOne) ? 1 : 0);
  const uint64_t keep_from = std::min(bound_ts, visible_below());
  if (keep_from <= first_ts_) return 0;  // an open transaction holds the oldest entry's ts
  WT_SESSION* s = op.session();
  WT_CURSOR* start = nullptr;
  WT_CURSOR* stop = nullptr;
  int ret = s->open_cursor(s, kUri, nullptr, nullptr, &start);
  if (ret == 0) ret = s->open_cursor(s, kUri, nullptr, nullptr, &stop);
  if (ret == 0) ret = op.begin();
  if (ret == 0) {
    start->set_key(start, static_cast<int64_t>(first_ts_));
    stop->set_key(stop, static_cast<int64_t>(keep_from - 1));
    ret = s->truncate(s, nullptr, start, stop, nullptr);
    if (ret == 0) {
      ret = op.commit();
    } else {
      op.rollback();
    }
  }
  if (stop != nullptr) stop->close(stop);
  if (start != nullptr) start->close(start);
  if (ret != 0) return ret == WT_ROLLBACK ? 0 : ret;  // a conflict: the next round trims
  first_ts_ = keep_from;
  return 0;
}

}  // namespace wtsim::engine
