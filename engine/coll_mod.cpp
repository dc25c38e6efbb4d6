#include "engine/coll_mod.h"

namespace wtsim::engine {
namespace {

CollModPlan refused(ErrorCode code, std::string message) {
  CollModPlan plan;
  plan.result.status = Status::error(code);
  plan.result.message = std::move(message);
  return plan;
}

using Key = std::vector<std::pair<std::string, int>>;

// A key pattern's fields in order: {"f": 1} or [["a", 1], ["b", -1]]; nullopt if it is neither.
std::optional<Key> key_of(const Document& v) {
  Key key;
  const auto direction = [](const Document& d) { return d.is_number_integer() && (d.get<int64_t>() == 1 || d.get<int64_t>() == -1); };
  if (v.is_object() && !v.empty()) {
    for (const auto& [field, dir] : v.items()) {
      if (!direction(dir)) return std::nullopt;
      key.emplace_back(field, dir.get<int>());
    }
    return v.size() == 1 ? std::optional<Key>(key) : std::nullopt;  // a compound key's order needs the array form
  }
  if (!v.is_array() || v.empty()) return std::nullopt;
  for (const Document& part : v) {
    if (!part.is_array() || part.size() != 2 || !part[0].is_string() || !direction(part[1])) return std::nullopt;
    key.emplace_back(part[0].get<std::string>(), part[1].get<int>());
  }
  return key;
}

// The index option's part of the plan.
CollModPlan plan_index(const CollectionSpec& coll, const CollModRequest& r) {
  if (r.key_pattern && r.name) return refused(ErrorCode::kInvalidOptions, "Cannot specify both key pattern and name.");
  if (!r.key_pattern && !r.name) return refused(ErrorCode::kInvalidOptions, "Must specify either index name or key pattern.");
  if (r.name && !r.name->is_string()) return refused(ErrorCode::kInvalidOptions, "Index name must be a string.");
  const std::optional<Key> key = r.key_pattern ? key_of(*r.key_pattern) : std::nullopt;
  if (r.key_pattern && !key) return refused(ErrorCode::kInvalidOptions, "Key pattern must be an object.");
  if (!r.expire_after_seconds) return refused(ErrorCode::kInvalidOptions, "no expireAfterSeconds field");
  if (!r.expire_after_seconds->is_number()) return refused(ErrorCode::kInvalidOptions, "expireAfterSeconds field must be a number");
  std::vector<const IndexSpec*> found;
  for (const IndexSpec& i : coll.indexes) {
    if (r.name ? i.name == r.name->get<std::string>() : i.fields == *key) found.push_back(&i);
  }
  const std::string which = r.name ? r.name->get<std::string>() : r.key_pattern->dump();
  if (found.empty()) return refused(ErrorCode::kIndexNotFound, "cannot find index " + which + " for ns " + coll.ns);
  if (found.size() > 1) {
    return refused(ErrorCode::kAmbiguousIndexKeyPattern,
                   "index keyPattern " + which + " matches " + std::to_string(found.size()) + " indexes, must use index name.");
  }
  const IndexSpec& index = *found.front();
  if (!index.expire_after_seconds) return refused(ErrorCode::kInvalidOptions, "no expireAfterSeconds field to update");
  if (!index.expire_after_seconds->is_number()) return refused(ErrorCode::kInvalidOptions, "existing expireAfterSeconds field is not a number");
  CollModPlan plan;
  plan.index = index.name;
  if (index.expire_after_seconds->get<double>() == r.expire_after_seconds->get<double>()) return plan;  // 100 == 100.0: no change
  plan.store = number_long(*r.expire_after_seconds);
  plan.result.reply = {{"expireAfterSeconds_old", *index.expire_after_seconds}, {"expireAfterSeconds_new", *r.expire_after_seconds}};
  return plan;
}

// MongoDB's BSONElement::trueValue for the values a script gives: false, 0 and null are false.
bool true_value(const Document& v) {
  if (v.is_boolean()) return v.get<bool>();
  if (v.is_number()) return v.get<double>() != 0;
  return !v.is_null();
}

// The flags' part of the plan, after the index's.
CollModPlan with_flags(CollModPlan plan, const CollectionSpec& coll, const CollModRequest& r) {
  if (r.use_power_of_2_sizes) {
    plan.power_of_2_sizes = true_value(*r.use_power_of_2_sizes);
    plan.result.reply.update({{"usePowerOf2Sizes_old", coll.power_of_2_sizes}, {"usePowerOf2Sizes_new", *plan.power_of_2_sizes}});
  }
  if (r.no_padding) {
    plan.no_padding = true_value(*r.no_padding);
    plan.result.reply.update({{"noPadding_old", coll.no_padding}, {"noPadding_new", *plan.no_padding}});
  }
  return plan;
}

}  // namespace

CollModPlan plan_coll_mod(const CollectionSpec& coll, const CollModRequest& r) {
  if (!r.index) return with_flags({}, coll, r);
  CollModPlan plan = plan_index(coll, r);
  return plan.result.status.ok() ? with_flags(std::move(plan), coll, r) : plan;  // 3.4: a refusal applies nothing
}

}  // namespace wtsim::engine
