// The "documents" workload: clients doing insertMany batches, $inc upserts, deletes and finds on
// one collection with a secondary and a multikey index; or, with total_documents, a bulk load.
#include <cassert>
#include <cstdio>

#include "world/doc_system.h"

namespace wtsim::world {
namespace {

constexpr const char* kNs = "test.docs";
constexpr uint64_t kGroups = 10;

std::string doc_id(uint64_t k) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "d%07llu", static_cast<unsigned long long>(k));
  return buf;
}

class MixedDocSystem final : public DocSystem {
 public:
  using DocSystem::DocSystem;

  void spawn_actors(const std::string& suffix) override {
    for (uint64_t i = 0; i < run_.scenario().workload.writers; ++i) {
      run_.sim().spawn("client-" + std::to_string(i) + suffix, host_.fiber_group(), [this, i] { client(static_cast<int>(i)); });
    }
    spawn_oplog_trimmer(suffix);
  }

 private:
  engine::Status create_schema(engine::OperationContext& op) override {
    engine::CollectionOptions options;
    options.padded = run_.scenario().node.record_store == RecordStore::kMmapv1;
    engine::Status s = engine_->create_collection(op, kNs, options);
    if (s.ok()) s = engine_->create_index(op, kNs, {"g_1", {{"g", 1}}, false, std::nullopt, ""});
    if (s.ok()) s = engine_->create_index(op, kNs, {"tags_1", {{"tags", 1}}, false, std::nullopt, ""});
    return s;
  }

  engine::Document make_doc(sim::Rng& rng, uint64_t k) {
    const WorkloadSpec& w = run_.scenario().workload;
    const auto pad = static_cast<size_t>(rng.between(static_cast<int64_t>(w.value_bytes_min), static_cast<int64_t>(w.value_bytes_max)));
    return {{"_id", doc_id(k)}, {"g", k % kGroups}, {"n", 0}, {"tags", {k % 3, 10 + k % 5}}, {"pad", std::string(pad, 'x')}};
  }

  void bulk_load(int index, engine::OperationContext& op) {
    const WorkloadSpec& w = run_.scenario().workload;
    sim::Rng rng = sim::stream(run_.seed(), "workload.bulk." + std::to_string(index));
    const uint64_t share = (w.total_documents + w.writers - 1) / w.writers;
    const uint64_t begin = static_cast<uint64_t>(index) * share, end = std::min(w.total_documents, begin + share);
    for (uint64_t next = begin; next < end;) {
      std::vector<engine::Document> batch;
      for (; next < end && batch.size() < w.batch_size; ++next) batch.push_back(make_doc(rng, next));
      const engine::WriteConcern wc{rng.chance(w.durable_fraction)};
      write("insert_many", [&] { return engine_->insert_many(op, kNs, std::move(batch), wc); });
    }
    run_.note_workload_done();
  }

  void one_operation(sim::Rng& rng, engine::OperationContext& op) {
    const WorkloadSpec& w = run_.scenario().workload;
    const engine::WriteConcern wc{rng.chance(w.durable_fraction)};
    uint64_t pick = rng.below(w.insert_weight + w.update_weight + w.delete_weight + w.find_weight + w.ddl_weight);
    if (pick < w.insert_weight) {
      std::vector<engine::Document> batch;
      for (uint64_t i = 0; i < w.batch_size; ++i) batch.push_back(make_doc(rng, rng.below(w.keys)));
      write("insert_many", [&] { return engine_->insert_many(op, kNs, std::move(batch), wc, /*ordered=*/false); });
      return;
    }
    if ((pick -= w.insert_weight) < w.update_weight) {
      const engine::Document filter = {{"_id", doc_id(rng.below(w.keys))}};
      const engine::Document update = {{"$inc", {{"n", 1}}}, {"$set", {{"g", rng.below(kGroups)}}}};
      write("update", [&] { return engine_->update(op, kNs, filter, update, /*upsert=*/true, /*multi=*/false, wc); });
      return;
    }
    if ((pick -= w.update_weight) < w.delete_weight) {
      const engine::Document filter = {{"_id", doc_id(rng.below(w.keys))}};
      write("remove", [&] { return engine_->remove(op, kNs, filter, true, wc); });
      return;
    }
    if ((pick -= w.delete_weight) >= w.find_weight) return ddl_operation(rng, op);
    engine::FindRequest req;
    req.filter = {{"g", rng.below(kGroups)}};
    req.limit = 5;
    const models::ReadScope read(host_.model());
    const engine::FindResult r = host_.node_call("find", [&] { return engine_->find(op, kNs, req); });
    if (r.status.ok()) check_find(kNs, req.filter, r.docs, read.token());
  }

  // createIndex, dropIndex or collMod of "n_1", an index create_schema never re-creates. The
  // engine's codes (no such index) are answers; WiredTiger's are failures.
  void ddl_operation(sim::Rng& rng, engine::OperationContext& op) {
    const uint64_t kind = rng.below(3);
    const char* what = kind == 0 ? "create_index" : kind == 1 ? "drop_index" : "coll_mod";
    std::optional<engine::Document> expire;
    if (kind == 2 && rng.chance(0.5)) expire = 3600 + rng.below(3600);
    const engine::Status s = host_.node_call(what, [&] {
      if (kind == 0) return engine_->create_index(op, kNs, {"n_1", {{"n", 1}}, false, std::nullopt, ""});
      if (kind == 1) return engine_->drop_index(op, kNs, "n_1");
      return engine_->set_expire_after(op, kNs, "n_1", expire);
    });
    assert(s.code == engine::ErrorCode::kOk || s.code == engine::ErrorCode::kIndexNotFound);
  }

  void client(int index) {
    const ClientScope scope(run_);
    engine::OperationContext op(host_.node().conn());
    const WorkloadSpec& w = run_.scenario().workload;
    if (w.total_documents > 0) return bulk_load(index, op);
    sim::Simulator& sim = run_.sim();
    sim::Rng rng = sim::stream(run_.seed(), "workload.client." + std::to_string(index) + host_.generation_suffix());
    while (sim.now_ns() < run_.end_ns()) {
      sim.sleep_for(rng.between(0, 2 * w.think_ns));
      if (sim.now_ns() >= run_.end_ns()) break;
      one_operation(rng, op);
    }
  }

};

}  // namespace

std::unique_ptr<System> make_mixed_doc_system(RunContext& run, NodeContext& host) { return std::make_unique<MixedDocSystem>(run, host); }

}  // namespace wtsim::world
