// BM_OldestAfterDeletes/D: what the TTL account's query loop costs in WiredTiger 3.2.1 when the
// first D entries of the created_at index are deleted (the first TTL pass after a late index).
//
// The query is find().sort({created_at: 1}).limit(1): on the index, a snapshot, one cursor next()
// from the start, which must step over every deleted entry before the first live one. The
// entries are the engine's index entries in shape (16-byte keys: a big-endian date then a record
// id; 8-byte values), D + 1000 of them inserted in order in transactions of 1000, then a
// checkpoint, then the first D deleted in transactions of 100. The wall time of one query is read
// in four states, in this order:
//   first_us       the first query after the deletes (every deleted entry still in memory);
//   again_us       the median of the next 20 (the first one's cursor marked each page on which it
//                  skipped over 1000 deleted entries to be evicted soon, and released it);
//   checkpoint_us  the median of 20 after a checkpoint (reconciliation writes the pages without
//                  the deleted entries, but the in-memory pages keep them until evicted);
//   checkpoint4_us the same after three more checkpoints, each after 10 new entries at the end;
//   restart_us     the median of 20 after a clean close and a reopen (pages read from disk,
//                  where the deleted entries are gone).
// per_deleted_ns = (first_us - restart_us) / D is the cost of one deleted entry in memory, the
// cost model's `deleted_entry_ns` (engine/cost_model.h).
//
// Runs on the project's simulated disk, with a Simulator for WiredTiger's own threads (the fiber
// layer refuses a WiredTiger thread without one); the timed calls are made from the main context.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "bench/bench_common.h"
#include "engine/wt_connection.h"
#include "faults/disk.h"
#include "faults/sim_file_system.h"
#include "sim/scheduler.h"

namespace wtsim::bench {
namespace {

constexpr uint64_t kLive = 1000;        // live entries after the deleted prefix
constexpr uint64_t kInsertGroup = 1000;  // entries per insert transaction
constexpr uint64_t kDeleteGroup = 100;   // entries per delete transaction
constexpr int kSamples = 20;             // queries per measured state (median)
constexpr const char* kIndex = "table:created_at_1";

// A created_at index entry's key: the date (big-endian, so keys sort by it) then the record id.
std::vector<uint8_t> key_of_entry(uint64_t i) {
  std::vector<uint8_t> k(16);
  const uint64_t date_ms = 1'600'000'000'000ULL + i;
  for (int b = 0; b < 8; ++b) k[b] = static_cast<uint8_t>(date_ms >> (56 - 8 * b));
  for (int b = 0; b < 8; ++b) k[8 + b] = static_cast<uint8_t>(i >> (56 - 8 * b));
  return k;
}

int put(WT_CURSOR* c, uint64_t i) {
  const std::vector<uint8_t> k = key_of_entry(i);
  WT_ITEM key{k.data(), k.size(), nullptr, 0, 0};
  WT_ITEM value{k.data() + 8, 8, nullptr, 0, 0};
  c->set_key(c, &key);
  c->set_value(c, &value);
  return c->insert(c);
}

int remove_entry(WT_CURSOR* c, uint64_t i) {
  const std::vector<uint8_t> k = key_of_entry(i);
  WT_ITEM key{k.data(), k.size(), nullptr, 0, 0};
  c->set_key(c, &key);
  return c->remove(c);
}

// Entries [from, to) inserted (or removed) in transactions of `group`.
int in_groups(WT_SESSION* s, uint64_t from, uint64_t to, uint64_t group, bool insert) {
  WT_CURSOR* c = nullptr;
  int ret = s->open_cursor(s, kIndex, nullptr, nullptr, &c);
  for (uint64_t g = from; ret == 0 && g < to; g += group) {
    ret = s->begin_transaction(s, nullptr);
    for (uint64_t i = g; ret == 0 && i < std::min(to, g + group); ++i) ret = insert ? put(c, i) : remove_entry(c, i);
    ret = ret == 0 ? s->commit_transaction(s, nullptr) : (s->rollback_transaction(s, nullptr), ret);
  }
  if (c != nullptr) c->close(c);
  return ret;
}

// One query: a snapshot, one next() from the start. Returns the wall time in microseconds, or -1
// when the first entry is not the first live one.
double query_us(WT_SESSION* s, uint64_t first_live) {
  const auto start = std::chrono::steady_clock::now();
  WT_CURSOR* c = nullptr;
  int ret = s->begin_transaction(s, nullptr);
  if (ret == 0) ret = s->open_cursor(s, kIndex, nullptr, nullptr, &c);
  if (ret == 0) ret = c->next(c);
  WT_ITEM key{};
  if (ret == 0) ret = c->get_key(c, &key);
  const bool right = ret == 0 && key.size == 16 && std::memcmp(key.data, key_of_entry(first_live).data(), 16) == 0;
  if (c != nullptr) c->close(c);
  s->commit_transaction(s, nullptr);
  const std::chrono::duration<double, std::micro> took = std::chrono::steady_clock::now() - start;
  return right ? took.count() : -1;
}

double median_us(WT_SESSION* s, uint64_t first_live) {
  std::vector<double> t;
  for (int i = 0; i < kSamples; ++i) t.push_back(query_us(s, first_live));
  std::sort(t.begin(), t.end());
  return t.front() < 0 ? -1 : t[t.size() / 2];
}

void BM_OldestAfterDeletes(benchmark::State& state) {
  const uint64_t deleted = static_cast<uint64_t>(state.range(0));
  sim::Simulator sim(/*seed=*/42, std::numeric_limits<sim::Nanos>::max());  // WiredTiger's threads
  faults::Disk disk;
  engine::WtConfig config;
  config.cache_mb = 2048;  // the TTL scenarios' cache: nothing is evicted for room
  for (auto _ : state) {
    auto fs = std::make_unique<faults::SimFileSystem>(disk, nullptr, next_home("/bench/ttldip"));
    engine::WtConnection conn;
    if (conn.open(*fs, config) != 0) return state.SkipWithError("wiredtiger_open failed");
    WT_SESSION* s = conn.open_session();
    int ret = s->create(s, kIndex, "key_format=u,value_format=u");
    if (ret == 0) ret = in_groups(s, 0, deleted + kLive, kInsertGroup, true);
    if (ret == 0) ret = s->checkpoint(s, nullptr);
    if (ret == 0) ret = in_groups(s, 0, deleted, kDeleteGroup, false);
    if (ret != 0) return state.SkipWithError("loading or deleting failed");
    const double first = query_us(s, deleted);
    const double again = median_us(s, deleted);
    const double after_checkpoint = s->checkpoint(s, nullptr) == 0 ? median_us(s, deleted) : -1;
    double after_more_checkpoints = after_checkpoint;
    for (uint64_t k = 1; k <= 3 && after_more_checkpoints >= 0; ++k) {  // each after a few new entries at the end
      const uint64_t at = deleted + kLive + k * kInsertGroup;
      if (in_groups(s, at, at + 10, 10, true) != 0 || s->checkpoint(s, nullptr) != 0) after_more_checkpoints = -1;
      if (after_more_checkpoints >= 0) after_more_checkpoints = median_us(s, deleted);
    }
    conn.close();
    fs = std::make_unique<faults::SimFileSystem>(disk, nullptr, next_home("/bench/ttldip"));
    if (conn.open(*fs, config) != 0) return state.SkipWithError("reopen failed");
    s = conn.open_session();
    query_us(s, deleted);  // reads the pages in
    const double restart = median_us(s, deleted);
    conn.close();
    if (first < 0 || again < 0 || after_checkpoint < 0 || after_more_checkpoints < 0 || restart < 0) {
      return state.SkipWithError("a query missed the first live entry, or a write failed");
    }
    state.counters["first_us"] = first;
    state.counters["again_us"] = again;
    state.counters["checkpoint_us"] = after_checkpoint;
    state.counters["checkpoint4_us"] = after_more_checkpoints;
    state.counters["restart_us"] = restart;
    state.counters["per_deleted_ns"] = deleted == 0 ? 0 : (first - restart) * 1000.0 / static_cast<double>(deleted);
  }
}

BENCHMARK(BM_OldestAfterDeletes)->Arg(0)->Arg(10'000)->Arg(100'000)->Arg(1'000'000)->Iterations(1)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace wtsim::bench
