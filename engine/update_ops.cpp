#include "engine/update_ops.h"

#include "engine/engine_types.h"

#include "sim/planted.h"

namespace wtsim::engine {
namespace {

Document* mutable_path(Document& doc, const std::string& path, bool create) {
  Document* cur = &doc;
  size_t start = 0;
  while (true) {
    const size_t dot = path.find('.', start);
    const std::string part = path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    if (!cur->is_object()) return nullptr;
    if (!cur->contains(part)) {
      if (!create) return nullptr;
      (*cur)[part] = dot == std::string::npos ? Document() : Document::object();
    }
    cur = &(*cur)[part];
    if (dot == std::string::npos) return cur;
    start = dot + 1;
  }
}

void erase_path(Document& doc, const std::string& path) {
  const size_t dot = path.rfind('.');
  Document* parent = dot == std::string::npos ? &doc : mutable_path(doc, path.substr(0, dot), false);
  if (parent != nullptr && parent->is_object()) parent->erase(dot == std::string::npos ? path : path.substr(dot + 1));
}

bool value_matches(const Document& v, const std::string& op, const Document& arg) {
  if (op == "$in") {
    for (const Document& a : arg) {
      if (compare_values(v, a) == 0) return true;
    }
    return false;
  }
  const int c = compare_values(v, arg);
  // Range operators compare only within a type class, as MongoDB does.
  const bool same_class = (v.is_number() && arg.is_number()) || (v.is_string() && arg.is_string()) ||
                          (is_date(v) && is_date(arg)) || (v.type() == arg.type() && !v.is_object());
  if (op == "$eq") return c == 0;
  if (op == "$gt") return same_class && c > 0;
  if (op == "$gte") return same_class && c >= 0;
  if (op == "$lt") return same_class && c < 0;
  if (op == "$lte") return same_class && c <= 0;
  return false;
}

bool is_operator_object(const Document& cond) {
  return cond.is_object() && !cond.empty() && cond.begin().key()[0] == '$' && !is_date(cond);
}

bool field_matches(const Document* v, const Document& cond) {
  if (!is_operator_object(cond)) {
    if (v == nullptr) return cond.is_null();
    if (compare_values(*v, cond) == 0) return true;
    if (v->is_array()) {
      for (const Document& e : *v) {
        if (compare_values(e, cond) == 0) return true;
      }
    }
    return false;
  }
  for (const auto& [op, arg] : cond.items()) {
    if (op == "$exists") {
      if ((v != nullptr) != arg.get<bool>()) return false;
      continue;
    }
    if (op == "$ne") {
      if (field_matches(v, arg)) return false;
      continue;
    }
    if (v == nullptr) return false;
    bool any = value_matches(*v, op, arg);
    if (!any && v->is_array()) {
      for (const Document& e : *v) any = any || value_matches(e, op, arg);
    }
    if (!any) return false;
  }
  return true;
}

}  // namespace

std::string apply_update(Document& doc, const Document& update) {
  if (!update.is_object()) return "update must be an object";
  const bool has_ops = !update.empty() && update.begin().key()[0] == '$';
  if (!has_ops) {
    Document id = doc["_id"];
    doc = update;
    doc["_id"] = id;
    return "";
  }
  for (const auto& [op, fields] : update.items()) {
    if (!fields.is_object()) return op + " needs an object";
    for (const auto& [path, arg] : fields.items()) {
      if (path == "_id") return "the _id field cannot be modified";
      if (op == "$set") {
        *mutable_path(doc, path, true) = arg;
      } else if (op == "$unset") {
        erase_path(doc, path);
      } else if (op == "$inc") {
        if (!arg.is_number()) return "$inc needs a number for " + path;
        Document* target = planted::active(planted::Bug::kIncReadsMissingField) ? &doc.at(path) : mutable_path(doc, path, true);
        if (target->is_null()) *target = 0;
        if (!target->is_number()) return "cannot $inc a non-number at " + path;
        if (target->is_number_integer() && arg.is_number_integer()) {
          *target = target->get<int64_t>() + arg.get<int64_t>();
        } else {
          *target = target->get<double>() + arg.get<double>();
        }
      } else {
        return "unknown update operator " + op;
      }
    }
    if (planted::active(planted::Bug::kUpdateAppliesOneOperator)) break;
  }
  return "";
}

Document upsert_seed(const Document& filter) {
  Document doc = Document::object();
  for (const auto& [path, cond] : filter.items()) {
    if (!is_operator_object(cond)) *mutable_path(doc, path, true) = cond;
  }
  return doc;
}

bool matches(const Document& doc, const Document& filter) {
  for (const auto& [path, cond] : filter.items()) {
    if (!field_matches(get_path(doc, path), cond)) return false;
  }
  return true;
}

// MongoDB 3.2 refuses any change of a capped collection's document's size.
void capped_size_kept(const Document& before, const Document& after, WriteError* error) {
  const size_t old_size = to_bson(before).size(), new_size = to_bson(after).size();
  if (old_size == new_size) return;
  error->code = ErrorCode::kCannotGrowCapped;
  error->message = "Cannot change the size of a document in a capped collection: " + std::to_string(old_size) + " != " + std::to_string(new_size);
}

}  // namespace wtsim::engine
