#pragma once
// WiredTiger 3.2.1's schema operations are not atomic: a crash (or a panic: an I/O error on the
// log) inside create() can leave a table's metadata without its column group, or without its
// file. create() then reports success and every cursor open fails with EINVAL, or create() or the
// cursor open fails with ENOENT (swarm_documents seed 222). Nothing was ever acknowledged in a table
// still being created, so the engine drops the remains and creates it again (findings of the
// crash-at-every-op test, and of swarm_documents seed 100 with MMAPv1 and document locking).
#include <wiredtiger.h>

namespace wtsim::engine {

// Creates `uri` with `config` (a no-op for a whole existing table), or repairs what a cut-short
// create left. Returns WiredTiger's code.
int create_table(WT_SESSION* session, const char* uri, const char* config);

// Whether a cursor open's `ret` says the table is the remains of a cut-short create (EINVAL: no
// column group; ENOENT: no file): nothing was ever committed in it, and create_table repairs it.
bool cut_short(int ret);
// Whether WiredTiger's metadata holds `uri` (false also when the metadata cannot be read).
bool table_exists(WT_SESSION* session, const char* uri);

}  // namespace wtsim::engine
