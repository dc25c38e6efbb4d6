// The document system: the document engine on the node, client writers doing insertMany batches,
// $inc updates (upserts), deletes and finds, and the commit observer that feeds the model in
// WiredTiger's commit order and checks that every acknowledged $inc is counted exactly once.
#include <wiredtiger.h>

#include <cstdio>
#include <map>
#include <memory>

#include "engine/engine.h"
#include "engine/key_string.h"
#include "sim/world/system.h"
#include "sim/world/world.h"

namespace wtsim::world {
namespace {

constexpr const char* kNs = "test.docs";
constexpr uint64_t kGroups = 10;

std::string doc_id(uint64_t k) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "d%07llu", static_cast<unsigned long long>(k));
  return buf;
}

class DocSystem final : public System, public engine::CommitObserver {
 public:
  explicit DocSystem(World& world) : world_(world) {}

  int open(WT_CONNECTION* conn) override {
    close();
    engine::EngineConfig config;
    config.policy = world_.scenario().node.lock_policy == "collection" ? engine::LockPolicy::kCollection
                                                                       : engine::LockPolicy::kDocument;
    config.cost = world_.scenario().cost;
    config.oplog = world_.scenario().node.oplog;
    engine::EngineEnv env;
    env.sim = &world_.sim();
    env.cpu = &world_.cpu();
    env.disk = &world_.disk_queue();
    env.disk_latency_factor = [this] { return world_.latency_factor(); };
    env.file_bytes = [this](const std::string& file) { return world_.file_bytes(file); };
    env.observer = this;
    engine_ = std::make_unique<engine::DocumentEngine>(config, env, conn);
    op_ = std::make_unique<engine::OperationContext>(conn);
    last_n_.clear();
    int ret = engine_->open(*op_);
    if (ret == 0) ret = engine_->create_collection(*op_, kNs);
    if (ret == 0) ret = engine_->create_index(*op_, kNs, {"g_1", {{"g", 1}}, false, std::nullopt, ""});
    if (ret == 0) ret = engine_->create_index(*op_, kNs, {"tags_1", {{"tags", 1}}, false, std::nullopt, ""});
    op_->close_cursors();
    return ret;
  }

  int read_state(WT_CONNECTION* conn, models::KvState* out) override {
    out->clear();
    engine::OperationContext op(conn);
    for (const auto& [ns, coll] : engine_->catalog().collections()) {
      int ret = 0;
      WT_CURSOR* c = op.cursor(coll.table, &ret);
      if (c == nullptr) return ret;
      while ((ret = c->next(c)) == 0) {
        WT_ITEM value;
        c->get_value(c, &value);
        const engine::Document doc = engine::from_bson(static_cast<const uint8_t*>(value.data), value.size);
        (*out)[model_key(ns, doc.at("_id"))] = doc.dump();
      }
      if (ret != WT_NOTFOUND) return ret;
    }
    return 0;
  }

  std::vector<std::pair<std::string, std::string>> validate(WT_CONNECTION* conn) override {
    std::vector<std::pair<std::string, std::string>> problems;
    engine::OperationContext op(conn);
    std::vector<std::string> tables = {engine::Catalog::kUri};
    if (world_.scenario().node.oplog) tables.push_back(engine::DocumentEngine::kOplogUri);
    for (const auto& [ns, coll] : engine_->catalog().collections()) {
      const engine::ValidateResult v = engine_->validate(op, ns);
      for (const std::string& e : v.errors) problems.emplace_back("index_consistency", ns + ": " + e);
      tables.push_back(coll.table);
      for (const auto& i : coll.indexes) tables.push_back(i.table);
    }
    op.close_cursors();
    op_->close_cursors();
    for (const std::string& t : tables) {
      const int ret = op.session()->verify(op.session(), t.c_str(), nullptr);
      if (ret != 0) problems.emplace_back("tables_verify", "verify " + t + ": " + wiredtiger_strerror(ret));
    }
    if (engine_->locks().conflict_violations() > 0) {
      problems.emplace_back("lock_safety", std::to_string(engine_->locks().conflict_violations()) + " conflicting grants");
    }
    return problems;
  }

  void spawn_actors(const std::string& suffix) override {
    for (uint64_t i = 0; i < world_.scenario().workload.writers; ++i) {
      world_.sim().spawn("client-" + std::to_string(i) + suffix, "node", [this, i] { client(static_cast<int>(i)); });
    }
    if (world_.scenario().node.oplog) world_.sim().spawn("oplog-trimmer" + suffix, "node", [this] { oplog_trimmer(); });
  }

  void close() override {
    op_.reset();
    engine_.reset();
  }

  nlohmann::json sample_metrics() override {
    if (!engine_) return nullptr;
    engine::OperationContext op(world_.node().conn());
    nlohmann::json sample = {{"serverStatus", engine_->server_status(op)}};
    for (const auto& [ns, coll] : engine_->catalog().collections()) sample["collStats"][ns] = engine_->coll_stats(ns);
    return sample;
  }

  std::vector<std::pair<std::string, std::string>> take_findings() override {
    std::vector<std::pair<std::string, std::string>> out;
    out.swap(findings_);
    return out;
  }

  // --- CommitObserver ---
  uint64_t before_commit(const std::vector<engine::DocWrite>& writes, bool durable) override {
    std::vector<models::KvWrite> kv;
    for (const engine::DocWrite& w : writes) {
      const std::string key = model_key(w.ns, w.id);
      check_increment(key, w);
      kv.push_back({key, w.post_image ? models::Value{w.post_image->dump()} : std::nullopt});
    }
    const uint64_t seq = world_.model().begin_commit(std::move(kv), durable);
    durable_[seq] = durable;
    const engine::DocWrite& first = writes.front();
    world_.trace().event(world_.sim().now_ns(), world_.sim().current().name, "commit",
                         {{"seq", seq}, {"ns", first.ns}, {"id", first.id},
                          {"op", first.post_image ? "write" : "delete"}, {"durable", durable}});
    return seq;
  }

  void after_commit(uint64_t ticket, int ret) override {
    world_.after_wt_call();  // a fenced node acknowledges nothing
    if (ret != 0) {
      world_.model().in_doubt(ticket);
      last_n_.clear();  // the chain of images is broken for now
      ++world_.stats().commits_failed;
      durable_.erase(ticket);
      return;
    }
    if (!durable_[ticket]) ack(ticket);
  }

  void after_flush(const std::vector<uint64_t>& tickets, int ret) override {
    world_.after_wt_call();
    if (ret != 0) return;  // the failure is fatal to the node: the tickets stay in doubt
    for (uint64_t t : tickets) ack(t);
  }

 private:
  static std::string model_key(const std::string& ns, const engine::Document& id) { return ns + "|" + id.dump(); }

  void ack(uint64_t ticket) {
    world_.model().ack(ticket);
    durable_.erase(ticket);
    ++world_.stats().commits_acked;
  }

  // Exactly-once $inc: each committed image's counter equals the previous image's plus this
  // write's increments (a lost update shows as two images with the same counter).
  void check_increment(const std::string& key, const engine::DocWrite& w) {
    const engine::Document* n = w.post_image && w.post_image->contains("n") ? &w.post_image->at("n") : nullptr;
    auto last = last_n_.find(key);
    if (w.inc_total != 0 && last != last_n_.end() && n != nullptr && n->is_number_integer() &&
        n->get<int64_t>() != last->second + w.inc_total && findings_.size() < 8) {
      findings_.emplace_back("increments_counted_once",
                             key + ": counter went " + std::to_string(last->second) + " -> " + n->dump() + " for $inc " +
                                 std::to_string(w.inc_total));
    }
    if (n != nullptr && n->is_number_integer()) {
      last_n_[key] = n->get<int64_t>();
    } else {
      last_n_.erase(key);
    }
  }

  engine::Document make_doc(sim::Rng& rng, uint64_t k) {
    const WorkloadSpec& w = world_.scenario().workload;
    const auto pad = static_cast<size_t>(rng.between(static_cast<int64_t>(w.value_bytes_min), static_cast<int64_t>(w.value_bytes_max)));
    return {{"_id", doc_id(k)}, {"g", k % kGroups}, {"n", 0}, {"tags", {k % 3, 10 + k % 5}}, {"pad", std::string(pad, 'x')}};
  }

  void check(const engine::WriteResult& r, const char* what) {
    world_.after_wt_call();
    if (r.wt_code != 0) world_.handle_wt_failure(r.wt_code, what);
  }

  void bulk_load(int index, engine::OperationContext& op) {
    const WorkloadSpec& w = world_.scenario().workload;
    sim::Rng rng = sim::stream(world_.seed(), "workload.bulk." + std::to_string(index));
    const uint64_t share = (w.total_documents + w.writers - 1) / w.writers;
    const uint64_t begin = static_cast<uint64_t>(index) * share, end = std::min(w.total_documents, begin + share);
    for (uint64_t next = begin; next < end;) {
      std::vector<engine::Document> batch;
      for (; next < end && batch.size() < w.batch_size; ++next) batch.push_back(make_doc(rng, next));
      check(engine_->insert_many(op, kNs, std::move(batch), {rng.chance(w.durable_fraction)}), "insert_many");
    }
    world_.note_workload_done();
  }

  void client(int index) {
    engine::OperationContext op(world_.node().conn());
    const WorkloadSpec& w = world_.scenario().workload;
    if (w.total_documents > 0) return bulk_load(index, op);
    sim::Simulator& sim = world_.sim();
    sim::Rng rng = sim::stream(world_.seed(), "workload.client." + std::to_string(index) + world_.generation_suffix());
    const uint64_t total_weight = w.insert_weight + w.update_weight + w.delete_weight + w.find_weight;
    while (sim.now_ns() < world_.end_ns()) {
      sim.sleep_for(rng.between(0, 2 * w.think_ns));
      if (sim.now_ns() >= world_.end_ns()) break;
      const engine::WriteConcern wc{rng.chance(w.durable_fraction)};
      uint64_t pick = rng.below(total_weight);
      if (pick < w.insert_weight) {
        std::vector<engine::Document> batch;
        for (uint64_t i = 0; i < w.batch_size; ++i) batch.push_back(make_doc(rng, rng.below(w.keys)));
        check(engine_->insert_many(op, kNs, std::move(batch), wc, /*ordered=*/false), "insert_many");
      } else if ((pick -= w.insert_weight) < w.update_weight) {
        const engine::Document filter = {{"_id", doc_id(rng.below(w.keys))}};
        const engine::Document update = {{"$inc", {{"n", 1}}}, {"$set", {{"g", rng.below(kGroups)}}}};
        check(engine_->update(op, kNs, filter, update, /*upsert=*/true, /*multi=*/false, wc), "update");
      } else if ((pick -= w.update_weight) < w.delete_weight) {
        check(engine_->remove(op, kNs, {{"_id", doc_id(rng.below(w.keys))}}, true, wc), "remove");
      } else {
        engine::FindRequest req;
        req.filter = {{"g", rng.below(kGroups)}};
        req.limit = 5;
        const engine::FindResult r = engine_->find(op, kNs, req);
        world_.after_wt_call();
        if (r.wt_code != 0) world_.handle_wt_failure(r.wt_code, "find");
      }
    }
  }

  void oplog_trimmer() {
    engine::OperationContext op(world_.node().conn());
    while (world_.sim().now_ns() < world_.end_ns()) {
      world_.sim().sleep_until(std::min(world_.sim().now_ns() + sim::kNsPerSec, world_.end_ns()));
      if (world_.sim().now_ns() >= world_.end_ns()) break;
      const int ret = engine_->trim_oplog(op);
      world_.after_wt_call();
      if (ret != 0) world_.handle_wt_failure(ret, "trim_oplog");
    }
  }

  World& world_;
  std::unique_ptr<engine::DocumentEngine> engine_;
  std::unique_ptr<engine::OperationContext> op_;
  std::map<uint64_t, bool> durable_;       // ticket -> durable, until acknowledged
  std::map<std::string, int64_t> last_n_;  // key -> counter of the last committed image
  std::vector<std::pair<std::string, std::string>> findings_;
};

}  // namespace

std::unique_ptr<System> make_doc_system(World& world) { return std::make_unique<DocSystem>(world); }

}  // namespace wtsim::world
