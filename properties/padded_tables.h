#pragma once
// record_layout's reader: a padded collection's three tables decoded here, from the format they
// are stored in, not with the record store's own decoders (engine/padded_store.cpp), so that a
// decoder that drops, merges or misreads a row cannot hide what the rows say.
//
// The format (engine/padded_store.h states it):
//   records "<table>":          key: 8 bytes big-endian, extent << 32 | place in the extent's list;
//                               value: 4 bytes big-endian allocated length (header included),
//                               4 bytes big-endian offset in the extent, then the document's BSON
//   free list "<table>-free":   key: 8 bytes big-endian, extent << 32 | offset; value: 4 bytes
//                               big-endian length
//   extents "<table>-extents":  key: the extent's number (q); value: its size, 8 bytes in the
//                               machine's order; key -1: paddingFactor, the 8 bytes of a double
#include <wiredtiger.h>

#include <string>

#include "engine/engine.h"
#include "engine/engine_types.h"

namespace wtsim::properties {

// Fills `out`'s persisted part (extents, records, free, record_stored_bytes, padding_factor) from
// the tables of the collection whose record table is `table`. Returns WiredTiger's code, or EINVAL
// for a row that is not in the format (a damaged table: the recovery properties judge it).
int read_padded_tables(WT_SESSION* session, const std::string& table, engine::PaddedLayout* out);

// The whole layout record_layout judges: the tables of collection `ns` as read_padded_tables reads
// them, beside the allocator's memory as `engine` holds it. Returns WiredTiger's code (ENOENT: no
// padded collection `ns`).
int read_padded_layout(WT_SESSION* session, const engine::DocumentEngine& engine, const std::string& ns, engine::PaddedLayout* out);

}  // namespace wtsim::properties
