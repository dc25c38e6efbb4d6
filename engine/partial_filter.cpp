#include "engine/partial_filter.h"

#include <algorithm>
#include <array>

namespace wtsim::engine {
namespace {

bool is_operator_object(const Document& v) { return v.is_object() && !v.empty() && v.begin().key()[0] == '$' && !is_date(v); }

// "" or why one field's condition is refused.
std::string condition_error(const std::string& field, const Document& cond) {
  static constexpr std::array<const char*, 6> kTaken = {"$eq", "$gt", "$gte", "$lt", "$lte", "$exists"};
  if (!is_operator_object(cond)) return "";
  for (const auto& [op, arg] : cond.items()) {
    const bool taken = std::find(kTaken.begin(), kTaken.end(), op) != kTaken.end();
    if (!taken || (op == "$exists" && arg != true)) return "unsupported expression in partial index: " + field + " " + Document{{op, arg}}.dump();
  }
  return "";
}

}  // namespace

std::string partial_filter_error(const Document& filter) {
  if (!filter.is_object()) return "\"partialFilterExpression\" for an index must be a document";
  for (const auto& [field, cond] : filter.items()) {
    if (field.empty() || field[0] == '$') return "unsupported expression in partial index: " + field;
    if (std::string why = condition_error(field, cond); !why.empty()) return why;
  }
  return "";
}

bool query_implies(const Document& query, const Document& partial) {
  for (const auto& [field, cond] : partial.items()) {
    if (!query.contains(field) || query[field] != cond) return false;
  }
  return true;
}

}  // namespace wtsim::engine
