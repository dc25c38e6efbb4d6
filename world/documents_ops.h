#pragma once
// The "documents" workload's operations as values: drawn by a client from its own random stream,
// then run by the node that serves it (DocSystem::run_documents_op). A single node's clients run
// them on their own node; a replica set's clients (world/replica_clients.h) send them over the
// network to the primary they found.
#include <optional>
#include <vector>

#include "engine/engine.h"
#include "sim/random.h"
#include "world/scenario.h"

namespace wtsim::world {

struct DocumentsOp {
  enum class Kind { kInsert, kUpdate, kRemove, kFind, kDdl };
  // DDL on "n_1", an index the schema never re-creates: createIndex, dropIndex or collMod.
  enum class Ddl { kCreateIndex, kDropIndex, kCollMod };
  Kind kind = Kind::kFind;
  bool durable = false;  // j:true
  std::vector<engine::Document> batch;          // kInsert
  engine::Document filter = engine::Document::object();  // kUpdate, kRemove, kFind
  engine::Document update;                      // kUpdate
  Ddl ddl = Ddl::kCreateIndex;                  // kDdl
  std::optional<engine::Document> expire;       // kDdl, kCollMod: expireAfterSeconds (none: unset)

  const char* name() const;  // "insert_many", "update", "remove", "find", "create_index", ...
  bool is_write() const { return kind != Kind::kFind; }
};

inline constexpr const char* kDocumentsNs = "test.docs";

// One operation of the workload's mix (the weights of `w`).
DocumentsOp draw_documents_op(sim::Rng& rng, const WorkloadSpec& w);
// Document `k` of the workload, its padding drawn from `rng`. With w.ttl_index the node that
// inserts it adds `at`, the Date of its own clock then (run_documents_op).
engine::Document make_documents_doc(sim::Rng& rng, const WorkloadSpec& w, uint64_t k);
// With w.ttl_index: sets each document's `at` to the Date `now_ms` of the node inserting it.
void stamp_ttl_dates(std::vector<engine::Document>& batch, const WorkloadSpec& w, int64_t now_ms);
// The collection (padded records on MMAPv1) and its two secondary indexes, and the TTL index on
// `at` with workload.ttl_index (idempotent).
engine::Status create_documents_schema(engine::DocumentEngine& engine, engine::OperationContext& op, const Scenario& scenario);

}  // namespace wtsim::world
