// The backup account (shared/seeds/002): four collections (hot, warm, append-only, cold) under
// write load on the primary, backed up while writes and checkpoints go on by the member
// backup.member names (world/hot_backup_actor.h): the primary itself, or a member that applies
// the primary's oplog meanwhile (world/secondary_system.cpp).
#include <algorithm>
#include <map>

#include "world/doc_system.h"

namespace wtsim::world {
namespace {

const char* const kCollections[] = {"test.hot", "test.warm", "test.append", "test.cold"};
constexpr size_t kDocBytes = 1000;

class BackupSystem final : public DocSystem {
 public:
  using DocSystem::DocSystem;

  void spawn_actors(const std::string& suffix) override {
    sim::Simulator& sim = run_.sim();
    const BackupSpec& spec = run_.scenario().backup;
    const uint64_t hot = spec.hot_docs, warm = spec.warm_docs, warm_every = spec.warm_every;
    sim.spawn("hot-writer" + suffix, host_.fiber_group(), [this, hot] { updater("test.hot", hot, 1); });
    sim.spawn("warm-writer" + suffix, host_.fiber_group(), [this, warm, warm_every] { updater("test.warm", warm, warm_every); });
    sim.spawn("appender" + suffix, host_.fiber_group(), [this] { appender(); });
    spawn_backup(suffix);
    spawn_oplog_trimmer(suffix);
  }

  std::string liveness_pending(int64_t) const override { return backup_pending(); }

 private:
  engine::Status create_schema(engine::OperationContext& op) override {
    engine::Status s;
    for (const char* ns : kCollections) {
      if (s.ok() && engine_->catalog().find(ns) == nullptr) s = engine_->create_collection(op, ns);
    }
    if (!s.ok() || loaded_) return s;
    int ret = 0;
    loaded_ = true;  // the initial data, once
    const BackupSpec& spec = run_.scenario().backup;
    const std::pair<const char*, uint64_t> initial[] = {
        {"test.hot", spec.hot_docs}, {"test.warm", spec.warm_docs}, {"test.append", spec.append_docs}, {"test.cold", spec.cold_docs}};
    for (const auto& [ns, n] : initial) {
      for (uint64_t start = 0; ret == 0 && start < n; start += 500) {
        std::vector<engine::Document> batch;
        for (uint64_t i = start; i < std::min(n, start + 500); ++i) batch.push_back(doc(i, 0));
        ret = engine_->insert_many(op, ns, std::move(batch), {true}).status.wt_code;
      }
    }
    next_append_ = spec.append_docs;
    return engine::Status::from_wt(ret);
  }

  static engine::Document doc(uint64_t id, uint64_t version) {
    return {{"_id", id}, {"v", version}, {"pad", std::string(kDocBytes, static_cast<char>('a' + version % 26))}};
  }

  void updater(const std::string& ns, uint64_t docs, uint64_t slowdown) {
    const ClientScope scope(run_);
    engine::OperationContext op(host_.node().conn());
    sim::Simulator& sim = run_.sim();
    sim::Rng rng = sim::stream(run_.seed(), "workload." + ns + host_.generation_suffix());
    while (sim.now_ns() < run_.end_ns()) {
      sim.sleep_for(run_.scenario().workload.think_ns * static_cast<sim::Nanos>(slowdown));
      if (sim.now_ns() >= run_.end_ns()) break;
      const uint64_t id = rng.below(docs);
      const engine::WriteConcern wc{rng.chance(run_.scenario().workload.durable_fraction)};
      const engine::Document filter = {{"_id", id}}, inc = {{"$inc", {{"v", 1}}}};
      write("update", properties::WriteCommand::make_update(ns, filter, inc, /*upsert=*/false, /*multi=*/false),
            [&] { return engine_->update(op, ns, filter, inc, false, false, wc); });
      ++rewrites_[ns];  // the expansion-rate estimate: under a pin only rewritten pages need new space
    }
  }

  void appender() {
    const ClientScope scope(run_);
    engine::OperationContext op(host_.node().conn());
    sim::Simulator& sim = run_.sim();
    while (sim.now_ns() < run_.end_ns()) {
      sim.sleep_for(run_.scenario().workload.think_ns * static_cast<sim::Nanos>(run_.scenario().backup.append_every));
      if (sim.now_ns() >= run_.end_ns()) break;
      const engine::Document appended = doc(next_append_++, 0);
      write("insert", properties::WriteCommand::make_insert("test.append", {appended}), [&] { return engine_->insert_many(op, "test.append", {appended}, {}); });
    }
  }

  uint64_t next_append_ = 0;
  bool loaded_ = false;
};

}  // namespace

std::unique_ptr<System> make_backup_system(RunContext& run, NodeContext& host) { return std::make_unique<BackupSystem>(run, host); }

}  // namespace wtsim::world
