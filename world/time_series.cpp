// The TTL experiments (shared/seeds/000): clients insert batches of {value, created_at, filler}
// at a steady rate into test.demo while old documents go away through the TTL monitor (an index
// with expireAfterSeconds; world/ttl_monitor.h) or a manual deleteMany job, optionally with the
// TTL index created late (a backlog) and a query loop timing find().sort({created_at: 1}).limit(1).
#include <cassert>

#include "world/doc_system.h"
#include "world/ttl_monitor.h"

namespace wtsim::world {
namespace {

constexpr const char* kNs = "test.demo";
constexpr const char* kField = "created_at";
constexpr int kUuidsPerDocument = 5;

// The back-to-back query loop's figures since the last metric sample: queries per second of
// virtual time, and their latency.
class QueryWindow {
 public:
  void add(sim::Nanos took_ns, bool ok, uint64_t deleted_stepped) {
    assert(took_ns >= 0);
    ++queries_;
    deleted_stepped_max_ = std::max(deleted_stepped_max_, deleted_stepped);
    failed_ += ok ? 0 : 1;
    took_ns_sum_ += took_ns;
    took_ns_max_ = std::max(took_ns_max_, took_ns);
  }

  // The window's figures, and a new window from `now_ns`.
  nlohmann::json take(sim::Nanos now_ns) {
    assert(now_ns >= since_ns_);
    const double seconds = static_cast<double>(now_ns - since_ns_) / static_cast<double>(sim::kNsPerSec);
    nlohmann::json out = {{"per_s", seconds > 0 ? static_cast<double>(queries_) / seconds : 0.0},
                          {"queries", queries_},
                          {"failed", failed_},
                          {"mean_us", queries_ == 0 ? 0 : took_ns_sum_ / static_cast<sim::Nanos>(queries_) / sim::kNsPerUs},
                          {"max_us", took_ns_max_ / sim::kNsPerUs},
                          {"deleted_entries_stepped_max", deleted_stepped_max_}};
    *this = QueryWindow{};
    since_ns_ = now_ns;
    return out;
  }

 private:
  sim::Nanos since_ns_ = 0;
  uint64_t queries_ = 0;
  uint64_t failed_ = 0;
  sim::Nanos took_ns_sum_ = 0;
  sim::Nanos took_ns_max_ = 0;
  uint64_t deleted_stepped_max_ = 0;  // inside WiredTiger (engine/deleted_entries.h)
};

class TimeSeriesSystem final : public DocSystem {
 public:
  using DocSystem::DocSystem;

  void spawn_actors(const std::string& suffix) override {
    sim::Simulator& sim = run_.sim();
    for (uint64_t i = 0; i < run_.scenario().workload.writers; ++i) {
      sim.spawn("inserter-" + std::to_string(i) + suffix, host_.fiber_group(), [this, i] { inserter(static_cast<int>(i)); });
    }
    const TtlSpec& ttl = run_.scenario().ttl;
    if (ttl.mode == TtlMode::kIndex) {
      sim.spawn("ttl-monitor" + suffix, host_.fiber_group(), [this] {
        monitor_.run(engine_, [this](properties::Property p, const std::string& detail) { finding(p, detail); });
      });
    }
    if (ttl.mode == TtlMode::kManual) sim.spawn("delete-job" + suffix, host_.fiber_group(), [this] { delete_job(); });
    if (ttl.mode != TtlMode::kNone && ttl.index_at_ns > 0) sim.spawn("index-builder" + suffix, host_.fiber_group(), [this] { late_index(); });
    if (ttl.query_loop != QueryLoop::kOff) sim.spawn("query-loop" + suffix, host_.fiber_group(), [this] { query_loop(); });
    if (ttl.touch_every_ns > 0) sim.spawn("toucher" + suffix, host_.fiber_group(), [this] { toucher(); });
    spawn_oplog_trimmer(suffix);
  }

  // TTL catches up: a whole pass must start and finish after the faults stopped.
  std::string liveness_pending(int64_t since_ns) const override {
    const TtlSpec& ttl = run_.scenario().ttl;
    if (ttl.mode != TtlMode::kIndex || !ttl.monitor_enabled) return "";
    return monitor_.last_pass_start_ns() >= since_ns ? "" : "no complete TTL pass since the faults stopped";
  }

  std::vector<properties::Marker> busy_phases() const override {
    std::vector<properties::Marker> phases = DocSystem::busy_phases();
    if (monitor_.in_pass()) phases.push_back(properties::Marker::kCrashDuringTtlPass);
    return phases;
  }

 private:
  engine::IndexSpec created_at_index() const {
    const TtlSpec& ttl = run_.scenario().ttl;
    engine::IndexSpec spec{"created_at_1", {{kField, 1}}, false, std::nullopt, ""};
    if (ttl.mode == TtlMode::kIndex) spec.expire_after_seconds = engine::Document(static_cast<uint64_t>(ttl.expire_after_ns / sim::kNsPerSec));
    return spec;
  }

  engine::Status create_schema(engine::OperationContext& op) override {
    engine::Status s = engine_->create_collection(op, kNs);
    const TtlSpec& ttl = run_.scenario().ttl;
    const bool index_now = ttl.mode != TtlMode::kNone && run_.sim().now_ns() >= ttl.index_at_ns;
    if (s.ok() && index_now) s = engine_->create_index(op, kNs, created_at_index());
    return s;
  }

  engine::Document make_doc(sim::Rng& rng, uint64_t value) {
    engine::Document filler = engine::Document::array();
    for (int i = 0; i < kUuidsPerDocument; ++i) {
      std::vector<uint8_t> uuid(16);
      for (uint8_t& b : uuid) b = static_cast<uint8_t>(rng.next());
      filler.push_back(engine::Document::binary(std::move(uuid), 4));  // BSON UUID (subtype 4)
    }
    return {{"_id", value}, {"value", value}, {kField, engine::make_date(engine_->now_ms())}, {"filler", filler}};
  }

  void inserter(int index) {
    const ClientScope scope(run_);
    const WorkloadSpec& w = run_.scenario().workload;
    sim::Simulator& sim = run_.sim();
    engine::OperationContext op(host_.node().conn());
    sim::Rng rng = sim::stream(run_.seed(), "workload.inserter." + std::to_string(index) + host_.generation_suffix());
    // _id values are unique across inserters and generations: (generation, inserter, counter).
    uint64_t value = (host_.node().generation() << 40) | (static_cast<uint64_t>(index) << 32);
    if (inserted_.size() <= static_cast<size_t>(index)) inserted_.resize(static_cast<size_t>(index) + 1);
    inserted_[static_cast<size_t>(index)] = {value, value};
    const sim::Nanos stop_ns = w.stop_inserts_at_ns > 0 ? w.stop_inserts_at_ns
                                                        : run_.end_ns();
    while (sim.now_ns() < std::min(stop_ns, run_.end_ns())) {
      std::vector<engine::Document> batch;
      for (uint64_t i = 0; i < w.batch_size; ++i) batch.push_back(make_doc(rng, value++));
      const engine::WriteConcern wc{rng.chance(w.durable_fraction)};
      write("insert_many", properties::WriteCommand::make_insert(kNs, batch), [&] { return engine_->insert_many(op, kNs, std::move(batch), wc); });
      inserted_[static_cast<size_t>(index)].second = value;
      sim.sleep_for(w.think_ns);
    }
  }

  // A refresh of a user's record: a random document of this generation gets created_at = now, so a TTL pass
  // that scanned it as expired must see, inside its delete, that it no longer is.
  void toucher() {
    const ClientScope scope(run_);
    sim::Simulator& sim = run_.sim();
    engine::OperationContext op(host_.node().conn());
    sim::Rng rng = sim::stream(run_.seed(), "workload.toucher" + host_.generation_suffix());
    const sim::Nanos every_ns = run_.scenario().ttl.touch_every_ns;
    while (sim.now_ns() < run_.end_ns()) {
      sim.sleep_for(rng.between(every_ns / 2, every_ns + every_ns / 2));
      if (sim.now_ns() >= run_.end_ns() || inserted_.empty()) continue;
      const auto [first, next] = inserted_[rng.below(inserted_.size())];
      if (next <= first) continue;
      const engine::Document filter = {{"_id", first + rng.below(next - first)}};
      const engine::Document touch = {{"$set", {{kField, engine::make_date(engine_->now_ms())}}}};
      write("update", properties::WriteCommand::make_update(kNs, filter, touch, /*upsert=*/false, /*multi=*/false),
            [&] { return engine_->update(op, kNs, filter, touch, /*upsert=*/false, /*multi=*/false, {false}); });
    }
  }

  void delete_job() {
    const TtlSpec& ttl = run_.scenario().ttl;
    sim::Simulator& sim = run_.sim();
    engine::OperationContext op(host_.node().conn());
    while (true) {
      sim.sleep_until(std::min(sim.now_ns() + ttl.manual_every_ns, run_.end_ns()));
      if (sim.now_ns() >= run_.end_ns()) break;
      const int64_t bound = engine_->now_ms() - ttl.expire_after_ns / sim::kNsPerMs;
      const sim::Nanos start_ns = sim.now_ns();
      const engine::Document older = {{kField, {{"$lt", engine::make_date(bound)}}}};
      const engine::WriteResult r =
          write("delete_job", properties::WriteCommand::make_delete(kNs, older, /*just_one=*/false), [&] { return engine_->remove(op, kNs, older, false, {}); });
      run_.trace().event(sim.now_ns(), sim.current().name, "delete_job",
                           {{"deleted", r.n}, {"took_ms", (sim.now_ns() - start_ns) / sim::kNsPerMs}});
    }
  }

  void late_index() {
    sim::Simulator& sim = run_.sim();
    const sim::Nanos at_ns = run_.scenario().ttl.index_at_ns;
    if (sim.now_ns() < at_ns) sim.sleep_until(std::min(at_ns, run_.end_ns()));
    if (sim.now_ns() >= run_.end_ns()) return;
    engine::OperationContext op(host_.node().conn());
    const sim::Nanos start_ns = sim.now_ns();
    const engine::Status s = host_.node_call("create_index", [&] { return engine_->create_index(op, kNs, created_at_index()); });
    run_.trace().event(sim.now_ns(), sim.current().name, "index_built",
                         {{"index", "created_at_1"}, {"code", s.trace_code()}, {"took_ms", (sim.now_ns() - start_ns) / sim::kNsPerMs}});
  }

  // The account's query loop: find().sort({created_at: 1}).limit(1) with explain, once per
  // query_every_ms (a "query" event each) or back to back as its run(900, query) did (each query
  // preceded by the shell's round trip; counted into the metric samples' query_loop, not traced
  // one by one: hundreds per second).
  void query_loop() {
    sim::Simulator& sim = run_.sim();
    const TtlSpec& ttl = run_.scenario().ttl;
    engine::OperationContext op(host_.node().conn());
    engine::FindRequest oldest;
    oldest.sort = std::make_pair(std::string(kField), 1);
    oldest.limit = 1;
    // Like the account, query once the index exists (before it, each call would sort everything).
    if (sim.now_ns() < ttl.index_at_ns) sim.sleep_until(std::min(ttl.index_at_ns, run_.end_ns()));
    const bool periodic = ttl.query_loop == QueryLoop::kEvery;
    while (true) {
      const sim::Nanos pause_ns = periodic ? ttl.query_every_ns : ttl.query_client_ns;
      sim.sleep_until(std::min(sim.now_ns() + pause_ns, run_.end_ns()));
      if (sim.now_ns() >= run_.end_ns()) break;
      const sim::Nanos start_ns = sim.now_ns();
      const engine::FindResult r = host_.node_call("find", [&] { return engine_->find(op, kNs, oldest); });
      const sim::Nanos took_ns = sim.now_ns() - start_ns;
      if (!periodic) {
        queries_.add(took_ns, r.status.ok(), r.deleted_entries_stepped);
        continue;
      }
      const engine::Document& stats = r.explain["executionStats"];
      engine::Document scan = stats["executionStages"];
      while (scan.contains("inputStage")) scan = engine::Document(scan["inputStage"]);
      run_.trace().event(sim.now_ns(), sim.current().name, "query",
                           {{"stage", scan.value("stage", "")},
                            {"keysExamined", stats.value("totalKeysExamined", 0)},
                            {"docsExamined", stats.value("totalDocsExamined", 0)},
                            {"seeks", scan.value("seeks", 0)},
                            {"works", scan.value("works", 0)},
                            {"took_us", took_ns / sim::kNsPerUs}});
    }
  }

  nlohmann::json sample_metrics() override {
    nlohmann::json sample = DocSystem::sample_metrics();
    if (sample.is_null() || run_.scenario().ttl.query_loop != QueryLoop::kBackToBack) return sample;
    sample["query_loop"] = queries_.take(run_.sim().now_ns());
    return sample;
  }

  QueryWindow queries_;

  TtlMonitor monitor_{run_, host_, run_.scenario().ttl};
  // Per inserter of this generation: [first _id, next _id) inserted so far (the toucher's pool).
  std::vector<std::pair<uint64_t, uint64_t>> inserted_;
};

}  // namespace

std::unique_ptr<System> make_time_series_system(RunContext& run, NodeContext& host) { return std::make_unique<TimeSeriesSystem>(run, host); }

}  // namespace wtsim::world
