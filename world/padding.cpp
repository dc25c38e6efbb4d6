// The padding account (shared/seeds/001): one client inserts documents into an MMAPv1-style
// collection and grows each with three $inc upserts on new fields ("grow": inserted as {_id} only,
// so every upsert may move it) or with the counters pre-set to 0 ("preset": every update fits).
#include "world/doc_system.h"

namespace wtsim::world {
namespace {

constexpr const char* kNs = "padding_test.c";

class PaddingSystem final : public DocSystem {
 public:
  using DocSystem::DocSystem;

  void spawn_actors(const std::string& suffix) override {
    run_.sim().spawn("client" + suffix, host_.fiber_group(), [this] { client(); });
    spawn_oplog_trimmer(suffix);
  }

 private:
  engine::Status create_schema(engine::OperationContext& op) override {
    engine::CollectionOptions options;
    options.padded = true;
    options.power_of_2_sizes = run_.scenario().workload.power_of_2_sizes;
    options.padding_rules = run_.scenario().workload.padding_rules;
    return engine_->create_collection(op, kNs, options);
  }

  void client() {
    const ClientScope scope(run_);
    const WorkloadSpec& w = run_.scenario().workload;
    engine::OperationContext op(host_.node().conn());
    sim::Rng rng = sim::stream(run_.seed(), "workload.padding" + host_.generation_suffix());
    const bool preset = w.padding_variant == PaddingVariant::kPreset;
    for (; next_ < w.total_documents && run_.sim().now_ns() < run_.end_ns(); ++next_) {
      // The account's shell numbers are doubles (8 bytes in BSON).
      const double id = static_cast<double>(next_);
      engine::Document doc = {{"_id", id}};
      if (preset) doc.update({{"counter1", 0.0}, {"counter2", 0.0}, {"counter3", 0.0}});
      const engine::WriteConcern wc{rng.chance(w.durable_fraction)};
      write("insert", properties::WriteCommand::make_insert(kNs, {doc}), [&] { return engine_->insert_many(op, kNs, {doc}, wc); });  // a duplicate after a restart is fine
      for (const char* counter : {"counter1", "counter2", "counter3"}) {
        const engine::Document filter = {{"_id", id}}, inc = {{"$inc", {{counter, 1.0}}}};
        write("update", properties::WriteCommand::make_update(kNs, filter, inc, /*upsert=*/true, /*multi=*/false),
              [&] { return engine_->update(op, kNs, filter, inc, /*upsert=*/true, false, wc); });
      }
    }
    if (next_ >= w.total_documents) run_.note_workload_done();
  }

  uint64_t next_ = 0;  // survives restarts: the client resumes where it was cut
};

}  // namespace

std::unique_ptr<System> make_padding_system(RunContext& run, NodeContext& host) { return std::make_unique<PaddingSystem>(run, host); }

}  // namespace wtsim::world
