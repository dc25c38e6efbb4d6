#include "engine/query_executor.h"

#include <wiredtiger.h>

#include <algorithm>
#include <cassert>
#include <functional>
#include <map>
#include <set>

#include "sim/planted.h"
#include "engine/index_keys.h"
#include "engine/key_string.h"
#include "engine/padded_store.h"
#include "engine/partial_filter.h"
#include "engine/query_plan.h"
#include "engine/update_ops.h"

namespace wtsim::engine {
namespace {

constexpr uint64_t kYieldEveryWorks = 128;
constexpr sim::Nanos kYieldEveryNs = 10 * sim::kNsPerMs;
const std::string kPastEveryEntry(16, '\xff');  // sorts after any entry sharing a prefix

struct ScanStats {
  uint64_t works = 0, advanced = 0, need_time = 0, need_yield = 0, save_state = 0, restore_state = 0;
  uint64_t keys_examined = 0, seeks = 0, dups_tested = 0, dups_dropped = 0, docs_examined = 0;
  bool is_eof = false;
};

// Receives each matching document with its record key; returns false to stop.
using Visitor = std::function<bool(const std::string& rkey, const Document& doc)>;

// Hooks for yielding: release and re-acquire locks around a scheduler yield.
struct Yielder {
  sim::Simulator* sim = nullptr;
  std::function<void()> release, reacquire;
  sim::Nanos last_ns = 0;
  sim::Buggify* buggify = nullptr;
  bool due(const ScanStats& s) const {
    if (sim != nullptr && sim::buggify(buggify, "yield_at_every_work")) return true;
    return sim != nullptr && (s.works % kYieldEveryWorks == 0 || sim->now_ns() - last_ns >= kYieldEveryNs);
  }
};

int fetch(OperationContext& op, const CollectionSpec& coll, const std::string& rkey, std::optional<Document>* out) {
  int ret = 0;
  WT_CURSOR* c = op.cursor(coll.table, &ret);
  if (c == nullptr) return ret;
  WT_ITEM key = item_of(rkey);
  c->set_key(c, &key);
  ret = c->search(c);
  if (ret == WT_NOTFOUND) return 0;
  if (ret != 0) return ret;
  WT_ITEM value;
  if ((ret = c->get_value(c, &value)) != 0) return ret;
  *out = record_document(coll, value.data, value.size);
  return 0;
}

// The record key of the document whose _id is `id`: the _id itself in a clustered collection,
// else what the _id index holds for it. Empty: no such document.
int rkey_of_id(OperationContext& op, const CollectionSpec& coll, const Document& id, std::string* rkey) {
  rkey->clear();
  if (coll.clustered) return *rkey = record_key(id), 0;
  assert(!coll.indexes.empty() && coll.indexes.front().is_id());
  int ret = 0;
  WT_CURSOR* c = op.cursor(coll.indexes.front().table, &ret);
  if (c == nullptr) return ret;
  const std::string entry = key_of(id);  // a unique index's entry is the value alone
  WT_ITEM key = item_of(entry);
  c->set_key(c, &key);
  if ((ret = c->search(c)) != 0) return ret == WT_NOTFOUND ? 0 : ret;
  WT_ITEM value;
  if ((ret = c->get_value(c, &value)) == 0) *rkey = string_of(value);
  return ret;
}

class Scan {
 public:
  Scan(OperationContext& op, const CollectionSpec& coll, const QueryPlan& plan, const Document& filter, Yielder y)
      : op_(op), coll_(coll), plan_(plan), filter_(filter), yielder_(std::move(y)) {}

  int run(const Visitor& visit) {
    switch (plan_.kind) {
      case QueryPlan::Kind::kIdHack: return id_hack(visit);
      case QueryPlan::Kind::kIndexScan: return index_scan(visit);
      case QueryPlan::Kind::kCollScan: return coll_scan(visit);
    }
    return 0;
  }
  const ScanStats& stats() const { return stats_; }
  // The index range the scan's cursor stepped through, [from, to) (to: nullopt for the end of the
  // index), or nullopt for a scan that used no index range. Deleted entries there cost time.
  struct Walk {
    std::string table, from;
    std::optional<std::string> to;
  };
  std::optional<Walk> walked() const { return walked_; }

 private:
  int id_hack(const Visitor& visit) {
    std::optional<Document> doc;
    std::string rkey;
    ++stats_.works;
    ++stats_.keys_examined;
    int ret = rkey_of_id(op_, coll_, plan_.id, &rkey);
    if (ret == 0 && !rkey.empty()) ret = fetch(op_, coll_, rkey, &doc);
    if (ret == 0 && doc) {
      ++stats_.docs_examined;
      if (matches(*doc, filter_)) ++stats_.advanced, visit(rkey, *doc);
    }
    stats_.is_eof = true;
    return ret;
  }

  // Positions `c` at the first entry of the scan, or after `resume` (an entry already seen).
  int position(WT_CURSOR* c, const std::optional<std::string>& resume, int* exact) {
    ++stats_.seeks;
    std::string target;
    if (resume) {
      target = *resume;
    } else if (!plan_.backward && plan_.low) {
      target = plan_.low->key;
    } else if (plan_.backward && plan_.high) {
      target = plan_.high->key + kPastEveryEntry;
    } else {
      *exact = 0;
      return plan_.backward ? c->prev(c) : c->next(c);
    }
    WT_ITEM key = item_of(target);
    c->set_key(c, &key);
    int ret = c->search_near(c, exact);
    if (ret != 0) return ret;
    // Resumed: step off the saved entry if it is still there, not off the next one if it is gone.
    const bool planted_step = planted::active(planted::Bug::kSeekStepsPastLanding);
    const bool skip = plan_.backward ? (*exact > 0 || (resume && *exact == 0) || planted_step) : (*exact < 0 || (resume && *exact == 0) || planted_step);
    if (skip) ret = plan_.backward ? c->prev(c) : c->next(c);
    return ret;
  }

  // -1 before the bounds (skip), 0 inside, 1 past them (end).
  int against_bounds(const std::string& entry) const {
    const std::string first = entry.substr(0, encoded_value_length(entry, 0));
    const std::optional<Bound>& end_bound = plan_.backward ? plan_.low : plan_.high;
    const std::optional<Bound>& start_bound = plan_.backward ? plan_.high : plan_.low;
    auto past = [&](const Bound& b, bool beyond_is_greater) {
      const int c = first.compare(b.key);
      return beyond_is_greater ? (c > 0 || (c == 0 && !b.inclusive)) : (c < 0 || (c == 0 && !b.inclusive));
    };
    if (end_bound && past(*end_bound, !plan_.backward)) return 1;
    if (start_bound && first.compare(start_bound->key) == 0 && !start_bound->inclusive) return -1;
    return 0;
  }

  int index_scan(const Visitor& visit) {
    int ret = 0;
    WT_CURSOR* c = op_.cursor(plan_.index->table, &ret);
    if (c == nullptr) return ret;
    int exact = 0;
    ret = position(c, std::nullopt, &exact);
    std::set<std::string> seen;
    std::optional<std::string> last;  // the entry the cursor is on
    while (ret == 0) {
      ++stats_.works;
      WT_ITEM key, value;
      if ((ret = c->get_key(c, &key)) != 0 || (ret = c->get_value(c, &value)) != 0) break;
      const std::string entry = string_of(key);
      last = entry;
      const int where = against_bounds(entry);
      if (where > 0) break;
      ++stats_.keys_examined;
      if (where == 0 && (ret = visit_entry(string_of(value), seen, visit)) != 0) break;
      if (stopped_) return note_walk(last), 0;
      if (yielder_.due(stats_)) {
        if ((ret = yield()) != 0) break;
        c = op_.cursor(plan_.index->table, &ret);
        if (c == nullptr) break;
        ret = position(c, entry, &exact);
        continue;
      }
      ret = plan_.backward ? c->prev(c) : c->next(c);
    }
    if (ret == WT_NOTFOUND) ++stats_.works;  // the work that finds the end of the index
    if (ret == WT_NOTFOUND || last) note_walk(ret == WT_NOTFOUND ? std::nullopt : last);  // a failed seek walked nothing
    stats_.is_eof = ret == WT_NOTFOUND || ret == 0;
    return ret == WT_NOTFOUND ? 0 : ret;
  }

  // From the scan's start to `stop` (the entry it stopped on; nullopt: it ran off the index's end).
  void note_walk(const std::optional<std::string>& stop) {
    if (!plan_.backward) {
      walked_ = Walk{plan_.index->table, plan_.low ? plan_.low->key : "", stop};
      return;
    }
    const std::optional<std::string> upper = plan_.high ? std::optional<std::string>(plan_.high->key + kPastEveryEntry) : std::nullopt;
    walked_ = Walk{plan_.index->table, stop ? *stop + '\0' : "", upper};
  }

  int visit_entry(const std::string& rkey, std::set<std::string>& seen, const Visitor& visit) {
    ++stats_.dups_tested;
    if (!seen.insert(rkey).second) {
      ++stats_.dups_dropped;
      ++stats_.need_time;
      return 0;
    }
    std::optional<Document> doc;
    const int ret = fetch(op_, coll_, rkey, &doc);
    if (ret != 0) return ret;
    if (doc) ++stats_.docs_examined;
    if (!doc || !matches(*doc, filter_)) {
      ++stats_.need_time;
      return 0;
    }
    ++stats_.advanced;
    if (!visit(rkey, *doc)) stopped_ = true;
    return 0;
  }

  int coll_scan(const Visitor& visit) {
    int ret = 0;
    WT_CURSOR* c = op_.cursor(coll_.table, &ret);
    if (c == nullptr) return ret;
    ++stats_.seeks;
    ret = c->next(c);
    while (ret == 0) {
      ++stats_.works;
      WT_ITEM key, value;
      if ((ret = c->get_key(c, &key)) != 0 || (ret = c->get_value(c, &value)) != 0) break;
      const std::string rkey = string_of(key);
      const Document doc = record_document(coll_, value.data, value.size);
      ++stats_.docs_examined;
      if (matches(doc, filter_)) {
        ++stats_.advanced;
        if (!visit(rkey, doc)) return 0;
      } else {
        ++stats_.need_time;
      }
      if (yielder_.due(stats_)) {
        if ((ret = yield()) != 0) break;
        if ((c = op_.cursor(coll_.table, &ret)) == nullptr) break;
        WT_ITEM resume = item_of(rkey);
        c->set_key(c, &resume);
        int exact = 0;
        ++stats_.seeks;
        if ((ret = c->search_near(c, &exact)) == 0 && exact <= 0) ret = c->next(c);
        continue;
      }
      ret = c->next(c);
    }
    stats_.is_eof = true;
    return ret == WT_NOTFOUND ? 0 : ret;
  }

  int yield() {
    ++stats_.save_state;
    op_.rollback();
    if (yielder_.release) yielder_.release();
    yielder_.sim->yield();
    if (yielder_.reacquire) yielder_.reacquire();
    yielder_.last_ns = yielder_.sim->now_ns();
    ++stats_.restore_state;
    return op_.begin();
  }

  OperationContext& op_;
  const CollectionSpec& coll_;
  const QueryPlan& plan_;
  const Document& filter_;
  Yielder yielder_;
  ScanStats stats_;
  bool stopped_ = false;
  std::optional<Walk> walked_;
};

Document stage_json(const QueryPlan& plan, const ScanStats& s, bool with_stats, uint64_t limit, size_t returned) {
  Document leaf;
  if (plan.kind == QueryPlan::Kind::kIdHack) {
    leaf = {{"stage", "IDHACK"}};
  } else if (plan.kind == QueryPlan::Kind::kCollScan) {
    leaf = {{"stage", "COLLSCAN"}, {"direction", "forward"}};
  } else {
    Document pattern = Document::object();
    for (const auto& [f, d] : plan.index->fields) pattern[f] = d;
    leaf = {{"stage", "IXSCAN"}, {"keyPattern", pattern}, {"indexName", plan.index->name},
            {"direction", plan.backward ? "backward" : "forward"}, {"indexBounds", plan.bounds_explain}};
  }
  if (with_stats) {
    leaf.update({{"works", s.works}, {"advanced", s.advanced}, {"needTime", s.need_time}, {"needYield", s.need_yield},
                 {"saveState", s.save_state}, {"restoreState", s.restore_state}, {"isEOF", s.is_eof ? 1 : 0}});
    if (plan.kind == QueryPlan::Kind::kIndexScan) {
      leaf.update({{"keysExamined", s.keys_examined}, {"seeks", s.seeks}, {"dupsTested", s.dups_tested},
                   {"dupsDropped", s.dups_dropped}});
    } else {
      leaf["docsExamined"] = s.docs_examined;
    }
  }
  Document root = leaf;
  if (plan.kind == QueryPlan::Kind::kIndexScan) {
    root = {{"stage", "FETCH"}, {"inputStage", leaf}};
    if (with_stats) root.update({{"nReturned", s.advanced}, {"docsExamined", s.docs_examined}});
  }
  if (plan.sort_in_memory) root = {{"stage", "SORT"}, {"inputStage", root}};
  if (limit > 0) {
    root = {{"stage", "LIMIT"}, {"limitAmount", limit}, {"inputStage", root}};
    if (with_stats) root["nReturned"] = returned;
  }
  return root;
}

// A sort no index provides (SORT stage), then the limit.
void sort_and_limit(const std::pair<std::string, int>& sort, uint64_t limit, std::vector<Document>* docs) {
  const auto& [field, dir] = sort;
  std::stable_sort(docs->begin(), docs->end(), [&](const Document& a, const Document& b) {
    static const Document kNull = nullptr;
    const Document* va = get_path(a, field);
    const Document* vb = get_path(b, field);
    const int c = compare_values(va ? *va : kNull, vb ? *vb : kNull);
    return dir < 0 ? c > 0 : c < 0;
  });
  if (limit > 0 && docs->size() > limit) docs->resize(limit);
}

// explain("executionStats") of a finished find.
Document explain_of(const std::string& ns, const QueryPlan& plan, const ScanStats& s, uint64_t limit, size_t returned,
                    sim::Nanos elapsed_ns) {
  return {{"queryPlanner", {{"namespace", ns}, {"winningPlan", stage_json(plan, s, false, limit, 0)}}},
          {"executionStats",
           {{"nReturned", returned},
            {"executionTimeMillis", elapsed_ns / sim::kNsPerMs},
            {"totalKeysExamined", s.keys_examined},
            {"totalDocsExamined", s.docs_examined},
            {"executionStages", stage_json(plan, s, true, limit, returned)}}}};
}

// The deleted entries a scan's cursor stepped over (engine/deleted_entries.h).
uint64_t deleted_entries_walked(EngineState& state, const Scan& scan) {
  const std::optional<Scan::Walk> walk = scan.walked();
  if (!walk) return 0;
  return state.deleted_entries.walk(walk->table, walk->from, walk->to, state.env.sim->now_ns(), state.config.cost.deleted_entry_evict_ns);
}

}  // namespace

int QueryExecutor::matching_records(OperationContext& op, const CollectionSpec& coll, const Document& filter,
                                     uint64_t limit, std::vector<std::pair<std::string, Document>>* out) {
  const QueryPlan plan = plan_query(coll, filter, std::nullopt, "");
  Scan scan(op, coll, plan, filter, Yielder{});
  return scan.run([&](const std::string& rkey, const Document& doc) {
    out->emplace_back(rkey, doc);
    return limit == 0 || out->size() < limit;
  });
}

TargetKeys QueryExecutor::target_keys(OperationContext& op, const CollectionSpec& coll, const Document& filter,
                                      bool just_one, bool user_op) {
  TargetKeys out;
  const QueryPlan plan = plan_query(coll, filter, std::nullopt, "");
  std::optional<HierarchicalLock> lock;
  lock.emplace(state_.locks, coll.db(), coll.name(), LockMode::kIS, state_.policy_for(coll));
  Yielder y{state_.env.sim, [&] { lock.reset(); }, [&] { lock.emplace(state_.locks, coll.db(), coll.name(), LockMode::kIS, state_.policy_for(coll)); },
            state_.env.sim->now_ns(), state_.env.buggify};
  if (!(out.status = Status::from_wt(op.begin())).ok()) return out;
  Scan scan(op, coll, plan, filter, y);
  out.status = Status::from_wt(scan.run([&](const std::string& rkey, const Document&) {
    out.keys.push_back(rkey);
    return !just_one;
  }));
  op.rollback();
  if (user_op) {  // TTL scans do not count as the query executor's (they have metrics.ttl)
    state_.metrics.query_executor.scanned += scan.stats().keys_examined;
    state_.metrics.query_executor.scanned_objects += scan.stats().docs_examined;
  }
  state_.pay_scan_cost(scan.stats().keys_examined, scan.stats().docs_examined, deleted_entries_walked(state_, scan));
  return out;
}

namespace {
// The planted bug kFindResultsCached ("repeated queries are common"): results kept per query and
// never invalidated by a write.
std::vector<Document>* planted_result_cache(const std::string& ns, const Document& filter) {
  static std::map<std::string, std::vector<Document>> cache;
  return &cache[ns + filter.dump()];
}
}  // namespace

namespace {

Document padded_disk_loc(OperationContext& op, const CollectionSpec& coll, const std::string& rkey) {
  int ret = 0;
  WT_CURSOR* c = op.cursor(coll.table, &ret);
  if (c == nullptr) return Document();
  WT_ITEM k = item_of(rkey), v;
  c->set_key(c, &k);
  if (c->search(c) != 0 || c->get_value(c, &v) != 0) return Document();
  return static_cast<int64_t>(padded::loc_of(rkey, v.data, v.size).packed());
}

// MMAPv1's DiskLoc (extent, offset), packed; WiredTiger's RecordId; a clustered key in hex.
Document record_id(OperationContext& op, const CollectionSpec& coll, const std::string& rkey) {
  if (coll.padded) return padded_disk_loc(op, coll, rkey);
  if (!coll.clustered) return static_cast<int64_t>(record_id_of(rkey));
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  for (const char c : rkey) hex += {kHex[(c >> 4) & 0xf], kHex[c & 0xf]};
  return hex;
}

}  // namespace

FindResult QueryExecutor::find(OperationContext& op, const std::string& ns, const FindRequest& req) {
  FindResult result;
  if (req.user_query) ++state_.metrics.opcounters.query;
  const CollectionSpec* coll = state_.catalog.find(ns);
  if (coll == nullptr) return result;  // a missing collection reads as empty, as MongoDB
  if (!req.hint.empty() && coll->index(req.hint) == nullptr) {
    result.status = Status::error(ErrorCode::kBadValue);
    result.error = "hint provided does not correspond to an existing index";
    return result;
  }
  if (const IndexSpec* hinted = coll->index(req.hint); hinted != nullptr && !req.hint.empty() && hinted->partial_filter &&
                                                      !query_implies(req.filter, *hinted->partial_filter)) {
    result.status = Status::error(ErrorCode::kBadValue);  // MongoDB finds no plan for it
    result.error = "hint names a partial index whose filter the query does not imply";
    return result;
  }
  const sim::Nanos start_ns = state_.env.sim->now_ns();
  const QueryPlan plan = plan_query(*coll, req.filter, req.sort, req.hint);
  std::optional<HierarchicalLock> lock;
  lock.emplace(state_.locks, coll->db(), coll->name(), LockMode::kIS, state_.policy_for(*coll));
  Yielder y{state_.env.sim, [&] { lock.reset(); }, [&] { lock.emplace(state_.locks, coll->db(), coll->name(), LockMode::kIS, state_.policy_for(*coll)); },
            start_ns, state_.env.buggify};
  std::vector<Document>* cached = planted::active(planted::Bug::kFindResultsCached) && req.user_query ? planted_result_cache(ns, req.filter) : nullptr;
  if (cached != nullptr && !cached->empty()) return result.docs = *cached, result;
  if (!(result.status = Status::from_wt(op.begin())).ok()) return result;
  Scan scan(op, *coll, plan, req.filter, y);
  const bool early_limit = req.limit > 0 && !plan.sort_in_memory;
  result.status = Status::from_wt(scan.run([&](const std::string& rkey, const Document& doc) {
    result.docs.push_back(doc);
    if (req.show_record_id) result.docs.back()["$recordId"] = record_id(op, *coll, rkey);
    return !early_limit || result.docs.size() < req.limit;
  }));
  op.rollback();
  if (plan.sort_in_memory) sort_and_limit(*req.sort, req.limit, &result.docs);
  if (cached != nullptr && result.status.ok()) *cached = result.docs;
  const ScanStats& s = scan.stats();
  if (req.user_query) state_.metrics.document.returned += result.docs.size();
  state_.metrics.query_executor.scanned += s.keys_examined;
  state_.metrics.query_executor.scanned_objects += s.docs_examined;
  result.deleted_entries_stepped = deleted_entries_walked(state_, scan);
  state_.pay_scan_cost(s.keys_examined, s.docs_examined, result.deleted_entries_stepped);
  result.explain = explain_of(ns, plan, s, req.limit, result.docs.size(), state_.env.sim->now_ns() - start_ns);
  return result;
}

}  // namespace wtsim::engine
