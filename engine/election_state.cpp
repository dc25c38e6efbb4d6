#include "engine/election_state.h"

#include <wiredtiger.h>

#include <cassert>

#include "engine/wt_schema.h"

namespace wtsim::engine {
namespace {

constexpr int64_t kKey = 1;        // one row
constexpr int64_t kNoVote = -1;    // voted_for when the member has not voted in the term

}  // namespace

int ElectionState::read(OperationContext& op, ElectionRecord* out) {
  *out = ElectionRecord{};
  if (!table_exists(op.session(), kUri)) return 0;
  int ret = 0;
  WT_CURSOR* c = op.cursor(kUri, &ret);
  if (c == nullptr) return cut_short(ret) ? 0 : ret;  // a crash cut its create short: no vote was written
  c->set_key(c, kKey);
  if ((ret = c->search(c)) == WT_NOTFOUND) return 0;
  if (ret != 0) return ret;
  uint64_t term = 0;
  int64_t voted_for = kNoVote;
  if ((ret = c->get_value(c, &term, &voted_for)) != 0) return ret;
  assert(voted_for >= kNoVote && "a vote names a member");
  out->term = term;
  if (voted_for != kNoVote) out->voted_for = static_cast<uint64_t>(voted_for);
  return c->reset(c);
}

int ElectionState::write_durable(OperationContext& op, const ElectionRecord& record) {
  assert(!record.voted_for || *record.voted_for < 1000);
  constexpr const char* kConfig = "key_format=q,value_format=Qq";
  if (!table_exists(op.session(), kUri)) {
    if (const int ret = create_table(op.session(), kUri, kConfig); ret != 0) return ret;
  }
  int ret = op.begin();
  if (ret != 0) return ret;
  WT_CURSOR* c = op.cursor(kUri, &ret);
  if (c == nullptr && cut_short(ret)) {  // the remains of a create a crash cut short: made whole
    op.rollback();
    if ((ret = create_table(op.session(), kUri, kConfig)) != 0 || (ret = op.begin()) != 0) return ret;
    c = op.cursor(kUri, &ret);
  }
  if (c == nullptr) return op.rollback(), ret;
  c->set_key(c, kKey);
  c->set_value(c, record.term, record.voted_for ? static_cast<int64_t>(*record.voted_for) : kNoVote);
  if ((ret = c->insert(c)) != 0) return op.rollback(), ret;
  if ((ret = op.commit()) != 0) return ret;
  return op.flush_log();
}

}  // namespace wtsim::engine
