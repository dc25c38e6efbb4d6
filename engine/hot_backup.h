#pragma once
// WiredTiger 3.2.1's pieces of a hot backup, and the seed's per-table release built from stock
// 3.2.1 (shared/docs/wiredtiger-notes.md, "Hot backup"):
//  - baseline: a `backup:` cursor held for the whole copy pins every checkpoint of every file;
//  - release: a named checkpoint of every table pins a consistent state; a brief backup cursor
//    captures the metadata (WiredTiger.backup) right after it; each table's pin is dropped with a
//    targeted checkpoint once its file is copied, so its next checkpoint reclaims space.
#include <wiredtiger.h>

#include <string>
#include <vector>

namespace wtsim::engine {

constexpr const char* kBackupCheckpoint = "wtsim_backup";

// Opens a backup cursor and lists the files it names. Returns WiredTiger's code; on success the
// caller owns *cursor and closes it with close_backup_cursor().
int open_backup_cursor(WT_SESSION* session, WT_CURSOR** cursor, std::vector<std::string>* files);
int close_backup_cursor(WT_CURSOR* cursor);

// One consistent named checkpoint of every table, with no older checkpoint left beside it.
int pin_backup_checkpoint(WT_SESSION* session);
// The account's backup_release_checkpoint(ident): drops the named checkpoint of one table.
int release_backup_checkpoint(WT_SESSION* session, const std::string& table_uri);
// Drops the named checkpoint everywhere (an abandoned backup).
int drop_backup_checkpoint(WT_SESSION* session);
// The checkpoint names a file's metadata holds (to confirm a pin or a release).
int checkpoints_of(WT_SESSION* session, const std::string& file_uri, std::vector<std::string>* names);

}  // namespace wtsim::engine
