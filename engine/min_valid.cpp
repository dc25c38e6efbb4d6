#include "engine/min_valid.h"

#include <wiredtiger.h>

#include <cassert>

#include "engine/wt_schema.h"

namespace wtsim::engine {
namespace {

constexpr int64_t kKey = 1;  // one row

}  // namespace

int MinValid::open(OperationContext& op) {
  point_.reset();
  if (!table_exists(op.session(), kUri)) return 0;
  int ret = 0;
  WT_CURSOR* c = op.cursor(kUri, &ret);
  if (c == nullptr) return cut_short(ret) ? 0 : ret;  // a crash cut its create short: no point was written
  c->set_key(c, kKey);
  if ((ret = c->search(c)) == WT_NOTFOUND) return 0;
  if (ret != 0) return ret;
  uint64_t ts = 0;
  int32_t truncated = 0;
  if ((ret = c->get_value(c, &ts, &truncated)) != 0) return ret;
  assert(ts > 0 && (truncated == 0 || truncated == 1));
  point_ = MinValidPoint{ts, truncated == 1};
  return 0;
}

int MinValid::create(OperationContext& op) { return create_table(op.session(), kUri, "key_format=q,value_format=Qi"); }

int MinValid::write(OperationContext& op, const MinValidPoint& point) {
  assert(point.ts > 0);
  int ret = 0;
  WT_CURSOR* c = op.cursor(kUri, &ret);
  if (c == nullptr) return ret;
  c->set_key(c, kKey);
  c->set_value(c, point.ts, static_cast<int32_t>(point.truncated ? 1 : 0));
  return c->insert(c);
}

int MinValid::clear(OperationContext& op) {
  if (!point_) return 0;
  int ret = 0;
  WT_CURSOR* c = op.cursor(kUri, &ret);
  if (c == nullptr) return ret;
  c->set_key(c, kKey);
  ret = c->remove(c);
  return ret == WT_NOTFOUND ? 0 : ret;
}

}  // namespace wtsim::engine
