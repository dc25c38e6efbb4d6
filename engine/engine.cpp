#include "engine/engine.h"

#include <cassert>

#include "engine/document.h"
#include "engine/key_string.h"
#include "engine/padded_store.h"
#include "engine/unnamed_tables.h"

namespace wtsim::engine {
namespace {

std::string file_of(const std::string& table_uri) { return table_uri.substr(table_uri.find(':') + 1) + ".wt"; }

}  // namespace

DocumentEngine::DocumentEngine(EngineConfig config, EngineEnv env, WT_CONNECTION* conn)
    : state_(std::move(config), std::move(env), conn),
      oplog_(state_.config),
      writes_(state_, oplog_),
      queries_(state_),
      ddl_(state_, writes_, queries_),
      ttl_(state_, queries_, writes_) {}

int DocumentEngine::open(OperationContext& op) {
  int ret = ddl_.load_catalog(op);
  if (ret == 0) ret = oplog_.open(op);
  if (ret == 0 && state_.config.oplog_term > 0) ret = min_valid_.open(op);  // a replica set's member: it may roll back
  if (ret == 0) ret = ddl_.load_collections(op);
  if (ret == 0) ret = drop_unnamed_tables(op.session(), state_.catalog, &dropped_at_open_);
  return ret;
}

Document DocumentEngine::server_status(OperationContext& op) {
  Document status = state_.metrics.to_json();
  // WiredTiger's per-table statistics, summed over the engine's tables: exact for the engine's own
  // calls, where the connection's totals also count WiredTiger's background threads' metadata work.
  static const std::pair<int, const char*> kCursorStats[] = {
      {WT_STAT_DSRC_CURSOR_INSERT, "cursor insert calls"},
      {WT_STAT_DSRC_CURSOR_NEXT, "cursor next calls"},
      {WT_STAT_DSRC_CURSOR_PREV, "cursor prev calls"},
      {WT_STAT_DSRC_CURSOR_REMOVE, "cursor remove calls"},
      {WT_STAT_DSRC_CURSOR_RESET, "cursor reset calls"},
      {WT_STAT_DSRC_CURSOR_SEARCH, "cursor search calls"},
      {WT_STAT_DSRC_CURSOR_SEARCH_NEAR, "cursor search near calls"},
      {WT_STAT_DSRC_CURSOR_UPDATE, "cursor update calls"},
  };
  std::vector<std::string> tables = {Catalog::kUri};
  if (state_.config.oplog) tables.push_back(kOplogUri);
  for (const auto& [ns, coll] : state_.catalog.collections()) {
    tables.push_back(coll.table);
    if (coll.padded) tables.push_back(padded::free_table(coll)), tables.push_back(padded::extent_table(coll));
    for (const IndexSpec& i : coll.indexes) tables.push_back(i.table);
  }
  std::map<std::string, int64_t> totals;
  for (const auto& [key, name] : kCursorStats) totals[name] = 0;
  WT_SESSION* s = op.session();
  for (const std::string& table : tables) {
    WT_CURSOR* stats = nullptr;
    const std::string uri = "statistics:" + table;
    if (s->open_cursor(s, uri.c_str(), nullptr, nullptr, &stats) != 0) continue;
    for (const auto& [key, name] : kCursorStats) {
      stats->set_key(stats, key);
      const char* desc = nullptr;
      const char* pvalue = nullptr;
      int64_t value = 0;
      if (stats->search(stats) == 0 && stats->get_value(stats, &desc, &pvalue, &value) == 0) totals[name] += value;
    }
    stats->close(stats);
  }
  Document cursor = Document::object();
  for (const auto& [name, value] : totals) cursor[name] = value;
  status["wiredTiger"]["cursor"] = cursor;
  return status;
}

Status DocumentEngine::padded_memory(const std::string& ns, PaddedLayout* out) const {
  const CollectionSpec* coll = state_.catalog.find(ns);
  if (coll == nullptr || !coll->padded) return Status::error(ErrorCode::kNamespaceNotFound);
  const MmapAllocator& memory = state_.allocators.at(ns);
  out->memory_extents = memory.extents();
  out->memory_free = memory.free_regions();
  out->memory_padding_factor = memory.padding_factor();
  return {};
}

Document DocumentEngine::coll_stats(const std::string& ns) const {
  const CollectionSpec* coll = state_.catalog.find(ns);
  if (coll == nullptr) return {{"ok", 0}, {"errmsg", "ns not found"}};
  auto counts = state_.counts.count(ns) ? state_.counts.at(ns) : CollectionCounts{};
  Document index_sizes = Document::object();
  uint64_t total_index = 0;
  for (const IndexSpec& i : coll->indexes) {
    const uint64_t bytes = state_.env.file_bytes ? state_.env.file_bytes(file_of(i.table)) : 0;
    index_sizes[i.name] = bytes;
    total_index += bytes;
  }
  const uint64_t storage = state_.env.file_bytes ? state_.env.file_bytes(file_of(coll->table)) : 0;
  if (coll->padded) {  // MMAPv1's view: extents, not files
    const MmapAllocator& alloc = state_.allocators.at(ns);
    return {{"ns", ns},
            {"count", counts.count},
            {"size", counts.data_bytes},
            {"avgObjSize", counts.count > 0 ? counts.data_bytes / counts.count : 0},
            {"storageSize", alloc.storage_bytes()},
            {"numExtents", alloc.extents().size()},
            {"lastExtentSize", alloc.extents().empty() ? 0 : alloc.extents().back()},
            {"paddingFactor", alloc.padding_factor()},
            {"userFlags", (coll->power_of_2_sizes ? 1 : 0) | (coll->no_padding ? 2 : 0)},
            {"nindexes", coll->indexes.size()},
            {"totalIndexSize", total_index},
            {"indexSizes", index_sizes},
            {"ok", 1}};
  }
  Document stats = {{"ns", ns},
                    {"count", counts.count},
                    {"size", counts.data_bytes},
                    {"avgObjSize", counts.count > 0 ? counts.data_bytes / counts.count : 0},
                    {"storageSize", storage},
                    {"nindexes", coll->indexes.size() + (coll->clustered ? 1 : 0)},  // a clustered one's record store is its _id index
                    {"totalIndexSize", total_index},
                    {"indexSizes", index_sizes},
                    {"capped", coll->capped_max_docs > 0},
                    {"ok", 1}};
  if (coll->capped_max_docs > 0) stats["max"] = coll->capped_max_docs;
  return stats;
}

}  // namespace wtsim::engine
