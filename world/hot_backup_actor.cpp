#include "world/hot_backup_actor.h"

#include <algorithm>
#include <cstring>

#include "engine/election_state.h"
#include "engine/hot_backup.h"
#include "engine/min_valid.h"
#include "properties/backup_pins.h"
#include "sim/planted.h"
#include "world/doc_system.h"

namespace wtsim::world {
namespace {

constexpr const char* kSentinel = "backup.in_progress";
constexpr uint64_t kChunkBytes = 1 << 20;  // the copy yields between chunks

std::string file_of(const std::string& table_uri) { return table_uri.substr(table_uri.find(':') + 1) + ".wt"; }

}  // namespace

bool HotBackupActor::due() const { return run_.scenario().backup.mode != BackupMode::kNone && !done_; }

// Without the sentinel nothing tells a restarted node that a backup was abandoned: its pins stay
// (until the next backup's pin drops them) and keep old blocks from being reused. Reported.
// A backup that was due finishes or is abandoned cleanly (its pins dropped).
std::string HotBackupActor::liveness_pending() const {
  const BackupSpec& spec = run_.scenario().backup;
  const bool started = spec.mode != BackupMode::kNone && run_.sim().now_ns() >= spec.start_ns;
  if (copying_) return "the backup is still copying";
  return started && !done_ ? "the backup has neither finished nor been abandoned" : "";
}

// Checked once the backup finished: mid-backup pins are the point, and without the sentinel an
// abandoned backup's pins are expected (reported as stale_backup_pins instead). Every file
// WiredTiger's metadata lists is read, not only the tables the engine's catalog names.
void HotBackupActor::check_no_pins(WT_CONNECTION* conn, std::vector<properties::Finding>* problems) {
  if (!done_ || host_.disk().exists(kSentinel)) return;
  engine::OperationContext op(conn);
  std::vector<std::string> files;
  if (properties::files_holding_checkpoint(op.session(), engine::kBackupCheckpoint, &files) != 0) return;
  for (const std::string& f : files) {
    problems->emplace_back(properties::Property::kBackupLeavesNoPin, f + " still holds the backup checkpoint");
  }
}

void HotBackupActor::event(const std::string& actor, const char* kind, nlohmann::json details) {
  if (host_.member() > 0) details["member"] = host_.member();
  run_.trace().event(run_.sim().now_ns(), actor, kind, std::move(details));
}

void HotBackupActor::report_stale_pins(WT_CONNECTION* conn) {
  const std::vector<std::string> pinned = pinned_tables(conn);
  if (pinned.empty()) return;
  event("backup", "stale_backup_pins", {{"tables", pinned}});
}

std::vector<std::string> HotBackupActor::pinned_tables(WT_CONNECTION* conn) {
  engine::OperationContext op(conn);
  std::vector<std::string> tables = {engine::Catalog::kUri, engine::DocumentEngine::kOplogUri};
  for (const auto& [ns, coll] : engine_->catalog().collections()) {
    for (const std::string& t : tables_of(coll)) tables.push_back(t);
  }
  std::vector<std::string> pinned;
  for (const std::string& t : tables) {
    std::vector<std::string> names;
    if (engine::checkpoints_of(op.session(), "file:" + file_of(t), &names) != 0) continue;
    if (std::find(names.begin(), names.end(), engine::kBackupCheckpoint) != names.end()) pinned.push_back(t);
  }
  return pinned;
}

// The sentinel protocol, before WiredTiger opens: a node that crashed mid-backup discards the
// stale WiredTiger.backup and the partial copy and does a normal crash recovery.
void HotBackupActor::before_open() {
  faults::Disk& disk = host_.disk();
  if (!run_.scenario().backup.sentinel || !disk.exists(kSentinel)) return;
  if (planted::active(planted::Bug::kSkipSentinelCheck)) return;
  const bool stale = disk.exists("WiredTiger.backup");
  if (stale) disk.remove("WiredTiger.backup", /*durable=*/true);
  destination_ = std::make_unique<faults::Disk>();
  run_.reached(properties::Marker::kSentinelRecovery);
  event("backup", "sentinel_found", {{"stale_backup_file_removed", stale}});
}

// ... and only after a successful open (and a checkpoint) the sentinel goes, with the pins of
// the abandoned backup.
void HotBackupActor::after_open(WT_CONNECTION* conn) {
  if (!run_.scenario().backup.sentinel) return report_stale_pins(conn);
  if (!host_.disk().exists(kSentinel)) return;
  engine::OperationContext op(conn);
  const auto drop_pins = [&] {
    const int ret = engine::drop_backup_checkpoint(op.session());
    return ret != 0 ? ret : op.session()->checkpoint(op.session(), nullptr);
  };
  // A failure keeps the sentinel: the next start tries again.
  if (host_.node_call("sentinel_clear", drop_pins, {.handle_failure = false}) != 0) return;
  remove_sentinel();
  event("backup", "sentinel_cleared", nlohmann::json::object());
}

void HotBackupActor::create_sentinel() {
  faults::Disk& disk = host_.disk();
  const faults::InodeId id = disk.open(kSentinel, /*create=*/true, /*durable_entry=*/true);
  disk.write(id, 0, "1", 1);
  disk.sync(id);
  disk.sync_directory();
}

void HotBackupActor::remove_sentinel() {
  host_.disk().remove(kSentinel, /*durable=*/false);
  host_.disk().sync_directory();
}

// Copies one file from the node's disk to the destination, paying the bandwidth in virtual
// time chunk by chunk (writes and checkpoints go on meanwhile). A full destination sets
// copy_error_ (ENOSPC) and stops.
uint64_t HotBackupActor::copy_file(const std::string& name) {
  if (copy_error_ != 0) return 0;
  faults::Disk& disk = host_.disk();
  const faults::InodeId src = disk.open(name, false, false);
  if (src == 0) return 0;
  const faults::InodeId dst = destination_->open(name, true, true);
  uint64_t done = 0;
  while (done < disk.size(src)) {
    const uint64_t n = std::min<uint64_t>(kChunkBytes, disk.size(src) - done);
    std::vector<uint8_t> buf(n);
    disk.read(src, done, n, buf.data());
    if ((copy_error_ = destination_->write(dst, done, buf.data(), n)) != 0) return done;
    done += n;
    // Reading the source takes the node's disk queue at disk speed; the rest of the copy's time
    // (the destination's rate) does not, so WiredTiger's checkpoints and commits go on meanwhile.
    const sim::Nanos copy_ns = static_cast<sim::Nanos>(n) * 1'000'000 / static_cast<sim::Nanos>(run_.scenario().backup.copy_kb_per_s);
    const sim::Nanos read_ns = static_cast<sim::Nanos>(n) * run_.scenario().cost.disk_per_byte_ns;
    host_.pay_disk(read_ns);
    if (copy_ns > read_ns) run_.sim().sleep_for(copy_ns - read_ns);
    peak_disk_ = std::max(peak_disk_, host_.table_file_bytes());
  }
  destination_->sync(dst);
  return done;
}

// A collection's WiredTiger tables: its records, then each index's entries. A restore needs
// them all: a node whose _id index is missing cannot look a document up.
std::vector<std::string> HotBackupActor::tables_of(const engine::CollectionSpec& coll) {
  std::vector<std::string> tables = {coll.table};
  for (const engine::IndexSpec& index : coll.indexes) tables.push_back(index.table);
  return tables;
}

// Tables in copy order: by updates so far (the expansion-rate estimate), hottest or coldest
// first, or by name. A table released early stops growing early: hottest first is the account's.
std::vector<std::pair<std::string, std::string>> HotBackupActor::tables_in_order(const std::vector<std::string>& files) {
  const auto rewrites_of = [&](const std::string& ns) {
    const auto it = rewrites_.find(ns);
    return it != rewrites_.end() ? it->second : 0;
  };
  std::vector<std::pair<std::string, std::string>> tables;  // (ns or "", table uri), by name
  tables.emplace_back("", engine::Catalog::kUri);
  for (const auto& [ns, coll] : engine_->catalog().collections()) {
    for (const std::string& t : tables_of(coll)) tables.emplace_back(ns, t);
  }
  // A member's own records (its vote, its minValid) are pinned by the named checkpoint as every
  // table is: copied and released too, or their pin stays for good. `files`: the backup cursor's.
  if (!planted::active(planted::Bug::kReleaseSkipsNodeTables)) {
    for (const char* own : {engine::ElectionState::kUri, engine::MinValid::kUri}) {
      if (std::find(files.begin(), files.end(), file_of(own)) != files.end()) tables.emplace_back("", own);
    }
  }
  const BackupOrder order = run_.scenario().backup.order;
  if (order == BackupOrder::kName) return tables;
  std::stable_sort(tables.begin(), tables.end(), [&](const auto& a, const auto& b) {
    return order == BackupOrder::kHottestFirst ? rewrites_of(a.first) > rewrites_of(b.first) : rewrites_of(a.first) < rewrites_of(b.first);
  });
  return tables;
}

void HotBackupActor::run() {
  const BackupSpec& spec = run_.scenario().backup;
  sim::Simulator& sim = run_.sim();
  const sim::Nanos start_ns = spec.start_ns;
  if (sim.now_ns() < start_ns) sim.sleep_until(std::min(start_ns, run_.end_ns()));
  if (sim.now_ns() >= run_.end_ns()) return;
  engine::OperationContext op(host_.node().conn());
  destination_ = std::make_unique<faults::Disk>();
  if (spec.destination_mb > 0) destination_->set_capacity(spec.destination_mb << 20);
  copy_error_ = 0;
  const uint64_t disk_before = host_.table_file_bytes();
  peak_disk_ = disk_before;
  if (spec.sentinel) create_sentinel();
  event(sim.current().name, "backup_start", {{"mode", to_string(spec.mode)}, {"disk_bytes", disk_before}});
  uint64_t copied = 0;
  models::KvState expected;
  const auto copy = [&] {
    return spec.mode == BackupMode::kRelease ? release_backup(op, &expected, &copied) : baseline_backup(op, &expected, &copied);
  };
  if (host_.node_call("backup", copy, {.busy = &copying_}) != 0) return;
  if (copy_error_ != 0) return abandon(op, start_ns);
  if (spec.sentinel) remove_sentinel();
  done_ = true;
  event(sim.current().name, "backup_done",
                       {{"mode", to_string(spec.mode)}, {"took_ms", (sim.now_ns() - start_ns) / sim::kNsPerMs}, {"bytes_copied", copied},
                        {"disk_before", disk_before}, {"peak_disk", peak_disk_}});
  check_restore(expected);
}

// A failed copy fails the backup, never the node: the pins go, the partial copy is discarded,
// the sentinel is removed, and the reason is recorded.
void HotBackupActor::abandon(engine::OperationContext& op, sim::Nanos start_ns) {
  const int dropped = host_.node_call("backup_abandon", [&] { return engine::drop_backup_checkpoint(op.session()); },
                                       {.handle_failure = false});
  if (run_.scenario().backup.sentinel) remove_sentinel();
  destination_ = std::make_unique<faults::Disk>();
  done_ = true;  // not retried
  event(run_.sim().current().name, "backup_failed",
                       {{"error", std::string("backup destination: ") + std::strerror(copy_error_)},
                        {"pins_dropped", dropped == 0}, {"took_ms", (run_.sim().now_ns() - start_ns) / sim::kNsPerMs}});
}

int HotBackupActor::with_commits_held(const std::function<int()>& step) {
  constexpr sim::Nanos kPollNs = sim::kNsPerMs;
  constexpr int kPollsMax = 600'000;  // ten virtual minutes for the commits in flight to land
  struct Hold {
    bool& on;
    explicit Hold(bool& flag) : on(flag) { on = true; }
    ~Hold() { on = false; }  // also when a crash cancels the actor
  } hold(holding_commits_);
  for (int polls = 0; commits_in_flight_ > 0; ++polls) {
    assert(polls < kPollsMax && "a commit in flight never landed");
    run_.sim().sleep_for(kPollNs);
  }
  return step();
}

int HotBackupActor::point_in_time(models::KvState* expected, const std::function<int()>& checkpoint) {
  return with_commits_held([&] {
    snapshot_seq_ = host_.model().next_seq() - 1;
    *expected = host_.model().committed_state();
    host_.history().snapshot_pinned(snapshot_seq_);
    return checkpoint();
  });
}

// WiredTiger 3.2.1 gives a targeted checkpoint's file the log position of its start record,
// written after the checkpoint's snapshot: recovery skips that file's part of a transaction
// committed in between, though the checkpoint lacks it. No commit may land in that window.
int HotBackupActor::release(engine::OperationContext& op, const std::string& table_uri) {
  return with_commits_held([&] { return engine::release_backup_checkpoint(op.session(), table_uri); });
}

int HotBackupActor::baseline_backup(engine::OperationContext& op, models::KvState* expected, uint64_t* copied) {
  // The point in time is a checkpoint taken just before the cursor opens; log files are not
  // copied, so the restore is exactly that checkpoint.
  int ret = point_in_time(expected, [&] { return op.session()->checkpoint(op.session(), nullptr); });
  if (ret != 0) return ret;
  WT_CURSOR* cursor = nullptr;
  std::vector<std::string> files;
  if ((ret = engine::open_backup_cursor(op.session(), &cursor, &files)) != 0) return ret;
  for (const std::string& f : files) {
    if (f.rfind("WiredTigerLog.", 0) == 0) continue;
    *copied += copy_file(f);
    host_.after_wt_call();
  }
  return engine::close_backup_cursor(cursor);  // a failed copy still closes the cursor
}

int HotBackupActor::release_backup(engine::OperationContext& op, models::KvState* expected, uint64_t* copied) {
  int ret = point_in_time(expected, [&] { return engine::pin_backup_checkpoint(op.session()); });  // what the named checkpoint holds
  if (ret != 0) return ret;
  // The metadata, captured at once (a brief backup cursor writes WiredTiger.backup).
  WT_CURSOR* cursor = nullptr;
  std::vector<std::string> files;
  if ((ret = engine::open_backup_cursor(op.session(), &cursor, &files)) != 0) return ret;
  for (const char* meta : {"WiredTiger.backup", "WiredTiger", "WiredTiger.basecfg"}) *copied += copy_file(meta);
  if ((ret = engine::close_backup_cursor(cursor)) != 0) return ret;
  // The oplog is released first and never copied.
  if (!planted::active(planted::Bug::kOplogNeverReleased) &&
      (ret = release(op, engine::DocumentEngine::kOplogUri)) != 0) {
    return ret;
  }
  for (const auto& [ns, table] : tables_in_order(files)) {
    if (planted::active(planted::Bug::kReleaseBeforeCopy)) ret = release(op, table);
    if (ret != 0) return ret;
    *copied += copy_file(file_of(table));
    if (copy_error_ != 0) return 0;  // abandoned by the caller
    host_.after_wt_call();
    const bool released = planted::active(planted::Bug::kReleaseBeforeCopy);
    if (!released && (ret = release(op, table)) != 0) return ret;
    host_.after_wt_call();
    event(run_.sim().current().name, "table_released",
                         {{"table", table}, {"ns", ns.empty() ? table : ns}});
  }
  return 0;
}

// Opens the copy as a node of its own: exactly the snapshot, then its own checkpoint, verify of
// every table and a reopen.
void HotBackupActor::check_restore(const models::KvState& expected) {
  static int restores = 0;
  for (int round = 0; round < 2; ++round) {
    faults::SimFileSystem fs(*destination_, nullptr, "/wtsim/restore" + std::to_string(++restores));
    engine::WtConnection conn;
    int ret = conn.open(fs, engine::WtConfig{});
    if (ret != 0) return restore_unreadable(std::string("open: ") + wiredtiger_strerror(ret), round);
    models::KvState state;
    ret = read_restored(conn.get(), &state, round == 0);
    if (ret != 0) return restore_unreadable(std::string("read: ") + wiredtiger_strerror(ret), round);
    if (state != expected) {
      restore_checked(state, false, round);
      return restore_failed("round " + std::to_string(round) + ": " + std::to_string(state.size()) + " documents, the snapshot has " +
                            std::to_string(expected.size()));
    }
    engine::OperationContext op(conn.get());
    ret = op.session()->checkpoint(op.session(), nullptr);
    for (const std::string& t : restored_tables_) {
      if (ret == 0) ret = op.session()->verify(op.session(), t.c_str(), nullptr);
    }
    if (ret != 0) return restore_failed(std::string("checkpoint or verify: ") + wiredtiger_strerror(ret));
  }
  restore_checked(expected, true, 1);
}

// A restore that cannot be opened or read is not the snapshot.
void HotBackupActor::restore_unreadable(const std::string& error, int round) {
  event("backup", "restore_checked", {{"snapshot_seq", snapshot_seq_}, {"error", error}, {"ok", false}, {"round", round}});
  restore_failed(error);
}

// What the restore held (its digest, for a reader who rebuilds the snapshot from the history).
void HotBackupActor::restore_checked(const models::KvState& restored, bool ok, int round) {
  nlohmann::json collections = nlohmann::json::object();
  for (const auto& [key, value] : restored) {
    const std::string ns = key.substr(0, key.find('|'));
    collections[ns] = collections.value(ns, 0) + 1;
  }
  event("backup", "restore_checked",
        {{"documents", restored.size()}, {"snapshot_seq", snapshot_seq_}, {"collections", collections},
         {"state_digest", History::state_digest(restored)}, {"ok", ok}, {"round", round}});
}

// Reads the restored collections through their catalog. The first time, the oplog (never
// copied) is dropped and recreated empty: an oplog-less restore.
int HotBackupActor::read_restored(WT_CONNECTION* conn, models::KvState* out, bool first) {
  engine::OperationContext op(conn);
  WT_SESSION* s = op.session();
  int ret = 0;
  if (first && run_.scenario().backup.mode == BackupMode::kRelease) {
    ret = s->drop(s, engine::DocumentEngine::kOplogUri, "force=true");
    if (ret == 0) ret = s->create(s, engine::DocumentEngine::kOplogUri, "key_format=q,value_format=u");
    if (ret != 0) return ret;
  }
  engine::Catalog catalog;
  if ((ret = catalog.load(s)) != 0) return ret;
  restored_tables_ = {engine::Catalog::kUri};
  for (const auto& [ns, coll] : catalog.collections()) {
    for (const std::string& t : tables_of(coll)) restored_tables_.push_back(t);  // verified after
    if ((ret = put_collection(op, coll, out)) != 0) return ret;
  }
  return put_catalog_rows(op, out);
}


}  // namespace wtsim::world
