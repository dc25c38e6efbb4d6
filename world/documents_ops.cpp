// The "documents" workload's operations: drawn (draw_documents_op) and run on a node
// (DocSystem::run_documents_op).
#include "world/documents_ops.h"

#include <cassert>
#include <cstdio>

#include "world/doc_system.h"

namespace wtsim::world {
namespace {

constexpr uint64_t kGroups = 10;

std::string doc_id(uint64_t k) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "d%07llu", static_cast<unsigned long long>(k));
  return buf;
}

}  // namespace

const char* DocumentsOp::name() const {
  switch (kind) {
    case Kind::kInsert: return "insert_many";
    case Kind::kUpdate: return "update";
    case Kind::kRemove: return "remove";
    case Kind::kFind: return "find";
    case Kind::kDdl: return ddl == Ddl::kCreateIndex ? "create_index" : ddl == Ddl::kDropIndex ? "drop_index" : "coll_mod";
  }
  return "?";
}

engine::Document make_documents_doc(sim::Rng& rng, const WorkloadSpec& w, uint64_t k) {
  const auto pad = static_cast<size_t>(rng.between(static_cast<int64_t>(w.value_bytes_min), static_cast<int64_t>(w.value_bytes_max)));
  return {{"_id", doc_id(k)}, {"g", k % kGroups}, {"n", 0}, {"tags", {k % 3, 10 + k % 5}}, {"pad", std::string(pad, 'x')}};
}

void stamp_ttl_dates(std::vector<engine::Document>& batch, const WorkloadSpec& w, int64_t now_ms) {
  if (!w.ttl_index) return;
  for (engine::Document& doc : batch) doc["at"] = engine::make_date(now_ms);
}

DocumentsOp draw_documents_op(sim::Rng& rng, const WorkloadSpec& w) {
  DocumentsOp d;
  d.durable = rng.chance(w.durable_fraction);
  uint64_t pick = rng.below(w.insert_weight + w.update_weight + w.delete_weight + w.find_weight + w.ddl_weight);
  if (pick < w.insert_weight) {
    d.kind = DocumentsOp::Kind::kInsert;
    for (uint64_t i = 0; i < w.batch_size; ++i) d.batch.push_back(make_documents_doc(rng, w, rng.below(w.keys)));
    return d;
  }
  if ((pick -= w.insert_weight) < w.update_weight) {
    d.kind = DocumentsOp::Kind::kUpdate;
    d.filter = {{"_id", doc_id(rng.below(w.keys))}};
    d.update = {{"$inc", {{"n", 1}}}, {"$set", {{"g", rng.below(kGroups)}}}};
    return d;
  }
  if ((pick -= w.update_weight) < w.delete_weight) {
    d.kind = DocumentsOp::Kind::kRemove;
    d.filter = {{"_id", doc_id(rng.below(w.keys))}};
    return d;
  }
  if ((pick -= w.delete_weight) >= w.find_weight) {
    d.kind = DocumentsOp::Kind::kDdl;
    d.ddl = static_cast<DocumentsOp::Ddl>(rng.below(3));
    if (d.ddl == DocumentsOp::Ddl::kCollMod && rng.chance(0.5)) d.expire = 3600 + rng.below(3600);
    return d;
  }
  d.kind = DocumentsOp::Kind::kFind;
  d.filter = {{"g", rng.below(kGroups)}};
  return d;
}

engine::Status create_documents_schema(engine::DocumentEngine& engine, engine::OperationContext& op, const Scenario& scenario) {
  engine::CollectionOptions options;
  options.padded = scenario.node.record_store == RecordStore::kMmapv1;
  engine::Status s = engine.create_collection(op, kDocumentsNs, options);
  if (s.ok()) s = engine.create_index(op, kDocumentsNs, {"g_1", {{"g", 1}}, false, std::nullopt, ""});
  if (s.ok()) s = engine.create_index(op, kDocumentsNs, {"tags_1", {{"tags", 1}}, false, std::nullopt, ""});
  if (!s.ok() || !scenario.workload.ttl_index) return s;
  const engine::Document expire = scenario.ttl.expire_after_ns / sim::kNsPerSec;
  return engine.create_index(op, kDocumentsNs, {"at_1", {{"at", 1}}, false, expire, ""});
}

// The engine's codes of DDL (no such index) are answers; WiredTiger's are failures.
engine::Status DocSystem::run_documents_op(engine::OperationContext& op, const DocumentsOp& d) {
  const engine::WriteConcern wc{d.durable};
  switch (d.kind) {
    case DocumentsOp::Kind::kInsert: {
      // Stamped when the insert runs, by this node's clock: a retried or delayed insert is not
      // born already expired.
      std::vector<engine::Document> batch = d.batch;
      stamp_ttl_dates(batch, run_.scenario().workload, engine_->now_ms());
      return write("insert_many", properties::WriteCommand::make_insert(kDocumentsNs, batch), [&] { return engine_->insert_many(op, kDocumentsNs, std::move(batch), wc, /*ordered=*/false); }).status;
    }
    case DocumentsOp::Kind::kUpdate:
      return write("update", properties::WriteCommand::make_update(kDocumentsNs, d.filter, d.update, /*upsert=*/true, /*multi=*/false), [&] { return engine_->update(op, kDocumentsNs, d.filter, d.update, /*upsert=*/true, /*multi=*/false, wc); }).status;
    case DocumentsOp::Kind::kRemove:
      return write("remove", properties::WriteCommand::make_delete(kDocumentsNs, d.filter, /*just_one=*/true), [&] { return engine_->remove(op, kDocumentsNs, d.filter, true, wc); }).status;
    case DocumentsOp::Kind::kFind: {
      engine::FindRequest req;
      req.filter = d.filter;
      req.limit = 5;
      const models::ReadScope read(host_.model());
      const engine::FindResult r = host_.node_call("find", [&] { return engine_->find(op, kDocumentsNs, req); });
      if (r.status.ok()) check_find(kDocumentsNs, req, r.docs, read.token());
      return r.status;
    }
    case DocumentsOp::Kind::kDdl: break;
  }
  const engine::Status s = host_.node_call(d.name(), [&] {
    if (d.ddl == DocumentsOp::Ddl::kCreateIndex) return engine_->create_index(op, kDocumentsNs, {"n_1", {{"n", 1}}, false, std::nullopt, ""});
    if (d.ddl == DocumentsOp::Ddl::kDropIndex) return engine_->drop_index(op, kDocumentsNs, "n_1");
    return engine_->set_expire_after(op, kDocumentsNs, "n_1", d.expire);
  });
  assert(s.code == engine::ErrorCode::kOk || s.code == engine::ErrorCode::kIndexNotFound);
  return s;
}

}  // namespace wtsim::world
