#pragma once
// Query planning: which access path answers a filter (IDHACK, IXSCAN + FETCH, or COLLSCAN), and
// the index bounds on an index's first field.
#include <optional>
#include <string>

#include "engine/catalog.h"
#include "engine/document.h"

namespace wtsim::engine {

struct Bound {
  std::string key;  // encoded value of the index's first field (already direction-adjusted)
  bool inclusive = true;
};

struct QueryPlan {
  enum class Kind { kIdHack, kIndexScan, kCollScan } kind = Kind::kCollScan;
  // A copy: DDL may replace the catalog's index list while a scan yields (or waits for its lock).
  std::optional<IndexSpec> index;
  std::optional<Bound> low, high;  // in index byte order
  bool backward = false;           // walk the index in reverse (sort against its direction)
  bool sort_in_memory = false;     // a SORT stage is needed
  Document id;                     // for kIdHack
  Document bounds_explain = Document::object();
};

// `sort` is (field, direction) or nullopt; `hint` an index name or "".
QueryPlan plan_query(const CollectionSpec& coll, const Document& filter,
                     const std::optional<std::pair<std::string, int>>& sort, const std::string& hint);

}  // namespace wtsim::engine
