// The floor of the TTL account experiment: only the WiredTiger calls the engine must make.
//
// The account: 900 virtual seconds of inserts at 8,500 documents/s (7.65 million documents) in
// insertMany batches of 1000, each document {_id: "oid<N>", value: int, created_at: Date,
// u1..u5: five 36-char UUID strings} (~280 bytes of BSON); a TTL pass every 60 s deletes the
// documents older than 300 s, and a checkpoint follows every 60 s.
//
// BM_RawWiredTigerTtlFloor/N does that account at N documents per virtual second (900 * N
// documents) by hand, on the project's simulated disk (faults::Disk + SimFileSystem, WtConfig with
// the log on, cache 2048 MB), with no engine, no model, no fibers, no virtual clock and no trace:
// - inserts in transactions of 64 documents (a 1000-document batch is 15 x 64 + 40); per
//   document 4 cursor inserts: the record (8-byte big-endian number -> the BSON document), the
//   _id index entry (KeyString "oid<N>" + record key -> record key), the created_at index entry
//   (KeyString Date + record key -> record key) and the oplog entry (ts -> {ns, o: doc, op, ts});
// - a journal flush (log_flush "sync=on") per 100 virtual ms (N / 10 documents), never per commit;
// - every 60 virtual seconds (60 * N documents, passes at 60, 120, ..., 900 s) a TTL pass: a
//   next() scan of the created_at index from its start collecting the entries older than 300 s,
//   then per document one transaction: search + get_value of the record, remove the record and
//   its 2 index entries, insert a ~75-byte delete oplog entry; then session->checkpoint.
// The BSON values are one template made once with the engine's BsonBuilder, in the engine's
// shape, and patched per document (_id digits, value, created_at, a few UUID bytes), so the timed
// loop spends its time in WiredTiger, not encoding.
//
// This is the best speed any full-scale run of the account can reach on this machine: the engine
// does all of this and more (its searches, locks, BSON work, cost model, fibers and trace).
// The counter compression = 900 / wall seconds is the virtual-to-wall time ratio of that floor.
#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "bench/bench_common.h"
#include "engine/bson.h"
#include "engine/wt_connection.h"
#include "faults/disk.h"
#include "faults/sim_file_system.h"
#include "sim/scheduler.h"

namespace wtsim::bench {
namespace {

constexpr uint64_t kVirtualSeconds = 900;
constexpr uint64_t kExpireSeconds = 300;
constexpr uint64_t kPassSeconds = 60;  // TTL monitor period and checkpoint_interval
constexpr uint64_t kBatch = 1000;      // insertMany batch
constexpr uint64_t kGroup = 64;        // documents per WiredTiger transaction
constexpr int64_t kEpochMs = 1'600'000'000'000;
constexpr size_t kIdDigits = 7;        // "oid" + 7 digits: up to 9,999,999 documents
constexpr const char* kNs = "ttl.events";

void patch_le(std::vector<uint8_t>& buf, size_t at, uint64_t x, int bytes) {
  for (int i = 0; i < bytes; ++i) buf[at + i] = static_cast<uint8_t>((x >> (8 * i)) & 0xff);
}

void write_digits(char* at, uint64_t x, size_t n) {
  for (size_t i = n; i-- > 0; x /= 10) at[i] = static_cast<char>('0' + x % 10);
}

using engine::BsonBuilder;

const std::string kIdTemplate = "oid" + std::string(kIdDigits, '0');

// ---- The per-document byte buffers, built once with the engine's BsonBuilder in the engine's
// own shape (nlohmann's key order, a Date as {"$date": ms}) and patched per document. ----

// The insert oplog entry {ns, o: doc, op, ts}; the record value is its embedded `o`.
struct InsertEntry {
  std::vector<uint8_t> bytes;
  size_t ts_at = 0, doc_at = 0, doc_size = 0, id_at = 0, value_at = 0, created_at = 0, u1_at = 0;

  InsertEntry() {
    BsonBuilder date;
    date.add_int("$date", kEpochMs);  // int64: an epoch in ms does not fit in 32 bits
    const std::vector<uint8_t> date_bytes = std::move(date).finish();
    const std::string uuid = "123e4567-e89b-12d3-a456-426614174000";
    BsonBuilder o;
    o.add_string("_id", kIdTemplate);
    id_at = o.size() - 1 - kIdDigits;
    o.add_document("created_at", date_bytes.data(), date_bytes.size());
    created_at = o.size() - 1 - 8;
    o.add_string("u1", uuid);
    u1_at = o.size() - 1 - uuid.size();
    for (const char* u : {"u2", "u3", "u4", "u5"}) o.add_string(u, uuid);
    o.add_int("value", 0);  // int32
    value_at = o.size() - 4;
    const std::vector<uint8_t> doc = std::move(o).finish();
    BsonBuilder entry;
    entry.add_string("ns", kNs);
    entry.add_document("o", doc.data(), doc.size());
    doc_at = entry.size() - doc.size();
    doc_size = doc.size();
    entry.add_string("op", "u");
    entry.add_int("ts", 0);  // int32, as the engine's timestamps stay below 2^31
    ts_at = entry.size() - 4;
    bytes = std::move(entry).finish();
  }

  void patch(uint64_t doc, int64_t ts, int64_t created_ms) {
    patch_le(bytes, ts_at, static_cast<uint64_t>(ts), 4);
    write_digits(reinterpret_cast<char*>(&bytes[doc_at + id_at]), doc, kIdDigits);
    patch_le(bytes, doc_at + value_at, doc * 2654435761u, 4);
    patch_le(bytes, doc_at + created_at, static_cast<uint64_t>(created_ms), 8);
    write_digits(reinterpret_cast<char*>(&bytes[doc_at + u1_at]), doc, 8);  // the UUIDs differ too
  }
};

// The delete oplog entry {ns, o: {_id: "oid<N>"}, op: "d", ts}.
struct DeleteEntry {
  std::vector<uint8_t> bytes;
  size_t ts_at = 0, id_at = 0;

  DeleteEntry() {
    BsonBuilder o;
    o.add_string("_id", kIdTemplate);
    const size_t id_in_o = o.size() - 1 - kIdDigits;
    const std::vector<uint8_t> doc = std::move(o).finish();
    BsonBuilder entry;
    entry.add_string("ns", kNs);
    entry.add_document("o", doc.data(), doc.size());
    id_at = entry.size() - doc.size() + id_in_o;
    entry.add_string("op", "d");
    entry.add_int("ts", 0);
    ts_at = entry.size() - 4;
    bytes = std::move(entry).finish();
  }

  void patch(uint64_t doc, int64_t ts) {
    patch_le(bytes, ts_at, static_cast<uint64_t>(ts), 4);
    write_digits(reinterpret_cast<char*>(&bytes[id_at]), doc, kIdDigits);
  }
};

// The patch offsets land where a decoder finds the fields (checked once, before timing).
bool templates_decode(InsertEntry insert, DeleteEntry del) {
  insert.patch(1234567, 42, kEpochMs + 1);
  del.patch(7654321, 43);
  const engine::Document i = engine::from_bson(insert.bytes.data(), insert.bytes.size());
  const engine::Document d = engine::from_bson(del.bytes.data(), del.bytes.size());
  return i.at("ts") == 42 && i.at("o").at("_id") == "oid1234567" && i.at("o").at("created_at").at("$date") == kEpochMs + 1 &&
         d.at("ts") == 43 && d.at("o").at("_id") == "oid7654321";
}

// Index and record keys, as the engine's KeyString encodes them.
struct Keys {
  char record[8];
  char id[13 + 8];    // 0x1e "oid<7 digits>" 00 00 | record key
  char date[9 + 8];   // 0x5a big-endian(ms ^ sign bit) | record key

  void set(uint64_t doc, int64_t created_ms) {
    for (int i = 0; i < 8; ++i) record[i] = static_cast<char>((doc >> (56 - 8 * i)) & 0xff);
    id[0] = 30;
    std::memcpy(id + 1, "oid", 3);
    write_digits(id + 4, doc, kIdDigits);
    id[11] = id[12] = '\0';
    std::memcpy(id + 13, record, 8);
    date_prefix(date, created_ms);
    std::memcpy(date + 9, record, 8);
  }

  static void date_prefix(char* out, int64_t ms) {
    const uint64_t x = static_cast<uint64_t>(ms) ^ (1ULL << 63);
    out[0] = 90;
    for (int i = 0; i < 8; ++i) out[1 + i] = static_cast<char>((x >> (56 - 8 * i)) & 0xff);
  }
};

WT_ITEM item_of(const void* data, size_t size) {
  WT_ITEM item{};
  item.data = data;
  item.size = size;
  return item;
}

// ---- The run. ----

struct Run {
  uint64_t rate = 0;  // documents per virtual second
  WT_SESSION* s = nullptr;
  WT_CURSOR* records = nullptr;
  WT_CURSOR* id_index = nullptr;
  WT_CURSOR* date_index = nullptr;
  WT_CURSOR* oplog = nullptr;
  InsertEntry insert_entry;
  DeleteEntry delete_entry;
  Keys keys{};
  int64_t ts = 0;
  uint64_t inserted = 0, deleted = 0, wt_ops = 0, flushes = 0, checkpoints = 0;
  double ttl_wall_s = 0, checkpoint_wall_s = 0;  // wall time in the TTL passes, the checkpoints
  std::vector<uint64_t> expired;  // one TTL pass's scan

  int64_t created_ms(uint64_t doc) const { return kEpochMs + static_cast<int64_t>(doc * 1000 / rate); }
};

int open_tables(WT_CONNECTION* conn, Run& r) {
  int ret = conn->open_session(conn, nullptr, "isolation=snapshot", &r.s);
  WT_SESSION* s = r.s;
  if (ret == 0) ret = s->create(s, "table:records", "key_format=u,value_format=u");
  if (ret == 0) ret = s->create(s, "table:index_id", "key_format=u,value_format=u");
  if (ret == 0) ret = s->create(s, "table:index_created_at", "key_format=u,value_format=u");
  if (ret == 0) ret = s->create(s, "table:oplog", "key_format=q,value_format=u");
  if (ret == 0) ret = s->open_cursor(s, "table:records", nullptr, nullptr, &r.records);
  if (ret == 0) ret = s->open_cursor(s, "table:index_id", nullptr, nullptr, &r.id_index);
  if (ret == 0) ret = s->open_cursor(s, "table:index_created_at", nullptr, nullptr, &r.date_index);
  if (ret == 0) ret = s->open_cursor(s, "table:oplog", nullptr, nullptr, &r.oplog);
  return ret;
}

int insert_u(WT_CURSOR* c, const WT_ITEM& key, const WT_ITEM& value) {
  c->set_key(c, &key);
  c->set_value(c, &value);
  return c->insert(c);
}

int remove_u(WT_CURSOR* c, const WT_ITEM& key) {
  c->set_key(c, &key);
  return c->remove(c);
}

int insert_oplog(Run& r, const std::vector<uint8_t>& entry) {
  const WT_ITEM v = item_of(entry.data(), entry.size());
  r.oplog->set_key(r.oplog, r.ts);
  r.oplog->set_value(r.oplog, &v);
  ++r.wt_ops;
  return r.oplog->insert(r.oplog);
}

// The 4 inserts of one document (inside the group's transaction).
int insert_doc(Run& r, uint64_t doc) {
  const int64_t created = r.created_ms(doc);
  r.insert_entry.patch(doc, ++r.ts, created);
  r.keys.set(doc, created);
  const WT_ITEM rkey = item_of(r.keys.record, sizeof r.keys.record);
  const WT_ITEM record = item_of(r.insert_entry.bytes.data() + r.insert_entry.doc_at, r.insert_entry.doc_size);
  int ret = insert_u(r.records, rkey, record);
  if (ret == 0) ret = insert_u(r.id_index, item_of(r.keys.id, sizeof r.keys.id), rkey);
  if (ret == 0) ret = insert_u(r.date_index, item_of(r.keys.date, sizeof r.keys.date), rkey);
  r.wt_ops += 3;
  return ret == 0 ? insert_oplog(r, r.insert_entry.bytes) : ret;
}

int insert_group(Run& r, uint64_t n) {
  int ret = r.s->begin_transaction(r.s, "isolation=snapshot");
  for (uint64_t i = 0; ret == 0 && i < n; ++i) ret = insert_doc(r, r.inserted + i);
  if (ret != 0) {
    r.s->rollback_transaction(r.s, nullptr);
    return ret;
  }
  ret = r.s->commit_transaction(r.s, nullptr);
  if (ret == 0) r.inserted += n;
  return ret;
}

// The TTL scan: created_at entries from the start while older than `bound_ms`.
int collect_expired(Run& r, int64_t bound_ms) {
  char bound[9];
  Keys::date_prefix(bound, bound_ms);
  r.expired.clear();
  WT_CURSOR* c = r.date_index;
  int ret = c->reset(c);
  while (ret == 0 && (ret = c->next(c)) == 0) {
    WT_ITEM key;
    if ((ret = c->get_key(c, &key)) != 0) break;
    if (key.size != sizeof r.keys.date) return EINVAL;
    const auto* k = static_cast<const unsigned char*>(key.data);
    if (std::memcmp(k, bound, sizeof bound) >= 0) break;
    uint64_t doc = 0;
    for (int i = 0; i < 8; ++i) doc = (doc << 8) | k[9 + i];
    r.expired.push_back(doc);
  }
  if (ret == WT_NOTFOUND) ret = 0;
  const int reset = c->reset(c);
  return ret != 0 ? ret : reset;
}

// One TTL delete: read the record, remove it and its 2 index entries, log the delete.
int delete_doc_ops(Run& r, uint64_t doc) {
  r.keys.set(doc, r.created_ms(doc));
  const WT_ITEM rkey = item_of(r.keys.record, sizeof r.keys.record);
  r.records->set_key(r.records, &rkey);
  int ret = r.records->search(r.records);
  WT_ITEM value;
  if (ret == 0) ret = r.records->get_value(r.records, &value);
  if (ret == 0) ret = remove_u(r.records, rkey);
  if (ret == 0) ret = remove_u(r.id_index, item_of(r.keys.id, sizeof r.keys.id));
  if (ret == 0) ret = remove_u(r.date_index, item_of(r.keys.date, sizeof r.keys.date));
  r.wt_ops += 3;
  if (ret != 0) return ret;
  r.delete_entry.patch(doc, ++r.ts);
  return insert_oplog(r, r.delete_entry.bytes);
}

int delete_doc(Run& r, uint64_t doc) {
  int ret = r.s->begin_transaction(r.s, "isolation=snapshot");
  if (ret == 0) ret = delete_doc_ops(r, doc);
  if (ret != 0) {
    r.s->rollback_transaction(r.s, nullptr);
    return ret;
  }
  ret = r.s->commit_transaction(r.s, nullptr);
  if (ret == 0) ++r.deleted;
  return ret;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// The TTL pass and the checkpoint at virtual second `t`.
int periodic_work(Run& r, uint64_t t) {
  int ret = 0;
  auto start = std::chrono::steady_clock::now();
  if (t > kExpireSeconds) {
    ret = collect_expired(r, kEpochMs + static_cast<int64_t>((t - kExpireSeconds) * 1000));
    for (size_t i = 0; ret == 0 && i < r.expired.size(); ++i) ret = delete_doc(r, r.expired[i]);
  }
  r.ttl_wall_s += seconds_since(start);
  start = std::chrono::steady_clock::now();
  if (ret == 0) ret = r.s->checkpoint(r.s, nullptr);
  if (ret == 0) ++r.checkpoints;
  r.checkpoint_wall_s += seconds_since(start);
  return ret;
}

// The whole account: batches of 1000, groups of 64, the journal flush and the 60 s work.
int run_account(Run& r) {
  const uint64_t total = kVirtualSeconds * r.rate;
  const uint64_t flush_every = r.rate >= 10 ? r.rate / 10 : 1;
  uint64_t next_flush = flush_every, next_pass = kPassSeconds * r.rate;
  int ret = 0;
  for (uint64_t batch_end = 0; ret == 0 && r.inserted < total;) {
    batch_end = std::min(total, batch_end + kBatch);
    while (ret == 0 && r.inserted < batch_end) {
      ret = insert_group(r, std::min(kGroup, batch_end - r.inserted));
      if (ret == 0 && r.inserted >= next_flush) {
        ret = r.s->log_flush(r.s, "sync=on");
        ++r.flushes;
        while (next_flush <= r.inserted) next_flush += flush_every;
      }
      for (; ret == 0 && r.inserted >= next_pass; next_pass += kPassSeconds * r.rate) {
        ret = periodic_work(r, next_pass / r.rate);
      }
    }
  }
  return ret;
}

double peak_rss_mb() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;  // Linux: KiB
}

void report(benchmark::State& state, const Run& r, double wall_s, const faults::Disk& disk) {
  state.counters["docs_per_s"] = static_cast<double>(r.inserted) / wall_s;
  state.counters["wt_ops"] = static_cast<double>(r.wt_ops);
  state.counters["compression"] = static_cast<double>(kVirtualSeconds) / wall_s;
  state.counters["inserted"] = static_cast<double>(r.inserted);
  state.counters["deleted"] = static_cast<double>(r.deleted);
  state.counters["wall_s"] = wall_s;
  state.counters["ttl_wall_s"] = r.ttl_wall_s;
  state.counters["checkpoint_wall_s"] = r.checkpoint_wall_s;
  state.counters["disk_mb"] = static_cast<double>(disk.used_bytes()) / (1024.0 * 1024.0);
  state.counters["peak_rss_mb"] = peak_rss_mb();
}

void BM_RawWiredTigerTtlFloor(benchmark::State& state) {
  if (!templates_decode(InsertEntry{}, DeleteEntry{})) {
    state.SkipWithError("the BSON templates do not decode to their fields");
    return;
  }
  sim::Simulator sim(/*seed=*/42, std::numeric_limits<sim::Nanos>::max());  // WiredTiger's threads
  faults::Disk disk;
  faults::SimFileSystem fs(disk, nullptr, next_home("/bench/ttlfloor"));
  engine::WtConnection conn;
  engine::WtConfig config;
  config.cache_mb = 2048;  // the scenario's cache_mb; the log stays on
  if (const int ret = conn.open(fs, config); ret != 0) {
    state.SkipWithError(("wiredtiger_open failed: " + std::to_string(ret)).c_str());
    return;
  }
  Run r;
  r.rate = static_cast<uint64_t>(state.range(0));
  int ret = open_tables(conn.get(), r);
  for (auto _ : state) {
    if (ret != 0) break;
    const auto start = std::chrono::steady_clock::now();
    ret = run_account(r);
    const std::chrono::duration<double> wall = std::chrono::steady_clock::now() - start;
    report(state, r, wall.count(), disk);
  }
  if (ret != 0) state.SkipWithError(("WiredTiger call failed: " + std::to_string(ret)).c_str());
  if (r.s != nullptr) r.s->close(r.s, nullptr);  // closes the cursors too; before the connection
  conn.close();
}

BENCHMARK(BM_RawWiredTigerTtlFloor)
    ->Arg(170)
    ->Arg(850)
    ->Arg(8500)
    ->Iterations(1)
    ->Unit(benchmark::kSecond)
    ->UseRealTime();

}  // namespace
}  // namespace wtsim::bench
