#pragma once
// backup_leaves_no_pin's reference: which files still hold a named checkpoint, read from
// WiredTiger's own metadata (every "file:" it lists), not from the engine's catalog, so that a
// file the engine forgets (a table no catalog row names, a table of its own bookkeeping) is
// still seen.
#include <wiredtiger.h>

#include <string>
#include <vector>

namespace wtsim::properties {

// The files ("file:NAME.wt") whose checkpoint list names `checkpoint`, in the metadata's order.
// Returns WiredTiger's code.
int files_holding_checkpoint(WT_SESSION* session, const std::string& checkpoint, std::vector<std::string>* files);

}  // namespace wtsim::properties
