#include "world/commit_event.h"

#include <algorithm>
#include <array>
#include <cassert>
#include <string_view>

#include "sim/random.h"
#include "traces/canonical_hash.h"

namespace wtsim::world {
namespace {

nlohmann::json digest_json(const std::optional<uint64_t>& digest) {
  if (!digest) return nullptr;
  return traces::hex16(*digest);
}

uint64_t hash_digest(const std::optional<uint64_t>& digest, uint64_t h) {
  if (!digest) return sim::fnv1a64("null", h);
  char quoted[18];
  quoted[0] = quoted[17] = '"';
  traces::hex16_digits(*digest, quoted + 1);
  return sim::fnv1a64(std::string_view(quoted, sizeof quoted), h);
}

// One member of the details object: where its value comes from.
struct Field {
  enum Kind { kJson, kTrue, kText, kNumber, kWrites } kind;
  std::string_view key;
  const nlohmann::json* json = nullptr;
  const char* text = nullptr;
  uint64_t number = 0;
};

constexpr size_t kFieldsMax = 32;

}  // namespace

nlohmann::json CommitEvent::to_json() const {
  nlohmann::json d = details;
  if (!packed.is_null()) {
    d["writes_n"] = writes_n;
    d["packed"] = packed;
  } else {
    nlohmann::json listed = nlohmann::json::array();
    for (const Write& w : writes) listed.push_back({w.key, digest_json(w.new_digest), digest_json(w.old_digest)});
    d["writes"] = std::move(listed);
  }
  d["seq"] = seq;
  if (durable) d["durable"] = true;  // absent: false (most commits; the trace stays small)
  if (member > 0) d["member"] = member;
  if (fate != nullptr) d["fate"] = fate;
  if (why != nullptr) d["why"] = why;
  if (took_us > 0) d["took_us"] = took_us;
  return d;
}

// The members of to_json()'s object in its key order (nlohmann's objects sort their keys), each
// hashed as the serialiser writes it.
uint64_t CommitEvent::hash_canonical(uint64_t basis) const {
  assert(details.is_object() && details.size() + 8 <= kFieldsMax);
  std::array<Field, kFieldsMax> fields;
  size_t n = 0;
  for (const auto& [key, value] : details.get_ref<const nlohmann::json::object_t&>()) fields[n++] = {Field::kJson, key, &value};
  if (!packed.is_null()) {
    fields[n++] = {Field::kNumber, "writes_n", nullptr, nullptr, writes_n};
    fields[n++] = {Field::kJson, "packed", &packed};
  } else {
    fields[n++] = {Field::kWrites, "writes"};
  }
  fields[n++] = {Field::kNumber, "seq", nullptr, nullptr, seq};
  if (durable) fields[n++] = {Field::kTrue, "durable"};
  if (member > 0) fields[n++] = {Field::kNumber, "member", nullptr, nullptr, member};
  if (fate != nullptr) fields[n++] = {Field::kText, "fate", nullptr, fate};
  if (why != nullptr) fields[n++] = {Field::kText, "why", nullptr, why};
  if (took_us > 0) fields[n++] = {Field::kNumber, "took_us", nullptr, nullptr, static_cast<uint64_t>(took_us)};
  std::sort(fields.begin(), fields.begin() + n, [](const Field& a, const Field& b) { return a.key < b.key; });
  assert(std::adjacent_find(fields.begin(), fields.begin() + n, [](const Field& a, const Field& b) { return a.key == b.key; }) ==
         fields.begin() + n && "the workload's details name none of the history's fields");
  uint64_t h = sim::fnv1a64("{", basis);
  for (size_t i = 0; i < n; ++i) {
    const Field& f = fields[i];
    if (i > 0) h = sim::fnv1a64(",", h);
    h = sim::fnv1a64(":", traces::hash_canonical_string(f.key, h));
    switch (f.kind) {
      case Field::kJson: h = traces::hash_canonical(*f.json, h); break;
      case Field::kTrue: h = sim::fnv1a64("true", h); break;
      case Field::kText: h = traces::hash_canonical_string(f.text, h); break;
      case Field::kNumber: h = traces::hash_canonical_integer(f.number, h); break;
      case Field::kWrites:
        h = sim::fnv1a64("[", h);
        for (size_t w = 0; w < writes.size(); ++w) {
          h = sim::fnv1a64(w > 0 ? ",[" : "[", h);
          h = sim::fnv1a64(",", traces::hash_canonical_string(writes[w].key, h));
          h = sim::fnv1a64(",", hash_digest(writes[w].new_digest, h));
          h = sim::fnv1a64("]", hash_digest(writes[w].old_digest, h));
        }
        h = sim::fnv1a64("]", h);
        break;
    }
  }
  return sim::fnv1a64("}", h);
}

}  // namespace wtsim::world
