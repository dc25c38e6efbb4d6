#include "engine/query_plan.h"

#include "engine/key_string.h"
#include "engine/partial_filter.h"

namespace wtsim::engine {
namespace {

bool is_plain_value(const Document& cond) {
  return !(cond.is_object() && !cond.empty() && cond.begin().key()[0] == '$' && !is_date(cond));
}

// Bounds a filter condition puts on one field, as (low, high) values with inclusivity.
struct ValueBounds {
  std::optional<std::pair<Document, bool>> low, high;
  bool usable = false;
};

ValueBounds bounds_of(const Document& cond) {
  ValueBounds b;
  if (is_plain_value(cond)) {
    if (cond.is_array() || cond.is_object()) return b;  // arrays and subdocuments: no bounds
    b.low = std::make_pair(cond, true);
    b.high = std::make_pair(cond, true);
    b.usable = true;
    return b;
  }
  for (const auto& [op, arg] : cond.items()) {
    if (op == "$eq") b.low = b.high = std::make_pair(arg, true);
    if (op == "$gt") b.low = std::make_pair(arg, false);
    if (op == "$gte") b.low = std::make_pair(arg, true);
    if (op == "$lt") b.high = std::make_pair(arg, false);
    if (op == "$lte") b.high = std::make_pair(arg, true);
  }
  b.usable = b.low.has_value() || b.high.has_value();
  return b;
}

void set_bounds(QueryPlan& plan, const Document& filter) {
  const auto& [field, dir] = plan.index->fields.front();
  if (!filter.contains(field)) {
    plan.bounds_explain[field] = Document::array({"[MinKey, MaxKey]"});
    return;
  }
  ValueBounds vb = bounds_of(filter[field]);
  if (!vb.usable) return;
  auto encode = [&](const std::pair<Document, bool>& v) { Bound b; append_key_value(b.key, v.first, dir < 0); b.inclusive = v.second; return b; };
  std::optional<Bound> low = vb.low ? std::optional<Bound>(encode(*vb.low)) : std::nullopt;
  std::optional<Bound> high = vb.high ? std::optional<Bound>(encode(*vb.high)) : std::nullopt;
  if (dir < 0) std::swap(low, high);  // inverted bytes reverse the order
  plan.low = low;
  plan.high = high;
  const std::string lo = vb.low ? (vb.low->second ? "[" : "(") + vb.low->first.dump() : "[MinKey";
  const std::string hi = vb.high ? vb.high->first.dump() + (vb.high->second ? "]" : ")") : "MaxKey]";
  plan.bounds_explain[field] = Document::array({lo + ", " + hi});
}

// A partial index answers only a query that implies its filter (it lacks the other documents).
bool may_answer(const IndexSpec& index, const Document& filter) {
  return !index.partial_filter || query_implies(filter, *index.partial_filter);
}

const IndexSpec* index_on_filter(const CollectionSpec& coll, const Document& filter) {
  const IndexSpec* range_index = nullptr;
  for (const IndexSpec& i : coll.indexes) {
    if (!may_answer(i, filter)) continue;
    const std::string& first = i.fields.front().first;
    if (!filter.contains(first) || !bounds_of(filter[first]).usable) continue;
    if (is_plain_value(filter[first])) return &i;  // equality beats a range
    if (range_index == nullptr) range_index = &i;
  }
  return range_index;
}

}  // namespace

QueryPlan plan_query(const CollectionSpec& coll, const Document& filter,
                     const std::optional<std::pair<std::string, int>>& sort, const std::string& hint) {
  QueryPlan plan;
  if (!coll.padded && hint.empty() && filter.contains("_id") && is_plain_value(filter["_id"]) && !sort) {
    plan.kind = QueryPlan::Kind::kIdHack;
    plan.id = filter["_id"];
    return plan;
  }
  const IndexSpec* index = hint.empty() ? index_on_filter(coll, filter) : coll.index(hint);
  if (index == nullptr && sort && hint.empty()) {
    for (const IndexSpec& i : coll.indexes) {
      if (i.fields.front().first == sort->first && may_answer(i, filter)) index = &i;
    }
  }
  if (index == nullptr) {
    plan.sort_in_memory = sort.has_value();
    return plan;
  }
  plan.kind = QueryPlan::Kind::kIndexScan;
  plan.index = *index;
  set_bounds(plan, filter);
  if (sort) {
    if (sort->first == index->fields.front().first) {
      plan.backward = sort->second != index->fields.front().second;
    } else {
      plan.sort_in_memory = true;
    }
  }
  return plan;
}

}  // namespace wtsim::engine
