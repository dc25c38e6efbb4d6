// The key/value system: one table, writers committing 1-3 keys per transaction, durable or not.
#include <wiredtiger.h>

#include <set>

#include "engine/kv_store.h"
#include "world/system.h"
#include "world/node_context.h"
#include "world/run_context.h"

namespace wtsim::world {
namespace {

std::string key_name(uint64_t k) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "k%06llu", static_cast<unsigned long long>(k));
  return buf;
}

class KvSystem final : public System {
 public:
  KvSystem(RunContext& run, NodeContext& host) : run_(run), host_(host) {}

  int open(WT_CONNECTION* conn) override {
    engine::KvSession session(conn);
    return session.create_table();
  }

  int read_state(WT_CONNECTION* conn, models::KvState* out) override {
    engine::KvSession session(conn);
    return session.read_all(*out);
  }

  std::vector<properties::Finding> validate(WT_CONNECTION* conn) override {
    engine::KvSession session(conn);
    const int ret = session.verify();
    if (ret == 0) return {};
    return {{properties::Property::kTablesVerify, std::string("verify table:kv: ") + wiredtiger_strerror(ret)}};
  }

  void spawn_actors(const std::string& suffix) override {
    for (uint64_t i = 0; i < run_.scenario().workload.writers; ++i) {
      run_.sim().spawn("writer-" + std::to_string(i) + suffix, host_.fiber_group(), [this, i] { writer(static_cast<int>(i)); });
    }
  }

  void close() override {}

 private:
  std::vector<models::KvWrite> draw_writes(sim::Rng& rng, uint64_t value_id, uint64_t* bytes) {
    const WorkloadSpec& w = run_.scenario().workload;
    const uint64_t n = static_cast<uint64_t>(rng.between(1, static_cast<int64_t>(w.keys_per_txn_max)));
    std::set<uint64_t> keys;
    while (keys.size() < std::min(n, w.keys)) keys.insert(rng.below(w.keys));
    std::vector<models::KvWrite> writes;
    for (uint64_t k : keys) {
      models::KvWrite write{key_name(k), std::nullopt};
      if (!rng.chance(w.delete_fraction)) {
        const auto size = static_cast<size_t>(rng.between(static_cast<int64_t>(w.value_bytes_min),
                                                          static_cast<int64_t>(w.value_bytes_max)));
        write.value = models::KvModel::make_value(value_id, size);
        *bytes += size;
      }
      writes.push_back(std::move(write));
    }
    return writes;
  }

  void writer(int index) {
    const ClientScope scope(run_);
    const WorkloadSpec& w = run_.scenario().workload;
    const engine::CostModel& cost = run_.scenario().cost;
    sim::Simulator& sim = run_.sim();
    sim::Rng rng = sim::stream(run_.seed(), "workload.writer." + std::to_string(index) + host_.generation_suffix());
    engine::KvSession session(host_.node().conn());
    while (sim.now_ns() < run_.end_ns()) {
      sim.sleep_for(rng.between(0, 2 * w.think_ns));
      if (sim.now_ns() >= run_.end_ns()) break;
      const uint64_t value_id = ++values_drawn_;
      uint64_t bytes = 0;
      std::vector<models::KvWrite> writes = draw_writes(rng, value_id, &bytes);
      const bool durable = rng.chance(w.durable_fraction);
      // Rolled back: never in the model, so any of its values is a phantom.
      const auto count_failed = [&] { ++run_.stats().commits_failed; };
      if (host_.node_call("apply", [&] { return session.apply(writes); }, {NodeContext::OnIoError::kRetry, count_failed}) != 0) {
        continue;
      }
      // The commit enters the model's order here, not before apply: apply can wait (a full cache
      // hands the fiber to eviction) while another writer commits, and the log holds commits in
      // commit order (docs/findings.md, finding 18).
      const uint64_t seq = host_.history().invoke(writes, durable, {{"value_id", value_id}});
      const auto in_doubt = [&] {
        host_.history().info(seq, "commit failed");
        ++run_.stats().commits_failed;
      };
      if (host_.node_call("commit", [&] { return session.commit(durable); }, {NodeContext::OnIoError::kFatal, in_doubt}) != 0) {
        continue;
      }
      host_.history().ok(seq);
      run_.note_progress();
      ++run_.stats().commits_acked;
      host_.cpu().use(cost.cpu_per_op_ns * static_cast<sim::Nanos>(writes.size()) +
                       cost.cpu_per_byte_ns * static_cast<sim::Nanos>(bytes));
    }
  }

  RunContext& run_;
  NodeContext& host_;
  uint64_t values_drawn_ = 0;  // each commit's values carry its own number (a phantom has none)
};

}  // namespace

std::unique_ptr<System> make_kv_system(RunContext& run, NodeContext& host) { return std::make_unique<KvSystem>(run, host); }

}  // namespace wtsim::world
