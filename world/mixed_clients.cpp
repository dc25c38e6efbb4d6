// The "documents" workload on a single node (or a replica set's first member without
// elections): clients doing insertMany batches, $inc upserts, deletes and finds on one
// collection with a secondary and a multikey index (world/documents_ops.h); or, with
// total_documents, a bulk load. With workload.ttl_index the node's TTL monitor expires the
// documents' `at`; with a backup section the node takes the hot backup meanwhile.
#include <algorithm>

#include "world/doc_system.h"
#include "world/ttl_monitor.h"

namespace wtsim::world {
namespace {

class MixedDocSystem final : public DocSystem {
 public:
  MixedDocSystem(RunContext& run, NodeContext& host) : DocSystem(run, host), monitor_(run, host, run.scenario().ttl) {}

  void spawn_actors(const std::string& suffix) override {
    const Scenario& s = run_.scenario();
    for (uint64_t i = 0; i < s.workload.writers; ++i) {
      run_.sim().spawn("client-" + std::to_string(i) + suffix, host_.fiber_group(), [this, i] { client(static_cast<int>(i)); });
    }
    if (s.workload.ttl_index && s.ttl.mode == TtlMode::kIndex) {
      run_.sim().spawn("ttl-monitor" + suffix, host_.fiber_group(), [this] {
        monitor_.run(engine_, [this](properties::Property p, const std::string& detail) { finding(p, detail); });
      });
    }
    spawn_oplog_trimmer(suffix);
    spawn_backup(suffix);
  }

  std::vector<properties::Marker> busy_phases() const override {
    std::vector<properties::Marker> phases = DocSystem::busy_phases();
    if (monitor_.in_pass()) phases.push_back(properties::Marker::kCrashDuringTtlPass);
    return phases;
  }

  std::string liveness_pending(int64_t) const override { return backup_pending(); }

 private:
  engine::Status create_schema(engine::OperationContext& op) override {
    return create_documents_schema(*engine_, op, run_.scenario());
  }

  void bulk_load(int index, engine::OperationContext& op) {
    const WorkloadSpec& w = run_.scenario().workload;
    sim::Rng rng = sim::stream(run_.seed(), "workload.bulk." + std::to_string(index));
    const uint64_t share = (w.total_documents + w.writers - 1) / w.writers;
    const uint64_t begin = static_cast<uint64_t>(index) * share, end = std::min(w.total_documents, begin + share);
    for (uint64_t next = begin; next < end;) {
      std::vector<engine::Document> batch;
      for (; next < end && batch.size() < w.batch_size; ++next) batch.push_back(make_documents_doc(rng, w, next));
      const engine::WriteConcern wc{rng.chance(w.durable_fraction)};
      stamp_ttl_dates(batch, w, engine_->now_ms());
      write("insert_many", properties::WriteCommand::make_insert(kDocumentsNs, batch), [&] { return engine_->insert_many(op, kDocumentsNs, std::move(batch), wc); });
    }
    run_.note_workload_done();
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
      run_documents_op(op, draw_documents_op(rng, w));
    }
  }

  TtlMonitor monitor_;
};

}  // namespace

std::unique_ptr<System> make_mixed_doc_system(RunContext& run, NodeContext& host) { return std::make_unique<MixedDocSystem>(run, host); }

}  // namespace wtsim::world
