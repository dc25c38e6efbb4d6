#include "engine/index_keys.h"

#include <cassert>

#include "engine/key_string.h"
#include "engine/update_ops.h"
#include "sim/planted.h"

namespace wtsim::engine {

std::vector<std::string> indexed_fields(const CollectionSpec& coll) {
  std::vector<std::string> fields = {"_id"};
  for (const IndexSpec& spec : coll.indexes) {
    for (const auto& [path, direction] : spec.fields) fields.push_back(path.substr(0, path.find('.')));
    if (!spec.partial_filter) continue;  // which documents it holds reads the filter's fields
    for (const auto& [path, cond] : spec.partial_filter->items()) fields.push_back(path.substr(0, path.find('.')));
  }
  return fields;
}

std::set<std::string> index_keys(const IndexSpec& spec, const Document& doc) {
  if (spec.partial_filter && !matches(doc, *spec.partial_filter)) return {};  // not in a partial index
  static const Document kNull = nullptr;
  std::vector<const Document*> values;
  int array_field = -1;
  for (size_t i = 0; i < spec.fields.size(); ++i) {
    const Document* v = get_path(doc, spec.fields[i].first);
    if (v == nullptr) v = &kNull;
    if (v->is_array() && array_field < 0) array_field = static_cast<int>(i);
    values.push_back(v);
  }
  auto encode = [&](const Document* replacement) {
    std::string key;
    for (size_t i = 0; i < values.size(); ++i) {
      const Document& v = static_cast<int>(i) == array_field ? *replacement : *values[i];
      append_key_value(key, v, spec.fields[i].second < 0);
    }
    return key;
  };
  std::set<std::string> keys;
  if (array_field < 0) {
    keys.insert(encode(nullptr));
  } else if (values[array_field]->empty()) {
    keys.insert(encode(&kNull));  // an empty array indexes as null (MongoDB: undefined)
  } else {
    for (const Document& element : *values[array_field]) {
      keys.insert(encode(&element));
      if (planted::active(planted::Bug::kMultikeyFirstElementOnly)) break;
    }
  }
  return keys;
}

std::string index_entry_key(const IndexSpec& spec, const std::string& key, const std::string& rkey) {
  return spec.unique ? key : key + rkey;
}

size_t encoded_value_length(const std::string& key, size_t pos) {
  assert(pos < key.size());
  uint8_t type = static_cast<uint8_t>(key[pos]);
  const bool inverted = type > 127;  // descending fields store every byte inverted
  if (inverted) type = static_cast<uint8_t>(~type);
  switch (type) {
    case 10: return 1;
    case 20:
    case 90: return 9;
    case 80: return 2;
    default: {
      const char end = inverted ? static_cast<char>(0xff) : '\0';
      for (size_t i = pos + 1; i + 1 < key.size(); ++i) {
        if (key[i] == end && key[i + 1] == end) return i + 2 - pos;
        if (key[i] == end) ++i;  // an escaped zero byte
      }
      return key.size() - pos;
    }
  }
}

}  // namespace wtsim::engine
