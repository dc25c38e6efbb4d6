// Durable single-document inserts: the document engine against the raw WiredTiger work it does.
//
// BM_EngineDurableInserts: DocumentEngine (oplog on, document-level locking, one secondary index
// on "g") inserting one document {_id: i, g: i % 100, pad: 100 bytes} per iteration with
// insert_many(..., WriteConcern{durable=true}): one WiredTiger transaction holding the record,
// the index entry and the oplog entry, then a log fsync. It runs in a fiber of the deterministic
// runtime (virtual wall clock installed), like BM_SimulatedDurableCommits: the engine parks the
// fiber on virtual-time resources (cpu, disk) to pay its cost model.
//
// BM_RawWiredTigerThreeInsertsPerCommit: the same WiredTiger work by hand, on the same kind of
// simulated disk, with no fibers, no virtual clock, no engine: per iteration begin_transaction,
// insert the record (KeyString _id -> BSON), the index entry (KeyString g + record key -> record
// key) and the oplog entry (ts -> BSON {ts, ns, op, o: doc}), commit, log_flush("sync=on").
// The BSON encodings are made in the loop, as the engine must make them too.
//
// The ratio engine / raw (items per second) is the engine's efficiency; the goal is >= 50 %.
#include <benchmark/benchmark.h>

#include <limits>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/bench_common.h"
#include "engine/engine.h"
#include "engine/key_string.h"
#include "engine/operation_context.h"
#include "engine/wt_connection.h"
#include "faults/disk.h"
#include "faults/sim_file_system.h"
#include "sim/scheduler.h"
#include "sim/sync.h"
#include "sim/virtual_clock.h"

namespace wtsim::bench {
namespace {

constexpr const char* kNs = "bench.c";

// The inserted document: an integer _id, a 100-valued secondary key and ~100 bytes of padding.
nlohmann::json insert_doc(uint64_t i) {
  static const std::string pad(100, 'p');
  return {{"_id", static_cast<int64_t>(i)}, {"g", static_cast<int64_t>(i % 100)}, {"pad", pad}};
}

void BM_EngineDurableInserts(benchmark::State& state) {
  sim::RunOutcome outcome;
  {
    // No virtual time limit: every insert costs ~1 ms of virtual time (the fsync).
    sim::Simulator sim(/*seed=*/42, std::numeric_limits<sim::Nanos>::max());
    faults::Disk disk;
    faults::SimFileSystem fs(disk, nullptr, next_home("/bench/engine"));
    engine::WtConnection conn;
    if (const int ret = conn.open(fs, engine::WtConfig{}); ret != 0) {
      state.SkipWithError(("wiredtiger_open failed: " + std::to_string(ret)).c_str());
      return;
    }
    sim::Resource cpu("cpu", 2);
    engine::EngineEnv env;
    env.sim = &sim;
    env.cpu = &cpu;
    env.file_bytes = [&disk](const std::string& name) {
      for (const auto& f : disk.files()) {
        if (f.name == name) return f.current_bytes;
      }
      return uint64_t{0};
    };
    {
      engine::DocumentEngine eng(engine::EngineConfig{}, env, conn.get());  // oplog on, kDocument
      sim.spawn("writer", "node", [&] {
        engine::OperationContext op(conn.get());  // closed before the connection
        if (const int ret = eng.open(op); ret != 0) {
          state.SkipWithError(("engine open failed: " + std::to_string(ret)).c_str());
          return;
        }
        if (const engine::Status s = eng.create_index(op, kNs, engine::IndexSpec{"g_1", {{"g", 1}}, false, std::nullopt, ""});
            !s.ok()) {
          state.SkipWithError(("create_index failed: " + std::to_string(s.trace_code())).c_str());
          return;
        }
        uint64_t i = 0;
        for (auto _ : state) {
          const engine::WriteResult r = eng.insert_many(op, kNs, {insert_doc(i++)}, engine::WriteConcern{true});
          if (!r.ok() || r.n != 1) {
            state.SkipWithError(("durable insert failed: WiredTiger " + std::to_string(r.status.wt_code)).c_str());
            break;
          }
        }
        // A check that each insert did the three WiredTiger inserts (record, index, oplog).
        const auto status = eng.server_status(op);
        const auto& cursor = status["wiredTiger"]["cursor"];
        if (cursor.contains("cursor insert calls") && i > 0) {
          state.counters["wt_inserts_per_doc"] = cursor["cursor insert calls"].get<double>() / static_cast<double>(i);
        }
      });
      outcome = sim.run();
    }
    conn.close();
  }
  if (outcome.kind != sim::RunOutcome::Kind::kFinished) {
    state.SkipWithError(("simulation ended: " + std::string(sim::to_string(outcome.kind))).c_str());
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()));
}

BENCHMARK(BM_EngineDurableInserts)->UseRealTime();

WT_ITEM item_of(const void* data, size_t size) {
  WT_ITEM item{};
  item.data = data;
  item.size = size;
  return item;
}

void BM_RawWiredTigerThreeInsertsPerCommit(benchmark::State& state) {
  sim::Simulator sim(/*seed=*/42);  // WiredTiger's threads run on it; outlives the connection
  faults::Disk disk;
  faults::SimFileSystem fs(disk, nullptr, next_home("/bench/raw3"));
  engine::WtConnection conn;
  if (const int ret = conn.open(fs, engine::WtConfig{}); ret != 0) {
    state.SkipWithError(("wiredtiger_open failed: " + std::to_string(ret)).c_str());
    return;
  }
  {
    WT_SESSION* s = nullptr;
    WT_CURSOR* records = nullptr;
    WT_CURSOR* index = nullptr;
    WT_CURSOR* oplog = nullptr;
    int ret = conn.get()->open_session(conn.get(), nullptr, "isolation=snapshot", &s);
    if (ret == 0) ret = s->create(s, "table:records", "key_format=u,value_format=u");
    if (ret == 0) ret = s->create(s, "table:index_g", "key_format=u,value_format=u");
    if (ret == 0) ret = s->create(s, "table:oplog", "key_format=q,value_format=u");
    if (ret == 0) ret = s->open_cursor(s, "table:records", nullptr, nullptr, &records);
    if (ret == 0) ret = s->open_cursor(s, "table:index_g", nullptr, nullptr, &index);
    if (ret == 0) ret = s->open_cursor(s, "table:oplog", nullptr, nullptr, &oplog);
    if (ret != 0) state.SkipWithError(("setup failed: " + std::to_string(ret)).c_str());
    uint64_t i = 0;
    for (auto _ : state) {
      if (ret != 0) break;
      const nlohmann::json doc = insert_doc(i);
      const std::string rkey = engine::key_of(doc["_id"]);
      const std::string ikey = engine::key_of(doc["g"]) + rkey;
      const std::vector<uint8_t> record = nlohmann::json::to_bson(doc);
      const int64_t ts = static_cast<int64_t>(++i);
      nlohmann::json entry = {{"ts", ts}, {"ns", kNs}, {"op", "u"}};
      entry["o"] = doc;
      const std::vector<uint8_t> oplog_value = nlohmann::json::to_bson(entry);

      ret = s->begin_transaction(s, "isolation=snapshot");
      WT_ITEM k = item_of(rkey.data(), rkey.size());
      WT_ITEM v = item_of(record.data(), record.size());
      if (ret == 0) {
        records->set_key(records, &k);
        records->set_value(records, &v);
        ret = records->insert(records);
      }
      WT_ITEM ik = item_of(ikey.data(), ikey.size());
      if (ret == 0) {
        index->set_key(index, &ik);
        index->set_value(index, &k);
        ret = index->insert(index);
      }
      WT_ITEM ov = item_of(oplog_value.data(), oplog_value.size());
      if (ret == 0) {
        oplog->set_key(oplog, ts);
        oplog->set_value(oplog, &ov);
        ret = oplog->insert(oplog);
      }
      if (ret == 0) {
        ret = s->commit_transaction(s, nullptr);
      } else {
        s->rollback_transaction(s, nullptr);
      }
      if (ret == 0) ret = s->log_flush(s, "sync=on");
      if (ret != 0) state.SkipWithError(("durable commit failed: " + std::to_string(ret)).c_str());
    }
    if (s != nullptr) s->close(s, nullptr);  // closes the cursors too; before the connection
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()));
  conn.close();
}

BENCHMARK(BM_RawWiredTigerThreeInsertsPerCommit)->UseRealTime();

}  // namespace
}  // namespace wtsim::bench
