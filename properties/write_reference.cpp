#include "properties/write_reference.h"

#include <algorithm>
#include <cassert>
#include <limits>

namespace wtsim::properties {
namespace reference {
namespace {

using engine::Document;

// {"$date": ms}: how a BSON Date reads back (engine/document.h documents the form; the test is
// the property's own).
bool is_date(const Document& v) { return v.is_object() && v.size() == 1 && v.contains("$date") && v["$date"].is_number_integer(); }

bool starts_with_dollar(const std::string& key) { return !key.empty() && key[0] == '$'; }

// A condition object of operators ({"$gt": 1}); nullopt when it mixes operators and fields.
std::optional<bool> is_operator_object(const Document& cond) {
  if (!cond.is_object() || cond.empty() || is_date(cond)) return false;
  size_t dollars = 0;
  for (const auto& item : cond.items()) dollars += starts_with_dollar(item.key()) ? 1 : 0;
  if (dollars == 0) return false;
  if (dollars == cond.size()) return true;
  return std::nullopt;
}

std::vector<std::string> split_path(const std::string& path) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    const size_t dot = path.find('.', start);
    parts.push_back(path.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
    if (dot == std::string::npos) return parts;
    start = dot + 1;
  }
}

}  // namespace

PathValue value_at(const Document& doc, const std::string& path) {
  const Document* cur = &doc;
  std::string_view rest = path;  // walked without copies: this runs for every judged write
  while (true) {
    const size_t dot = rest.find('.');
    if (cur->is_array()) return {false, nullptr};
    if (!cur->is_object()) return {true, nullptr};
    const auto it = cur->find(rest.substr(0, dot));
    if (it == cur->end()) return {true, nullptr};
    cur = &*it;
    if (dot == std::string_view::npos) return {true, cur};
    rest.remove_prefix(dot + 1);
  }
}

namespace {

bool equal(const Document& a, const Document& b) {
  if (a.is_number() && b.is_number()) return a.get<double>() == b.get<double>();  // 1 matches 1.0
  return a == b;
}

// An equality condition: the value, or any element of an array value; null matches missing.
bool equality_matches(const Document* v, const Document& wanted) {
  if (v == nullptr) return wanted.is_null();
  if (equal(*v, wanted)) return true;
  if (!v->is_array()) return false;
  for (const Document& e : *v) {
    if (equal(e, wanted)) return true;
  }
  return false;
}

// -1, 0 or 1 within a comparable class (numbers, strings, dates); nullopt otherwise, and
// `comparable` false when the classes differ (MongoDB's range operators never match across them).
std::optional<int> range_compare(const Document& a, const Document& b, bool* comparable) {
  *comparable = true;
  if (a.is_number() && b.is_number()) {
    const double x = a.get<double>(), y = b.get<double>();
    return x < y ? -1 : x > y ? 1 : 0;
  }
  if (a.is_string() && b.is_string()) {
    const int c = a.get_ref<const std::string&>().compare(b.get_ref<const std::string&>());
    return c < 0 ? -1 : c > 0 ? 1 : 0;
  }
  if (is_date(a) && is_date(b)) {
    const int64_t x = a["$date"].get<int64_t>(), y = b["$date"].get<int64_t>();
    return x < y ? -1 : x > y ? 1 : 0;
  }
  const auto kind = [](const Document& v) { return v.is_number() ? 1 : v.is_string() ? 2 : is_date(v) ? 3 : 0; };
  *comparable = false;
  if (kind(a) != 0 && kind(b) != 0) return 2;  // different known classes: no match
  return std::nullopt;
}

std::optional<bool> one_range_matches(const Document& v, const std::string& op, const Document& arg) {
  bool comparable = false;
  const std::optional<int> c = range_compare(v, arg, &comparable);
  if (!c) return std::nullopt;
  if (!comparable) return false;
  if (op == "$gt") return *c > 0;
  if (op == "$gte") return *c >= 0;
  if (op == "$lt") return *c < 0;
  return *c <= 0;  // $lte
}

std::optional<bool> range_matches(const Document* v, const std::string& op, const Document& arg) {
  if (v == nullptr) return false;
  std::optional<bool> any = v->is_array() ? std::optional<bool>(false) : one_range_matches(*v, op, arg);
  if (!v->is_array()) return any;
  for (const Document& e : *v) {
    const std::optional<bool> m = one_range_matches(e, op, arg);
    if (!m) return std::nullopt;
    if (*m) any = true;
  }
  return any;
}

std::optional<bool> operator_matches(const Document* v, const std::string& op, const Document& arg) {
  if (op == "$eq") return equality_matches(v, arg);
  if (op == "$ne") return !equality_matches(v, arg);
  if (op == "$exists") return (v != nullptr) == (arg.is_boolean() ? arg.get<bool>() : arg.is_number() && arg.get<double>() != 0);
  if (op == "$in") {
    if (!arg.is_array()) return std::nullopt;
    for (const Document& a : arg) {
      if (equality_matches(v, a)) return true;
    }
    return false;
  }
  if (op == "$gt" || op == "$gte" || op == "$lt" || op == "$lte") return range_matches(v, op, arg);
  return std::nullopt;
}

std::optional<bool> condition_matches(const Document* v, const Document& cond) {
  const std::optional<bool> operators = is_operator_object(cond);
  if (!operators) return std::nullopt;
  if (!*operators) return equality_matches(v, cond);
  for (const auto& [op, arg] : cond.items()) {
    const std::optional<bool> m = operator_matches(v, op, arg);
    if (!m || !*m) return m;
  }
  return true;
}

// The slot for `path` in `doc`, creating missing objects on the way; nullptr when a value on
// the way is not an object (MongoDB refuses), *unmodelled when it is an array.
Document* slot(Document& doc, const std::string& path, bool* unmodelled) {
  Document* cur = &doc;
  const std::vector<std::string> parts = split_path(path);
  for (size_t i = 0; i < parts.size(); ++i) {
    if (cur->is_array()) {
      *unmodelled = true;
      return nullptr;
    }
    if (!cur->is_object()) return nullptr;
    const bool last = i + 1 == parts.size();
    if (!last && !cur->contains(parts[i])) (*cur)[parts[i]] = Document::object();
    cur = &(*cur)[parts[i]];  // a missing last field starts as null
  }
  return cur;
}

void unset(Document& doc, const std::string& path, bool* unmodelled) {
  const std::vector<std::string> parts = split_path(path);
  Document* cur = &doc;
  for (size_t i = 0; i + 1 < parts.size(); ++i) {
    if (cur->is_array()) *unmodelled = true;
    if (!cur->is_object() || !cur->contains(parts[i])) return;
    cur = &(*cur)[parts[i]];
  }
  if (cur->is_array()) *unmodelled = true;
  if (cur->is_object()) cur->erase(parts.back());
}

// $inc of `slot` (null: a missing field) by `by`; false when MongoDB refuses.
bool increment(Document& slot_value, const Document& by, bool existed, bool* unmodelled) {
  if (!by.is_number()) return false;
  if (!existed) {
    slot_value = by;
    return true;
  }
  if (!slot_value.is_number()) return false;  // null included: "Cannot apply $inc to a value of non-numeric type null"
  if (slot_value.is_number_float() || by.is_number_float()) {
    slot_value = slot_value.get<double>() + by.get<double>();
    return true;
  }
  const int64_t a = slot_value.get<int64_t>(), b = by.get<int64_t>();
  if ((b > 0 && a > std::numeric_limits<int64_t>::max() - b) || (b < 0 && a < std::numeric_limits<int64_t>::min() - b)) {
    *unmodelled = true;  // MongoDB's overflow rules are not modelled
    return false;
  }
  slot_value = a + b;
  return true;
}

bool conflicting(const std::string& a, const std::string& b) {
  const std::string& shorter = a.size() <= b.size() ? a : b;
  const std::string& longer = a.size() <= b.size() ? b : a;
  return longer.compare(0, shorter.size(), shorter) == 0 && (longer.size() == shorter.size() || longer[shorter.size()] == '.');
}

// The paths an operator update names; nullopt when it is not modelled (another operator, _id,
// two operators on one path, which MongoDB refuses as a conflict).
std::optional<std::vector<std::string>> operator_paths(const Document& update, bool* refused) {
  std::vector<std::string> paths;
  for (const auto& [op, fields] : update.items()) {
    if (op != "$set" && op != "$unset" && op != "$inc") return std::nullopt;
    if (!fields.is_object()) {
      *refused = true;
      return paths;
    }
    for (const auto& item : fields.items()) {
      const std::string& path = item.key();
      if (conflicting(path, "_id")) return std::nullopt;
      for (const std::string& seen : paths) {
        if (conflicting(seen, path)) return std::nullopt;
      }
      paths.push_back(path);
    }
  }
  return paths;
}

// What a flat $set or $inc stores in `field` of `pre`; nullopt when MongoDB refuses or the
// increment is not modelled.
std::optional<Document> flat_value(const std::string& op, const Document& pre, const std::string& field, const Document& arg) {
  if (op == "$set") return arg;
  const auto was = pre.find(field);
  Document value = was != pre.end() ? *was : Document();
  bool unmodelled = false;
  if (!increment(value, arg, was != pre.end(), &unmodelled)) return std::nullopt;
  return value;
}

// Every field of `pre` no path names is in `post`, unchanged; returns how many there are.
std::optional<size_t> untouched_kept(const Document& pre, const std::vector<std::string>& paths, const Document& post) {
  size_t kept = 0;
  for (const auto& [field, value] : pre.items()) {
    if (std::find(paths.begin(), paths.end(), field) != paths.end()) continue;
    const auto now = post.find(field);
    if (now == post.end() || !same(value, *now)) return std::nullopt;
    ++kept;
  }
  return kept;
}

std::optional<Document> apply_operators(Document doc, const Document& update) {
  bool refused = false, unmodelled = false;
  if (!operator_paths(update, &refused)) return std::nullopt;
  if (refused) return Document();
  for (const auto& [op, fields] : update.items()) {
    for (const auto& [path, arg] : fields.items()) {
      if (op == "$unset") {
        unset(doc, path, &unmodelled);
        continue;
      }
      const PathValue before = value_at(doc, path);
      Document* target = slot(doc, path, &unmodelled);
      if (unmodelled || !before.modelled) return std::nullopt;
      if (target == nullptr) return Document();
      if (op == "$set") {
        *target = arg;
      } else if (!increment(*target, arg, before.value != nullptr, &unmodelled)) {
        return unmodelled ? std::nullopt : std::optional<Document>(Document());
      }
    }
  }
  if (unmodelled) return std::nullopt;
  return doc;
}

}  // namespace

std::optional<bool> matches(const Document& doc, const Document& filter) {
  if (!filter.is_object()) return std::nullopt;
  for (const auto& [path, cond] : filter.items()) {
    if (starts_with_dollar(path)) return std::nullopt;  // $and, $or, ...: not modelled
    const PathValue at = value_at(doc, path);
    if (!at.modelled) return std::nullopt;
    const std::optional<bool> m = condition_matches(at.value, cond);
    if (!m || !*m) return m;
  }
  return true;
}

std::optional<bool> stored_by_flat_update(const Document& pre, const Document& update, const Document& post) {
  if (!pre.is_object() || !post.is_object() || is_operator_object(update) != true) return std::nullopt;
  bool refused = false;
  const std::optional<std::vector<std::string>> paths = operator_paths(update, &refused);
  if (!paths || refused) return std::nullopt;
  size_t stored = 0;  // fields $set or $inc wrote
  for (const auto& [op, fields] : update.items()) {
    for (const auto& [field, arg] : fields.items()) {
      if (field.find('.') != std::string::npos) return std::nullopt;
      const auto now = post.find(field);
      if (op == "$unset") {
        if (now != post.end()) return false;
        continue;
      }
      const std::optional<Document> value = flat_value(op, pre, field, arg);
      if (!value) return std::nullopt;
      if (now == post.end() || !same(*now, *value)) return false;
      ++stored;
    }
  }
  const std::optional<size_t> kept = untouched_kept(pre, *paths, post);
  return kept && *kept + stored == post.size();
}

std::optional<Document> updated(const Document& doc, const Document& update) {
  if (!update.is_object()) return std::nullopt;
  const std::optional<bool> operators = is_operator_object(update);
  if (!operators) return Document();  // operators beside fields: refused
  if (*operators) return apply_operators(doc, update);
  Document replaced = update;  // a replacement keeps _id
  if (doc.contains("_id")) {
    if (replaced.contains("_id") && !same(replaced["_id"], doc["_id"])) return Document();  // _id is immutable
    replaced["_id"] = doc["_id"];
  }
  return replaced;
}

std::optional<Document> upsert_base(const Document& filter) {
  if (!filter.is_object()) return std::nullopt;
  Document base = Document::object();
  for (const auto& [path, cond] : filter.items()) {
    if (starts_with_dollar(path)) return std::nullopt;
    const std::optional<bool> operators = is_operator_object(cond);
    if (!operators) return std::nullopt;
    const Document* value = &cond;
    if (*operators) {
      if (cond.contains("$in")) return std::nullopt;  // a one-value $in's upsert differs across versions
      if (!cond.contains("$eq")) continue;          // ranges give the new document nothing
      value = &cond["$eq"];
    }
    bool unmodelled = false;
    Document* target = slot(base, path, &unmodelled);
    if (target == nullptr || !target->is_null()) return std::nullopt;  // overlapping equality paths
    *target = *value;
  }
  return base;
}

bool same(const Document& a, const Document& b) {
  if (a.is_number() || b.is_number()) {
    if (!a.is_number() || !b.is_number() || a.is_number_float() != b.is_number_float()) return false;
    return a.is_number_float() ? a.get<double>() == b.get<double>() : a.get<int64_t>() == b.get<int64_t>();
  }
  if (a.type() != b.type()) return false;
  if (a.is_array()) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i) {
      if (!same(a[i], b[i])) return false;
    }
    return true;
  }
  if (!a.is_object()) return a == b;
  if (a.size() != b.size()) return false;
  for (const auto& [key, value] : a.items()) {
    if (!b.contains(key) || !same(value, b[key])) return false;
  }
  return true;
}

}  // namespace reference

std::string shown_briefly(const engine::Document& doc) {
  constexpr size_t kShownBytesMax = 300;
  engine::Document shown = doc;
  if (shown.is_object()) shown.erase("pad");  // filler: long and the same in every version
  std::string text = shown.dump();
  if (text.size() > kShownBytesMax) text = text.substr(0, kShownBytesMax) + "...";
  return text;
}

namespace {

using engine::Document;

std::string brief(const Document& doc) { return shown_briefly(doc); }

Document without_id(Document doc) {
  doc.erase("_id");
  return doc;
}

// `post` equals `expected`; when `expected` has no _id the engine chose one, so _id is not compared.
bool stored_as(const Document& expected, const Document& post) {
  if (expected.contains("_id")) return reference::same(expected, post);
  return reference::same(expected, without_id(post));
}

std::optional<Finding> finding(const WriteCommand& c, const Document& id, const std::string& what) {
  return Finding{Property::kWritesFollowCommands, c.ns + " _id " + id.dump() + ": " + what};
}

std::optional<Finding> check_insert(const WriteCommand& c, const Document* pre, const Document& post) {
  const Document& id = post.at("_id");
  if (pre != nullptr) return finding(c, id, "an insert replaced the existing " + brief(*pre) + " with " + brief(post));
  for (const Document& sent : c.docs) {
    if (sent.is_object() && (!sent.contains("_id") || reference::same(sent["_id"], id)) && stored_as(sent, post)) return std::nullopt;
  }
  return finding(c, id, "an insert stored " + brief(post) + ", which is no document the client sent");
}

// The new version an update or findAndModify must store, given the old one (or, with none, the
// upsert's base); nullopt when not modelled, a null Document when MongoDB refuses the update.
std::optional<Document> expected_version(const WriteCommand& c, const Document* pre) {
  if (pre != nullptr) return reference::updated(*pre, *c.update);
  const bool operators = c.update->is_object() && !c.update->empty() && c.update->begin().key()[0] == '$';
  std::optional<Document> base = reference::upsert_base(*c.filter);
  if (!base) return std::nullopt;
  if (operators) return reference::updated(*base, *c.update);
  Document replaced = *c.update;  // a replacement upsert takes only the filter's _id
  if (!replaced.contains("_id") && base->contains("_id")) replaced["_id"] = (*base)["_id"];
  return replaced;
}

std::optional<Finding> check_change(const WriteCommand& c, const Document* pre, const Document* post) {
  const Document& id = post != nullptr ? post->at("_id") : pre->at("_id");
  const bool deletes = c.kind == WriteCommand::Kind::kDelete || (c.kind == WriteCommand::Kind::kFindAndModify && c.remove);
  if (pre != nullptr) {
    const std::optional<bool> matched = reference::matches(*pre, *c.filter);
    if (matched && !*matched) return finding(c, id, "changed " + brief(*pre) + ", which does not match the filter " + brief(*c.filter));
  }
  if (deletes) {
    if (pre == nullptr || post != nullptr) return finding(c, id, "a delete stored " + brief(post != nullptr ? *post : id));
    return std::nullopt;
  }
  if (post == nullptr) return finding(c, id, "an update deleted " + brief(*pre));
  if (pre == nullptr && !c.upsert) return finding(c, id, "an update without upsert created " + brief(*post));
  // The common case without a copy of the document; anything else, a mismatch included, is
  // judged (and reported) by building the expected version.
  if (pre != nullptr && reference::stored_by_flat_update(*pre, *c.update, *post) == true) return std::nullopt;
  const std::optional<Document> expected = expected_version(c, pre);
  if (!expected) return std::nullopt;
  if (expected->is_null()) return finding(c, id, "MongoDB refuses the update " + brief(*c.update) + ", but it stored " + brief(*post));
  if (!stored_as(*expected, *post)) {
    return finding(c, id, "the update " + brief(*c.update) + " of " + (pre != nullptr ? brief(*pre) : "nothing (upsert)") + " stored " +
                              brief(*post) + ", not " + brief(*expected));
  }
  return std::nullopt;
}

}  // namespace

WriteCommand WriteCommand::make_insert(std::string ns, std::vector<Document> docs) {
  WriteCommand c;
  c.kind = Kind::kInsert;
  c.ns = std::move(ns);
  c.docs = std::move(docs);
  c.single = false;
  return c;
}

WriteCommand WriteCommand::make_update(std::string ns, const Document& filter, const Document& update, bool upsert, bool multi) {
  WriteCommand c;
  c.kind = Kind::kUpdate;
  c.ns = std::move(ns);
  c.filter = &filter;
  c.update = &update;
  c.upsert = upsert;
  c.single = !multi;
  return c;
}

WriteCommand WriteCommand::make_delete(std::string ns, const Document& filter, bool just_one) {
  WriteCommand c;
  c.kind = Kind::kDelete;
  c.ns = std::move(ns);
  c.filter = &filter;
  c.single = just_one;
  return c;
}

WriteCommand WriteCommand::make_find_and_modify(std::string ns, const Document& query, const Document& update, bool remove, bool upsert) {
  WriteCommand c = WriteCommand::make_update(std::move(ns), query, update, upsert, /*multi=*/false);
  c.kind = Kind::kFindAndModify;
  c.remove = remove;
  return c;
}

std::optional<Finding> check_write(WriteCommand& command, const Document* pre, const Document* post) {
  assert(pre != nullptr || post != nullptr);
  if (command.kind == WriteCommand::Kind::kInsert) {
    if (post == nullptr) return std::nullopt;  // a capped collection's trim, in the insert's unit
    ++command.changed;
    return check_insert(command, pre, *post);
  }
  if (++command.changed > 1 && command.single) {
    const Document& id = post != nullptr ? post->at("_id") : pre->at("_id");
    return finding(command, id, "a command for one document changed a second one");
  }
  return check_change(command, pre, post);
}

}  // namespace wtsim::properties
