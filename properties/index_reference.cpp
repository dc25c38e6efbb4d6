#include "properties/index_reference.h"

#include <cassert>

#include "engine/key_string.h"
#include "properties/write_reference.h"
#include "sim/random.h"

namespace wtsim::properties {
namespace {

using engine::Document;

// The values of the key pattern's fields, and which one (if any) holds an array; nullopt when
// not modelled.
struct FieldValues {
  std::vector<const Document*> values;
  int array_field = -1;
};

std::optional<FieldValues> field_values(const engine::IndexSpec& index, const Document& doc) {
  static const Document kNull = nullptr;
  FieldValues out;
  for (size_t i = 0; i < index.fields.size(); ++i) {
    const reference::PathValue at = reference::value_at(doc, index.fields[i].first);
    if (!at.modelled) return std::nullopt;
    const Document* v = at.value != nullptr ? at.value : &kNull;
    if (v->is_array()) {
      if (out.array_field >= 0 || v->empty()) return std::nullopt;  // parallel arrays; undefined
      out.array_field = static_cast<int>(i);
    }
    out.values.push_back(v);
  }
  return out;
}

std::string encode(const engine::IndexSpec& index, const FieldValues& f, const Document* element) {
  std::string key;
  for (size_t i = 0; i < f.values.size(); ++i) {
    const Document& v = static_cast<int>(i) == f.array_field ? *element : *f.values[i];
    engine::append_key_value(key, v, index.fields[i].second < 0);
  }
  return key;
}

std::string hex_prefix(const std::string& bytes) {
  constexpr size_t kShownBytesMax = 24;
  static const char* kHex = "0123456789abcdef";
  std::string out;
  for (size_t i = 0; i < bytes.size() && i < kShownBytesMax; ++i) {
    out += kHex[static_cast<uint8_t>(bytes[i]) >> 4];
    out += kHex[static_cast<uint8_t>(bytes[i]) & 15];
  }
  return bytes.size() > kShownBytesMax ? out + "..." : out;
}

std::string key_part(const std::string& entry) { return hex_prefix(entry.substr(0, entry.find('\0'))); }

}  // namespace

std::optional<std::set<std::string>> reference_index_keys(const engine::IndexSpec& index, const Document& doc) {
  if (index.partial_filter) {
    const std::optional<bool> in = reference::matches(doc, *index.partial_filter);
    if (!in) return std::nullopt;
    if (!*in) return std::set<std::string>{};
  }
  const std::optional<FieldValues> f = field_values(index, doc);
  if (!f) return std::nullopt;
  if (f->array_field < 0) return std::set<std::string>{encode(index, *f, nullptr)};
  std::set<std::string> keys;
  for (const Document& element : *f->values[static_cast<size_t>(f->array_field)]) keys.insert(encode(index, *f, &element));
  return keys;
}

void IndexReferenceCheck::Digest::add(std::string_view entry) {
  ++count;
  hash_sum += sim::fnv1a64(entry);
}

IndexReferenceCheck::IndexReferenceCheck(std::string ns, const std::vector<engine::IndexSpec>& indexes, const std::set<size_t>& exact)
    : ns_(std::move(ns)), indexes_(indexes), exact_(exact), per_index_(indexes.size()) {}

void IndexReferenceCheck::add_record(std::string_view rkey, const Document& doc) {
  for (size_t i = 0; i < indexes_.size(); ++i) {
    PerIndex& p = per_index_[i];
    if (!p.judged) continue;
    const std::optional<std::set<std::string>> keys = reference_index_keys(indexes_[i], doc);
    if (!keys) {
      p.judged = false;
      continue;
    }
    for (const std::string& key : *keys) {
      const std::string e = entry(indexes_[i].unique ? key : key + std::string(rkey), rkey);
      p.expected.add(e);
      if (exact_.count(i) != 0) p.expected_exact.emplace(e, doc.value("_id", Document()).dump());
    }
  }
}

void IndexReferenceCheck::add_entry(size_t index, std::string_view key, std::string_view value) {
  assert(index < per_index_.size());
  PerIndex& p = per_index_[index];
  const std::string e = entry(key, value);
  p.held.add(e);
  if (exact_.count(index) != 0) p.held_exact.insert(e);
}

std::set<size_t> IndexReferenceCheck::mismatched() const {
  std::set<size_t> out;
  for (size_t i = 0; i < per_index_.size(); ++i) {
    if (per_index_[i].judged && !(per_index_[i].expected == per_index_[i].held)) out.insert(i);
  }
  return out;
}

std::vector<Finding> IndexReferenceCheck::findings() const {
  std::vector<Finding> out;
  for (size_t i : mismatched()) {
    const PerIndex& p = per_index_[i];
    std::string detail = ns_ + " index " + indexes_[i].name + " holds " + std::to_string(p.held.count) + " entries, its documents give " +
                         std::to_string(p.expected.count);
    for (const auto& [e, id] : p.expected_exact) {
      if (p.held_exact.count(e) != 0) continue;
      detail += "; missing: an entry of _id " + id + " (key " + key_part(e) + ")";
      break;
    }
    for (const std::string& e : p.held_exact) {
      if (p.expected_exact.count(e) != 0) continue;
      detail += "; no document gives: key " + key_part(e);
      break;
    }
    out.emplace_back(Property::kIndexKeysFollowDocuments, detail);
  }
  return out;
}

}  // namespace wtsim::properties
