#pragma once
// The MMAPv1-style record store on WiredTiger: records keyed by (extent, place in that extent's
// record list), so that a scan in key order is MongoDB's walk of the extent chain and each
// extent's record list; the value holds the allocated length and the offset (the DiskLoc is
// (extent, offset)). The free list and the extents are in tables of their own, so that a move,
// its index rewrites and the free-list change commit atomically in one WiredTiger transaction
// (WiredTiger's log makes them durable). The placement decisions come from MmapAllocator.
#include <wiredtiger.h>

#include <string>
#include <vector>

#include "engine/catalog.h"
#include "engine/document.h"
#include "engine/mmap_allocator.h"
#include "engine/operation_context.h"

namespace wtsim::engine {

namespace padded {

std::string free_table(const CollectionSpec& coll);
std::string extent_table(const CollectionSpec& coll);

int create_tables(WT_SESSION* session, const CollectionSpec& coll);
// Rebuilds the allocator's state from the tables (at open, after recovery).
int load(OperationContext& op, const CollectionSpec& coll, MmapAllocator* alloc);

// In the caller's transaction. `record_bytes` is the allocated length of a record. Inserts and
// in-place updates call the paddingFactor heuristic's fits(), moves its too_small(indexes).
int insert(OperationContext& op, const CollectionSpec& coll, MmapAllocator& alloc, const std::vector<uint8_t>& bson,
           std::string* rkey, uint32_t* record_bytes);
int update(OperationContext& op, const CollectionSpec& coll, MmapAllocator& alloc, const std::string& rkey,
           const std::vector<uint8_t>& bson, int indexes, std::string* new_rkey, uint32_t* old_bytes,
           uint32_t* new_bytes, bool* moved);
int remove(OperationContext& op, const CollectionSpec& coll, MmapAllocator& alloc, const std::string& rkey,
           uint32_t* record_bytes);

// A record-table value: 4-byte allocated length, 4-byte offset in the extent, then the BSON.
constexpr size_t kValueHeaderBytes = 8;
Document decode(const void* data, size_t size, uint32_t* record_bytes = nullptr);
// The record's DiskLoc: the extent from its key, the offset from its value.
RecordLoc loc_of(const std::string& rkey, const void* value, size_t size);

}  // namespace padded

// The document in a record store value, for either kind of collection.
Document record_document(const CollectionSpec& coll, const void* data, size_t size);
// Only the top-level `fields` of the document (all of it if `fields` is null or the bytes are
// damaged): the writes and checks that need a few fields skip decoding the rest.
Document record_view(const CollectionSpec& coll, const void* data, size_t size, const std::vector<std::string>* fields);
// The document's BSON bytes in a record store value (no decoding).
std::string_view record_bson(const CollectionSpec& coll, const void* data, size_t size);

}  // namespace wtsim::engine
