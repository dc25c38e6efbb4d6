#include "engine/ddl.h"

#include <algorithm>
#include <cassert>

#include "engine/padded_store.h"
#include "engine/partial_filter.h"
#include "engine/wt_schema.h"
#include "sim/planted.h"

namespace wtsim::engine {
namespace {

const char* kRawTable = "key_format=u,value_format=u";

}  // namespace

int Ddl::load_catalog(OperationContext& op) { return state_.catalog.load(op.session()); }

int Ddl::load_collections(OperationContext& op) {
  int ret = 0;
  for (const auto& [ns, spec] : state_.catalog.collections()) {
    if ((ret = recount(op, spec)) != 0) return ret;
    if (!spec.padded) continue;
    state_.allocators[ns] = MmapAllocator(spec.allocator_options());
    if ((ret = padded::load(op, spec, &state_.allocators[ns])) != 0) return ret;
  }
  assert(state_.counts.size() >= state_.catalog.collections().size());
  return 0;
}

int Ddl::recount(OperationContext& op, const CollectionSpec& coll) {
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
  state_.counts[coll.ns] = counts;
  if (ret != WT_NOTFOUND) return ret;
  return coll.padded || coll.clustered ? 0 : load_last_record_id(c, coll.ns);
}

// The next RecordId follows the highest one stored (MongoDB's record store does the same at open).
int Ddl::load_last_record_id(WT_CURSOR* c, const std::string& ns) {
  uint64_t& last = state_.last_record_ids[ns];
  const int ret = c->prev(c);  // a reset cursor's prev is the last record
  if (ret == WT_NOTFOUND) return last = 0, 0;
  if (ret != 0) return ret;
  WT_ITEM key;
  c->get_key(c, &key);
  last = record_id_of(string_of(key));
  return c->reset(c);
}

Status Ddl::create_collection(OperationContext& op, const std::string& ns, CollectionOptions options) {
  if (state_.catalog.find(ns) != nullptr) return {};
  if (ns.find('.') == std::string::npos) return Status::error(ErrorCode::kBadValue);
  if (options.clustered && options.capped_max_docs > 0) return Status::error(ErrorCode::kInvalidOptions);  // as MongoDB 5.3
  HierarchicalLock lock(state_.locks, ns.substr(0, ns.find('.')), ns.substr(ns.find('.') + 1), LockMode::kIX, LockPolicy::kCollection);
  CollectionSpec spec;
  spec.ns = ns;
  spec.table = "table:c" + std::to_string(state_.catalog.next_ident());
  spec.capped_max_docs = options.capped_max_docs;
  spec.padded = options.padded;
  spec.power_of_2_sizes = options.power_of_2_sizes;
  spec.no_padding = options.no_padding;
  spec.padding_rules = options.padding_rules;
  WT_SESSION* s = op.session();
  int ret = 0;
  spec.clustered = options.clustered && !options.padded;
  if (!spec.clustered) {  // records keyed by RecordId: _id needs an index of its own (unique)
    spec.indexes.push_back({"_id_", {{"_id", 1}}, true, std::nullopt, "table:i" + std::to_string(state_.catalog.next_ident())});
  }
  ret = spec.padded ? padded::create_tables(s, spec) : create_table(s, spec.table.c_str(), kRawTable);
  if (ret == 0 && !spec.clustered) ret = create_table(s, spec.indexes.front().table.c_str(), kRawTable);
  if (spec.padded) state_.allocators[ns] = MmapAllocator(spec.allocator_options());
  if (!spec.padded && !spec.clustered) state_.last_record_ids[ns] = 0;
  if (ret == 0) ret = save_catalog_durably(op, spec);
  if (ret != 0) return Status::failed(ret);
  ++state_.metrics.opcounters.command;
  state_.counts[ns] = {};
  state_.catalog.put(std::move(spec));
  assert(state_.catalog.find(ns) != nullptr);
  return {};
}

Status Ddl::create_index(OperationContext& op, const std::string& ns, IndexSpec spec) {
  if (const Status created = create_collection(op, ns); !created.ok()) return created;
  ++state_.metrics.opcounters.command;
  if (spec.name.empty()) spec.name = default_index_name(spec.fields);
  if (spec.fields.empty()) return Status::error(ErrorCode::kBadValue);
  if (spec.partial_filter && !partial_filter_error(*spec.partial_filter).empty()) return Status::error(ErrorCode::kCannotCreateIndex);
  HierarchicalLock lock(state_.locks, ns.substr(0, ns.find('.')), ns.substr(ns.find('.') + 1), LockMode::kIX, LockPolicy::kCollection);
  CollectionSpec coll = *state_.catalog.find(ns);
  if (coll.index(spec.name) != nullptr) return {};  // idempotent, as MongoDB
  spec.table = "table:i" + std::to_string(state_.catalog.next_ident());
  WT_SESSION* s = op.session();
  int ret = create_table(s, spec.table.c_str(), kRawTable);
  if (ret != 0) return Status::failed(ret);
  coll.indexes.push_back(spec);
  // Build: one transaction that writes every entry and the catalog row (a foreground build).
  if ((ret = op.begin()) != 0) return Status::failed(ret);
  if (const Status built = build_index(op, coll, spec); !built.ok()) {
    op.rollback();
    return built;
  }
  if ((ret = commit_catalog_row(op, coll)) != 0) return Status::failed(ret);
  state_.catalog.put(std::move(coll));
  assert(state_.catalog.find(ns)->index(spec.name) != nullptr);
  return {};
}

Status Ddl::drop_index(OperationContext& op, const std::string& ns, const std::string& name) {
  CollectionSpec* found = state_.catalog.find_mutable(ns);
  if (found == nullptr) return Status::error(ErrorCode::kNamespaceNotFound);
  ++state_.metrics.opcounters.command;
  HierarchicalLock lock(state_.locks, found->db(), found->name(), LockMode::kIX, LockPolicy::kCollection);
  CollectionSpec coll = *found;
  auto it = std::find_if(coll.indexes.begin(), coll.indexes.end(), [&](const IndexSpec& i) { return i.name == name; });
  if (it == coll.indexes.end()) return Status::error(ErrorCode::kIndexNotFound);
  const std::string table = it->table;
  coll.indexes.erase(it);
  const int ret = save_catalog_durably(op, coll);
  if (ret != 0) return Status::failed(ret);
  state_.catalog.put(std::move(coll));
  op.close_cursors();
  WT_SESSION* s = op.session();
  // The table goes after the catalog stops naming it; a crash in between (or WiredTiger refusing
  // a busy table) leaves it unnamed, and the next start drops it (engine/unnamed_tables.h).
  s->drop(s, table.c_str(), "force=true");
  state_.deleted_entries.forget(table);  // no scan walks a dropped index
  assert(state_.catalog.find(ns)->index(name) == nullptr);
  return {};
}

Status Ddl::set_expire_after(OperationContext& op, const std::string& ns, const std::string& index,
                                        std::optional<Document> expire_after_seconds) {
  CollectionSpec* found = state_.catalog.find_mutable(ns);
  if (found == nullptr) return Status::error(ErrorCode::kNamespaceNotFound);
  ++state_.metrics.opcounters.command;
  // Exclusive, as for every DDL: the copy below is written back after the flush yields, and a
  // dropIndex or createIndex in between would be undone (swarm_documents seed 21, docs/findings.md finding 19).
  std::optional<HierarchicalLock> lock;
  if (!planted::active(planted::Bug::kCollModTakesNoLock)) lock.emplace(state_.locks, found->db(), found->name(), LockMode::kIX, LockPolicy::kCollection);
  CollectionSpec coll = *found;
  bool changed = false;
  for (IndexSpec& i : coll.indexes) {
    if (i.name == index) i.expire_after_seconds = expire_after_seconds, changed = true;
  }
  if (!changed) return Status::error(ErrorCode::kIndexNotFound);
  const int ret = save_catalog_durably(op, coll);
  if (ret != 0) return Status::failed(ret);
  state_.catalog.put(std::move(coll));
  return {};
}

CollModResult Ddl::coll_mod(OperationContext& op, const std::string& ns, const CollModRequest& request) {
  const CollectionSpec* coll = state_.catalog.find(ns);
  if (coll == nullptr) return {Status::error(ErrorCode::kNamespaceNotFound), "ns does not exist"};
  CollModPlan plan = plan_coll_mod(*coll, request);
  const bool flags = plan.power_of_2_sizes || plan.no_padding;
  if (!plan.result.status.ok() || (!plan.store && !flags)) {
    ++state_.metrics.opcounters.command;
    return plan.result;
  }
  if (plan.store) plan.result.status = set_expire_after(op, ns, plan.index, Document(*plan.store));
  if (plan.result.status.ok() && flags) plan.result.status = set_flags(op, ns, plan.power_of_2_sizes, plan.no_padding);
  if (!plan.result.status.ok()) plan.result.reply = Document::object();
  return plan.result;
}

Status Ddl::set_flags(OperationContext& op, const std::string& ns, std::optional<bool> power_of_2_sizes, std::optional<bool> no_padding) {
  const CollectionSpec* found = state_.catalog.find(ns);
  if (found == nullptr) return Status::error(ErrorCode::kNamespaceNotFound);
  HierarchicalLock lock(state_.locks, found->db(), found->name(), LockMode::kIX, LockPolicy::kCollection);
  if ((found = state_.catalog.find(ns)) == nullptr) return Status::error(ErrorCode::kNamespaceNotFound);  // dropped meanwhile
  CollectionSpec coll = *found;
  coll.power_of_2_sizes = power_of_2_sizes.value_or(coll.power_of_2_sizes);
  coll.no_padding = no_padding.value_or(coll.no_padding);
  const int ret = save_catalog_durably(op, coll);
  if (ret != 0) return Status::failed(ret);
  if (coll.padded) state_.allocator(coll).set_options(coll.allocator_options());  // the next allocation's size
  state_.catalog.put(std::move(coll));
  return {};
}

int Ddl::save_catalog_durably(OperationContext& op, const CollectionSpec& coll) {
  const int ret = op.begin();
  return ret != 0 ? ret : commit_catalog_row(op, coll);
}

// In the open transaction: writes the row, commits, and flushes the journal, since DDL is
// durable before it is acknowledged. The observer sees one durable commit. Ends the
// transaction whatever happens (rolled back if the row cannot be written).
int Ddl::commit_catalog_row(OperationContext& op, const CollectionSpec& coll) {
  assert(!coll.ns.empty() && coll.ns.find('.') != std::string::npos);
  const std::string row = Catalog::row_of(coll);
  int ret = state_.catalog.save(op.session(), coll.ns, row);
  if (ret != 0) {
    op.rollback();
    return ret;
  }
  const uint64_t ticket = state_.env.observer != nullptr ? state_.env.observer->before_catalog_commit(coll.ns, row) : 0;
  ret = op.commit();
  if (state_.env.observer != nullptr) state_.env.observer->after_commit(ticket, ret);
  if (ret != 0) return ret;
  ret = planted::active(planted::Bug::kDdlAckedBeforeDurable) ? 0 : op.flush_log();
  if (state_.env.observer != nullptr) state_.env.observer->after_flush({ticket}, ret);
  return ret;
}

Status Ddl::build_index(OperationContext& op, const CollectionSpec& coll, const IndexSpec& spec) {
  std::vector<std::pair<std::string, Document>> docs;
  int ret = queries_.matching_records(op, coll, Document::object(), 0, &docs);
  CollectionSpec only_new = coll;
  only_new.indexes = {spec};
  WriteError error;
  for (size_t i = 0; ret == 0 && error.code == ErrorCode::kOk && i < docs.size(); ++i) {
    const auto& [rkey, doc] = docs[i];
    error = WriteError{};
    ret = writes_.apply_indexes(op, only_new, {rkey, rkey, nullptr, &doc}, &error);
  }
  if (ret != 0) return Status::failed(ret);  // a failure outranks an answer
  return error.code != ErrorCode::kOk ? Status::error(error.code) : Status{};
}

}  // namespace wtsim::engine
