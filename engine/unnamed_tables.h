#pragma once
// A collection's or index's table that no catalog row names: what a drop leaves (a dropped
// collection's tables stay on disk while an operation may still hold a cursor on them,
// engine/drop.cpp), or a dropIndex that WiredTiger refused as busy, or the remains of a DDL a
// crash cut between its table and its catalog row. Nothing reads them; they only take disk. At
// every start, before anything can open a cursor on them, the engine drops them, as MongoDB's
// storage engine drops the idents its catalog does not know ("dropping unknown ident").
#include <wiredtiger.h>

#include <string>
#include <vector>

#include "engine/catalog.h"

namespace wtsim::engine {

// Drops every table of the engine's that WiredTiger's metadata held when `catalog` loaded
// (Catalog::stored_tables) and that `catalog` does not name, in the metadata's order; `dropped`
// lists them. No cursor may be open on them (at a start none is). Returns WiredTiger's code.
int drop_unnamed_tables(WT_SESSION* session, const Catalog& catalog, std::vector<std::string>* dropped);

}  // namespace wtsim::engine
