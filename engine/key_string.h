#pragma once
// An order-preserving byte encoding of index key values (the idea of MongoDB's KeyString): the
// byte order of encodings equals compare_values() order, so WiredTiger's default collator sorts
// index entries correctly. Each value is a type byte then a type-specific body.
#include <cstdint>
#include <string>
#include <string_view>

#include "engine/document.h"

namespace wtsim::engine {

// Appends the encoding of `v`; `descending` inverts every byte so that a -1 index sorts in reverse.
void append_key_value(std::string& out, const Document& v, bool descending = false);
std::string key_of(const Document& v);

// The record-store key of a document in a clustered collection: the encoding of its _id.
inline std::string record_key(const Document& id) { return key_of(id); }

// A RecordId as a record-store key: 8 bytes big-endian, so that WiredTiger's byte order is RecordId
// order (MongoDB's WiredTiger record store keys its table by RecordId; a collection scan returns
// documents in the order they were inserted).
std::string record_id_key(uint64_t id);
uint64_t record_id_of(std::string_view rkey);

}  // namespace wtsim::engine
