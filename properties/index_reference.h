#pragma once
// index_keys_follow_documents: every index holds exactly the entries MongoDB's indexing rules give
// the collection's stored documents, by a key generator of the property's own (not the engine's
// engine/index_keys.h, which both writes the entries and judges them in validate, so a wrong rule
// there passes index_consistency). The rules, from the MongoDB manual's pages on indexes:
// - a key holds the values of the key pattern's fields, in order; a missing field indexes as null;
// - multikey: a field holding an array gives one key per distinct element (a nested array is one
//   element); at most one field of a compound key may hold an array (MongoDB refuses the write);
// - a partial index holds only the documents its partialFilterExpression matches;
// - a unique index's entry is keyed by the values alone, any other's by the values then the record.
// A document the rules are not modelled for (an empty array, which MongoDB indexes as undefined;
// a path through an array; parallel arrays; a filter the write reference does not model) leaves
// its index unjudged: never a false alarm.
//
// The values are encoded with the engine's KeyString encoding (engine/key_string.h): that is the
// byte representation the index stores, not a rule about which keys exist.
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "engine/catalog.h"
#include "engine/document.h"
#include "properties/violation.h"

namespace wtsim::properties {

// The encoded keys `doc` gives `index` (deduplicated, without the record), or nullopt when the
// rules above are not modelled for it.
std::optional<std::set<std::string>> reference_index_keys(const engine::IndexSpec& index, const engine::Document& doc);

// One collection's indexes against its documents: records and index entries are fed in as a
// scan finds them; each index is compared by an order-independent digest, and, for the indexes
// `exact` names (a second scan after a mismatch), entry by entry so that a finding names one.
class IndexReferenceCheck {
 public:
  IndexReferenceCheck(std::string ns, const std::vector<engine::IndexSpec>& indexes, const std::set<size_t>& exact = {});

  // A stored document and its record-store key.
  void add_record(std::string_view rkey, const engine::Document& doc);
  // An entry the index `index` (position in `indexes`) holds.
  void add_entry(size_t index, std::string_view key, std::string_view value);

  // The indexes whose entries differ from the documents' (positions), judged ones only.
  std::set<size_t> mismatched() const;
  std::vector<Finding> findings() const;

 private:
  struct Digest {
    uint64_t count = 0;
    uint64_t hash_sum = 0;
    void add(std::string_view entry);
    bool operator==(const Digest&) const = default;
  };
  struct PerIndex {
    bool judged = true;
    Digest expected, held;
    std::map<std::string, std::string> expected_exact;  // entry -> its document's _id (`exact` indexes only)
    std::set<std::string> held_exact;
  };

  static std::string entry(std::string_view key, std::string_view value) { return std::string(key) + '\0' + std::string(value); }

  std::string ns_;
  const std::vector<engine::IndexSpec>& indexes_;
  std::set<size_t> exact_;
  std::vector<PerIndex> per_index_;
};

}  // namespace wtsim::properties
