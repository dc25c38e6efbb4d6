#include "engine/engine.h"

#include <cassert>

#include "engine/document.h"
#include "engine/key_string.h"
#include "engine/padded_store.h"
#include "engine/wt_schema.h"
#include "sim/planted.h"

namespace wtsim::engine {
namespace {

std::string file_of(const std::string& table_uri) { return table_uri.substr(table_uri.find(':') + 1) + ".wt"; }

const char* kRawTable = "key_format=u,value_format=u";

}  // namespace

DocumentEngine::DocumentEngine(EngineConfig config, EngineEnv env, WT_CONNECTION* conn)
    : config_(std::move(config)), env_(std::move(env)), conn_(conn), locks_(*env_.sim) {
  assert(env_.sim != nullptr && env_.cpu != nullptr);
}

int DocumentEngine::open(OperationContext& op) {
  int ret = catalog_.load(op.session());
  if (ret != 0) return ret;
  if (config_.oplog) {
    if ((ret = create_table(op.session(), kOplogUri, "key_format=q,value_format=u")) != 0) return ret;
    WT_CURSOR* c = op.cursor(kOplogUri, &ret);
    if (c == nullptr) return ret;
    if ((ret = c->prev(c)) == 0) {
      int64_t last = 0;
      c->get_key(c, &last);
      oplog_next_ts_ = static_cast<uint64_t>(last) + 1;
    }
    if (ret == 0 && (ret = c->next(c)) == 0) {
      int64_t first = 0;
      c->get_key(c, &first);
      oplog_first_ts_ = static_cast<uint64_t>(first);
    }
    if (ret != 0 && ret != WT_NOTFOUND) return ret;
  }
  for (const auto& [ns, spec] : catalog_.collections()) {
    if ((ret = recount(op, spec)) != 0) return ret;
    if (!spec.padded) continue;
    allocators_[ns] = MmapAllocator({spec.power_of_2_sizes, spec.no_padding});
    if ((ret = padded::load(op, spec, &allocators_[ns])) != 0) return ret;
  }
  return 0;
}

int DocumentEngine::recount(OperationContext& op, const CollectionSpec& coll) {
  int ret = 0;
  WT_CURSOR* c = op.cursor(coll.table, &ret);
  if (c == nullptr) return ret;
  CollectionCounts counts;
  while ((ret = c->next(c)) == 0) {
    WT_ITEM value;
    c->get_value(c, &value);
    ++counts.count;
    uint32_t record_bytes = 0;
    if (coll.padded) padded::decode(value.data, value.size, &record_bytes);
    counts.data_bytes += coll.padded ? int64_t{record_bytes} - MmapAllocator::kRecordHeaderBytes : static_cast<int64_t>(value.size);
  }
  counts_[coll.ns] = counts;
  return ret == WT_NOTFOUND ? 0 : ret;
}

Status DocumentEngine::create_collection(OperationContext& op, const std::string& ns, CollectionOptions options) {
  if (catalog_.find(ns) != nullptr) return {};
  if (ns.find('.') == std::string::npos) return Status::error(ErrorCode::kBadValue);
  HierarchicalLock lock(locks_, ns.substr(0, ns.find('.')), ns.substr(ns.find('.') + 1), LockMode::kIX, LockPolicy::kCollection);
  CollectionSpec spec;
  spec.ns = ns;
  spec.table = "table:c" + std::to_string(catalog_.next_ident());
  spec.capped_max_docs = options.capped_max_docs;
  spec.padded = options.padded;
  spec.power_of_2_sizes = options.power_of_2_sizes;
  spec.no_padding = options.no_padding;
  WT_SESSION* s = op.session();
  int ret = 0;
  if (spec.padded) {
    // Records are keyed by RecordId, so _id needs an index of its own (unique).
    IndexSpec id{"_id_", {{"_id", 1}}, true, std::nullopt, "table:i" + std::to_string(catalog_.next_ident())};
    spec.indexes.push_back(id);
    ret = padded::create_tables(s, spec);
    if (ret == 0) ret = create_table(s, id.table.c_str(), kRawTable);
    allocators_[ns] = MmapAllocator({spec.power_of_2_sizes, spec.no_padding});
  } else {
    ret = create_table(s, spec.table.c_str(), kRawTable);
  }
  if (ret == 0) ret = save_catalog_durably(op, spec);
  if (ret != 0) return Status::failed(ret);
  ++metrics_.opcounters.command;
  counts_[ns] = {};
  catalog_.put(std::move(spec));
  assert(catalog_.find(ns) != nullptr);
  return {};
}

Status DocumentEngine::create_index(OperationContext& op, const std::string& ns, IndexSpec spec) {
  if (const Status created = create_collection(op, ns); !created.ok()) return created;
  ++metrics_.opcounters.command;
  if (spec.name.empty()) spec.name = default_index_name(spec.fields);
  if (spec.fields.empty()) return Status::error(ErrorCode::kBadValue);
  HierarchicalLock lock(locks_, ns.substr(0, ns.find('.')), ns.substr(ns.find('.') + 1), LockMode::kIX, LockPolicy::kCollection);
  CollectionSpec coll = *catalog_.find(ns);
  if (coll.index(spec.name) != nullptr) return {};  // idempotent, as MongoDB
  spec.table = "table:i" + std::to_string(catalog_.next_ident());
  WT_SESSION* s = op.session();
  int ret = create_table(s, spec.table.c_str(), kRawTable);
  if (ret != 0) return Status::failed(ret);
  coll.indexes.push_back(spec);
  // Build: one transaction that writes every entry and the catalog row (a foreground build).
  if ((ret = op.begin()) != 0) return Status::failed(ret);
  std::vector<std::pair<std::string, Document>> docs;
  ret = matching_records(op, coll, Document::object(), 0, &docs);
  CollectionSpec only_new = coll;
  only_new.indexes = {spec};
  WriteError error;
  for (size_t i = 0; ret == 0 && error.code == ErrorCode::kOk && i < docs.size(); ++i) {
    const auto& [rkey, doc] = docs[i];
    error = WriteError{};
    ret = apply_indexes(op, only_new, rkey, rkey, nullptr, &doc, &error);
  }
  if (ret != 0 || error.code != ErrorCode::kOk) {
    op.rollback();
    return ret != 0 ? Status::failed(ret) : Status::error(error.code);  // a failure outranks an answer
  }
  if ((ret = commit_catalog_row(op, coll)) != 0) return Status::failed(ret);
  catalog_.put(std::move(coll));
  assert(catalog_.find(ns)->index(spec.name) != nullptr);
  return {};
}

Status DocumentEngine::drop_index(OperationContext& op, const std::string& ns, const std::string& name) {
  CollectionSpec* found = catalog_.find_mutable(ns);
  if (found == nullptr) return Status::error(ErrorCode::kNamespaceNotFound);
  ++metrics_.opcounters.command;
  HierarchicalLock lock(locks_, found->db(), found->name(), LockMode::kIX, LockPolicy::kCollection);
  CollectionSpec coll = *found;
  auto it = std::find_if(coll.indexes.begin(), coll.indexes.end(), [&](const IndexSpec& i) { return i.name == name; });
  if (it == coll.indexes.end()) return Status::error(ErrorCode::kIndexNotFound);
  const std::string table = it->table;
  coll.indexes.erase(it);
  const int ret = save_catalog_durably(op, coll);
  if (ret != 0) return Status::failed(ret);
  catalog_.put(std::move(coll));
  op.close_cursors();
  WT_SESSION* s = op.session();
  // The table goes after the catalog stops naming it; a crash in between leaves an orphan table,
  // which is harmless (never read).
  s->drop(s, table.c_str(), "force=true");
  assert(catalog_.find(ns)->index(name) == nullptr);
  return {};
}

Status DocumentEngine::set_expire_after(OperationContext& op, const std::string& ns, const std::string& index,
                                        std::optional<Document> expire_after_seconds) {
  CollectionSpec* found = catalog_.find_mutable(ns);
  if (found == nullptr) return Status::error(ErrorCode::kNamespaceNotFound);
  ++metrics_.opcounters.command;
  // Exclusive, as for every DDL: the copy below is written back after the flush yields, and a
  // dropIndex or createIndex in between would be undone (swarm_documents seed 21, README).
  std::optional<HierarchicalLock> lock;
  if (!planted::active(planted::Bug::kCollModTakesNoLock)) lock.emplace(locks_, found->db(), found->name(), LockMode::kIX, LockPolicy::kCollection);
  CollectionSpec coll = *found;
  bool changed = false;
  for (IndexSpec& i : coll.indexes) {
    if (i.name == index) i.expire_after_seconds = expire_after_seconds, changed = true;
  }
  if (!changed) return Status::error(ErrorCode::kIndexNotFound);
  const int ret = save_catalog_durably(op, coll);
  if (ret != 0) return Status::failed(ret);
  catalog_.put(std::move(coll));
  return {};
}

int DocumentEngine::save_catalog_durably(OperationContext& op, const CollectionSpec& coll) {
  const int ret = op.begin();
  return ret != 0 ? ret : commit_catalog_row(op, coll);
}

// In the open transaction: writes the row, commits, and flushes the journal, since DDL is
// durable before it is acknowledged. The observer sees one durable commit. Ends the
// transaction whatever happens (rolled back if the row cannot be written).
int DocumentEngine::commit_catalog_row(OperationContext& op, const CollectionSpec& coll) {
  assert(!coll.ns.empty() && coll.ns.find('.') != std::string::npos);
  const std::string row = Catalog::row_of(coll);
  int ret = catalog_.save(op.session(), coll.ns, row);
  if (ret != 0) {
    op.rollback();
    return ret;
  }
  const uint64_t ticket = env_.observer != nullptr ? env_.observer->before_catalog_commit(coll.ns, row) : 0;
  ret = op.commit();
  if (env_.observer != nullptr) env_.observer->after_commit(ticket, ret);
  if (ret != 0) return ret;
  ret = planted::active(planted::Bug::kDdlAckedBeforeDurable) ? 0 : op.flush_log();
  if (env_.observer != nullptr) env_.observer->after_flush({ticket}, ret);
  return ret;
}

// A range truncate, as MongoDB's oplog truncation does: one positioning, then a walk (keys need
// not exist: an aborted writer leaves a hole), and no per-entry cursor remove calls.
int DocumentEngine::trim_oplog(OperationContext& op) {
  if (!config_.oplog || oplog_next_ts_ - oplog_first_ts_ <= config_.oplog_max_entries) return 0;
  const uint64_t keep_from = oplog_next_ts_ - config_.oplog_max_entries;
  WT_SESSION* s = op.session();
  WT_CURSOR* start = nullptr;
  WT_CURSOR* stop = nullptr;
  int ret = s->open_cursor(s, kOplogUri, nullptr, nullptr, &start);
  if (ret == 0) ret = s->open_cursor(s, kOplogUri, nullptr, nullptr, &stop);
  if (ret == 0) ret = op.begin();
  if (ret == 0) {
    start->set_key(start, static_cast<int64_t>(oplog_first_ts_));
    stop->set_key(stop, static_cast<int64_t>(keep_from - 1));
    ret = s->truncate(s, nullptr, start, stop, nullptr);
    if (ret == 0) {
      ret = op.commit();
    } else {
      op.rollback();
    }
  }
  if (stop != nullptr) stop->close(stop);
  if (start != nullptr) start->close(start);
  if (ret != 0) return ret == WT_ROLLBACK ? 0 : ret;  // a conflict: the next round trims
  oplog_first_ts_ = keep_from;
  return 0;
}

Document DocumentEngine::server_status(OperationContext& op) {
  Document status = metrics_.to_json();
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
  if (config_.oplog) tables.push_back(kOplogUri);
  for (const auto& [ns, coll] : catalog_.collections()) {
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

Status DocumentEngine::padded_layout(OperationContext& op, const std::string& ns, PaddedLayout* out) {
  const CollectionSpec* coll = catalog_.find(ns);
  if (coll == nullptr || !coll->padded) return Status::error(ErrorCode::kNamespaceNotFound);
  MmapAllocator persisted;
  int ret = padded::load(op, *coll, &persisted);
  if (ret != 0) return Status::failed(ret);
  out->extents = persisted.extents();
  out->free = persisted.free_regions();
  out->padding_factor = persisted.padding_factor();
  const MmapAllocator& memory = allocators_.at(ns);
  out->memory_extents = memory.extents();
  out->memory_free = memory.free_regions();
  out->memory_padding_factor = memory.padding_factor();
  out->records.clear();
  WT_CURSOR* c = op.cursor(coll->table, &ret);
  while (c != nullptr && (ret = c->next(c)) == 0) {
    WT_ITEM key, value;
    c->get_key(c, &key);
    c->get_value(c, &value);
    uint32_t bytes = 0;
    padded::decode(value.data, value.size, &bytes);
    out->records.push_back({padded::loc_of(string_of(key)), bytes});
  }
  return Status::from_wt(ret == WT_NOTFOUND ? 0 : ret);
}

Document DocumentEngine::coll_stats(const std::string& ns) const {
  const CollectionSpec* coll = catalog_.find(ns);
  if (coll == nullptr) return {{"ok", 0}, {"errmsg", "ns not found"}};
  auto counts = counts_.count(ns) ? counts_.at(ns) : CollectionCounts{};
  Document index_sizes = Document::object();
  uint64_t total_index = 0;
  for (const IndexSpec& i : coll->indexes) {
    const uint64_t bytes = env_.file_bytes ? env_.file_bytes(file_of(i.table)) : 0;
    index_sizes[i.name] = bytes;
    total_index += bytes;
  }
  const uint64_t storage = env_.file_bytes ? env_.file_bytes(file_of(coll->table)) : 0;
  if (coll->padded) {  // MMAPv1's view: extents, not files
    const MmapAllocator& alloc = allocators_.at(ns);
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
  return {{"ns", ns},
          {"count", counts.count},
          {"size", counts.data_bytes},
          {"avgObjSize", counts.count > 0 ? counts.data_bytes / counts.count : 0},
          {"storageSize", storage},
          {"nindexes", coll->indexes.size() + 1},  // + the _id index (the record store's key)
          {"totalIndexSize", total_index},
          {"indexSizes", index_sizes},
          {"capped", coll->capped_max_docs > 0},
          {"ok", 1}};
}

}  // namespace wtsim::engine
