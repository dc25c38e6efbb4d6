#pragma once
// DDL: collections and indexes created and dropped, collMod's expireAfterSeconds, and the
// catalog loaded at open. Every change is one catalog row committed and flushed before it is
// acknowledged, under an exclusive collection lock.
#include <optional>
#include <string>

#include "engine/coll_mod.h"
#include "engine/engine_state.h"
#include "engine/operation_context.h"
#include "engine/query_executor.h"
#include "engine/write_unit.h"

namespace wtsim::engine {

class Ddl {
 public:
  Ddl(EngineState& state, WriteUnit& writes, QueryExecutor& queries) : state_(state), writes_(writes), queries_(queries) {}

  // The catalog as persisted. WiredTiger's code.
  int load_catalog(OperationContext& op);
  // Each collection's count and size recounted, and a padded one's allocator rebuilt from its tables.
  int load_collections(OperationContext& op);

  Status create_collection(OperationContext& op, const std::string& ns, CollectionOptions options = {});
  // A foreground build: every entry and the catalog row in one transaction.
  Status create_index(OperationContext& op, const std::string& ns, IndexSpec spec);
  Status drop_index(OperationContext& op, const std::string& ns, const std::string& name);
  // Sets (or, with none, removes) an index's expireAfterSeconds as given: replication's and the
  // workload's catalog change. A user's collMod is coll_mod.
  Status set_expire_after(OperationContext& op, const std::string& ns, const std::string& index,
                          std::optional<Document> expire_after_seconds);
  // collMod's index option and collection flags with MongoDB's checks (engine/coll_mod.h).
  CollModResult coll_mod(OperationContext& op, const std::string& ns, const CollModRequest& request);
  // userFlags 1 and 2 (usePowerOf2Sizes, noPadding), each as given (none: kept).
  Status set_flags(OperationContext& op, const std::string& ns, std::optional<bool> power_of_2_sizes, std::optional<bool> no_padding);

 private:
  int recount(OperationContext& op, const CollectionSpec& coll);
  int load_last_record_id(WT_CURSOR* c, const std::string& ns);
  // One catalog row in its own transaction, then a log sync.
  int save_catalog_durably(OperationContext& op, const CollectionSpec& coll);
  int commit_catalog_row(OperationContext& op, const CollectionSpec& coll);
  // The new index's entries for every document, in the open transaction.
  Status build_index(OperationContext& op, const CollectionSpec& coll, const IndexSpec& spec);

  EngineState& state_;
  WriteUnit& writes_;
  QueryExecutor& queries_;
};

}  // namespace wtsim::engine
