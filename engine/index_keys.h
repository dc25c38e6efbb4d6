#pragma once
// The keys a document contributes to an index: the encoded field values in key-pattern order,
// one key per element when one field holds an array (multikey), deduplicated. A missing field
// indexes as null. A partial index holds only the documents its filter matches.
#include <set>
#include <string>

#include "engine/catalog.h"
#include "engine/document.h"

namespace wtsim::engine {

std::set<std::string> index_keys(const IndexSpec& spec, const Document& doc);

// _id and the top-level fields the collection's indexes read, their partial filters' included (a
// dotted path needs its first part): a document holding just these gives every index key the whole document gives.
std::vector<std::string> indexed_fields(const CollectionSpec& coll);

// The entry stored in the index table: unique indexes key on the values alone (so WiredTiger sees
// two writers of one value as a write conflict), others append the record key.
std::string index_entry_key(const IndexSpec& spec, const std::string& key, const std::string& rkey);

// Length of the first encoded value at `pos` in an index key (for bounds checks).
size_t encoded_value_length(const std::string& key, size_t pos);

}  // namespace wtsim::engine
