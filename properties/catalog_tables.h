#pragma once
// no_orphan_tables' reference: which tables may exist after a start, from WiredTiger's own
// metadata and the catalog's raw rows, not from the engine's loaded catalog. A table no row names
// is a dropped collection's or index's, or the remains of a DDL a crash cut short: nothing reads
// it, and left there it holds its disk space for good (the engine drops them at every start, as
// MongoDB drops the idents its catalog does not know).
#include <wiredtiger.h>

#include <string>
#include <vector>

#include "properties/violation.h"

namespace wtsim::properties {

// Every "table:" WiredTiger's metadata lists, and every row of the catalog table, as stored (JSON).
// Returns WiredTiger's code.
int read_tables_and_catalog(WT_SESSION* session, std::vector<std::string>* tables, std::vector<std::string>* catalog_rows);

// Findings (no_orphan_tables) for each table in `tables` that is neither one of the engine's own
// nor named by a row of `catalog_rows`: its "table", each index's "table", and a padded
// collection's two side tables ("<table>-free", "<table>-extents"). None when a row does not parse
// (a damaged catalog is judged by the recovery properties).
std::vector<Finding> check_tables_named(const std::vector<std::string>& tables, const std::vector<std::string>& catalog_rows);

}  // namespace wtsim::properties
