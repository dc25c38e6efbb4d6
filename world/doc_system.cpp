#include "world/doc_system.h"

#include <algorithm>
#include <cassert>
#include <wiredtiger.h>

#include "engine/bson.h"
#include "engine/padded_store.h"
#include "properties/catalog_tables.h"
#include "properties/document_properties.h"
#include "properties/index_reference.h"
#include "properties/oplog_properties.h"
#include "properties/padded_properties.h"
#include "properties/padded_tables.h"
#include "world/hot_backup_actor.h"

namespace wtsim::world {

constexpr size_t kMaxFindingsKept = 8;
constexpr size_t kRenderedCharsMax = 160;

// A record as the model holds it: key "ns|<_id as JSON>", value the document's BSON bytes (no
// decoding but the _id; a record the projection reader cannot parse is decoded whole).
void put_record(models::KvState* state, const engine::CollectionSpec& coll, const void* data, size_t size) {
  const std::string_view bson = engine::record_bson(coll, data, size);
  const auto* bytes = reinterpret_cast<const uint8_t*>(bson.data());
  static const std::vector<std::string> kId = {"_id"};
  std::optional<engine::Document> id = engine::bson_project(bytes, bson.size(), kId);
  if (!id) id = engine::record_document(coll, data, size);
  (*state)[DocSystem::model_key(coll.ns, id->value("_id", engine::Document()))] = std::string(bson);
}

int put_collection(engine::OperationContext& op, const engine::CollectionSpec& coll, models::KvState* state) {
  int ret = 0;
  WT_CURSOR* c = op.cursor(coll.table, &ret);
  if (c == nullptr) return ret;
  while ((ret = c->next(c)) == 0) {
    WT_ITEM value;
    c->get_value(c, &value);
    put_record(state, coll, value.data, value.size);
  }
  return ret == WT_NOTFOUND ? 0 : ret;
}

namespace {

constexpr size_t kOplogReadBatch = 1000;  // entries per read of read_oplog_ids

// Model values are BSON bytes: reports show them as JSON.
std::string render_bson(const std::string& value) {
  std::string json;
  try {
    json = engine::from_bson(reinterpret_cast<const uint8_t*>(value.data()), value.size()).dump();
  } catch (const nlohmann::json::exception&) {
    // A catalog row is JSON text; anything else is shown by its size.
    json = !value.empty() && value.front() == '{' ? value : "<" + std::to_string(value.size()) + " bytes, not BSON>";
  }
  return json.size() > kRenderedCharsMax ? json.substr(0, kRenderedCharsMax) + "..." : json;
}

}  // namespace

int DocSystem::open(WT_CONNECTION* conn) {
  close();
  host_.model().set_renderer(render_bson);
  engine::EngineConfig config;
  config.policy = run_.scenario().node.lock_policy;
  config.cost = run_.scenario().cost;
  config.oplog = run_.scenario().node.oplog;
  config.oplog_max_entries = run_.scenario().node.oplog_max_entries;
  // In a replica set the primary's entries carry its term: each start of it is a new one.
  if (run_.scenario().replica_set.replicated()) config.oplog_term = host_.node().generation();
  engine::EngineEnv env;
  env.sim = &run_.sim();
  env.cpu = &host_.cpu();
  env.file_bytes = [this](const std::string& file) { return host_.file_bytes(file); };
  env.observer = this;
  env.buggify = &run_.buggify();
  engine_ = std::make_unique<engine::DocumentEngine>(config, env, conn);
  engine_->locks().set_observer([this](const std::string& resource, uint64_t fiber, engine::LockMode mode, bool acquired) {
    if (acquired) {
      lock_holders_.acquired(resource, fiber, mode);
    } else {
      lock_holders_.released(resource, fiber, mode);
    }
  });
  op_ = std::make_unique<engine::OperationContext>(conn);
  last_n_.clear();
  oplog_bound_.restarted();
  int ret = engine_->open(*op_);
  if (ret == 0) ret = check_tables_named();
  if (ret == 0) {
    const engine::Status schema = create_schema(*op_);
    assert(schema.code == engine::ErrorCode::kOk && "the workload's own schema is valid");
    ret = schema.wt_code;
  }
  op_->close_cursors();
  return ret;
}

// After the engine's start: the tables it dropped (an event), and no_orphan_tables judged on the
// raw metadata and catalog (properties/catalog_tables.h).
int DocSystem::check_tables_named() {
  const std::vector<std::string>& dropped = engine_->tables_dropped_at_open();
  if (!dropped.empty()) {
    nlohmann::json details = {{"tables", dropped}};
    if (host_.member() > 0) details["member"] = host_.member();
    run_.trace().event(run_.sim().now_ns(), "node", "unnamed_tables_dropped", std::move(details));
  }
  std::vector<std::string> tables;
  std::vector<std::string> rows;
  const int ret = properties::read_tables_and_catalog(op_->session(), &tables, &rows);
  if (ret != 0) return ret;
  for (auto& [property, detail] : properties::check_tables_named(tables, rows)) finding(property, "at start: " + detail);
  return 0;
}

int put_catalog_rows(engine::OperationContext& op, models::KvState* state) {
  int ret = 0;
  WT_CURSOR* c = op.cursor(engine::Catalog::kUri, &ret);
  if (c == nullptr) return ret;
  while ((ret = c->next(c)) == 0) {
    const char* ns = nullptr;
    const char* row = nullptr;
    if ((ret = c->get_key(c, &ns)) != 0 || (ret = c->get_value(c, &row)) != 0) return ret;
    (*state)[DocSystem::catalog_key(ns)] = row;
  }
  return ret == WT_NOTFOUND ? 0 : ret;
}

// The documents and the catalog: DDL is state the model checks like data.
int DocSystem::read_state(WT_CONNECTION* conn, models::KvState* out) {
  int ret = read_documents(conn, out);
  if (ret != 0) return ret;
  engine::OperationContext op(conn);
  return put_catalog_rows(op, out);
}

int DocSystem::read_documents(WT_CONNECTION* conn, models::KvState* out) {
  out->clear();
  engine::OperationContext op(conn);
  for (const auto& [ns, coll] : engine_->catalog().collections()) {
    if (const int ret = put_collection(op, coll, out); ret != 0) return ret;
  }
  return 0;
}

namespace {

// Feeds `check` one collection's records and index entries in one snapshot: 0, or WiredTiger's
// error (validate reports a failed scan), or -1 when a record does not decode (a corruption the
// recovery and verify properties judge).
int scan_for_index_check(engine::OperationContext& op, const engine::CollectionSpec& coll, properties::IndexReferenceCheck& check) {
  int ret = 0;
  WT_CURSOR* c = op.cursor(coll.table, &ret);
  while (c != nullptr && (ret = c->next(c)) == 0) {
    WT_ITEM key, value;
    c->get_key(c, &key);
    c->get_value(c, &value);
    try {
      check.add_record(engine::string_of(key), engine::record_document(coll, value.data, value.size));
    } catch (const std::exception&) {
      return -1;
    }
  }
  for (size_t i = 0; ret == WT_NOTFOUND && i < coll.indexes.size(); ++i) {
    WT_CURSOR* ic = op.cursor(coll.indexes[i].table, &ret);
    while (ic != nullptr && (ret = ic->next(ic)) == 0) {
      WT_ITEM key, value;
      ic->get_key(ic, &key);
      ic->get_value(ic, &value);
      check.add_entry(i, engine::string_of(key), engine::string_of(value));
    }
  }
  return ret == WT_NOTFOUND ? 0 : ret;
}

}  // namespace

// index_keys_follow_documents (properties/index_reference.h): digests first, then, for an index
// that differs, a second scan entry by entry to name what.
void DocSystem::check_index_keys(engine::OperationContext& op, const engine::CollectionSpec& coll, std::vector<properties::Finding>* problems) {
  if (op.begin() != 0) return;
  properties::IndexReferenceCheck digests(coll.ns, coll.indexes);
  std::set<size_t> differing;
  if (scan_for_index_check(op, coll, digests) == 0) differing = digests.mismatched();
  if (!differing.empty()) {
    properties::IndexReferenceCheck exact(coll.ns, coll.indexes, differing);
    if (scan_for_index_check(op, coll, exact) == 0) {
      for (properties::Finding& f : exact.findings()) problems->push_back(std::move(f));
    }
  }
  op.rollback();
}

std::vector<properties::Finding> DocSystem::validate(WT_CONNECTION* conn) {
  std::vector<properties::Finding> problems;
  engine::OperationContext op(conn);
  std::vector<std::string> tables = {engine::Catalog::kUri};
  if (run_.scenario().node.oplog) tables.push_back(engine::DocumentEngine::kOplogUri);
  for (const auto& [ns, coll] : engine_->catalog().collections()) {
    const engine::ValidateResult v = engine_->validate(op, ns);
    for (const std::string& e : v.errors) problems.emplace_back(properties::Property::kIndexConsistency, ns + ": " + e);
    check_index_keys(op, coll, &problems);
    engine::PaddedLayout layout;
    if (coll.padded && properties::read_padded_layout(op.session(), *engine_, ns, &layout) == 0) {
      for (auto& p : properties::check_padded_layout(ns, layout)) problems.push_back(std::move(p));
    }
    tables.push_back(coll.table);
    for (const auto& i : coll.indexes) tables.push_back(i.table);
  }
  op.close_cursors();
  op_->close_cursors();
  for (const std::string& t : tables) {
    const int ret = op.session()->verify(op.session(), t.c_str(), nullptr);
    if (ret != 0) problems.emplace_back(properties::Property::kTablesVerify, "verify " + t + ": " + wiredtiger_strerror(ret));
  }
  if (run_.scenario().node.oplog) check_oplog(conn, &problems);
  if (auto f = new_conflicting_grants()) problems.push_back(*f);
  if (backup_) backup_->check_no_pins(conn, &problems);
  return problems;
}

int DocSystem::read_oplog_ids(WT_CONNECTION* conn, std::vector<OplogId>* out) {
  out->clear();
  if (!run_.scenario().node.oplog) return 0;
  engine::OperationContext op(conn);
  for (uint64_t after_ts = 0;;) {
    std::vector<engine::OplogEntry> entries;
    if (const int ret = engine_->read_oplog_after(op, after_ts, kOplogReadBatch, &entries); ret != 0) return ret;
    for (const engine::OplogEntry& e : entries) out->push_back({e.ts, e.term});
    if (entries.size() < kOplogReadBatch) return 0;
    after_ts = entries.back().ts;
  }
}

// The oplog's entries and the collections' documents, each read raw from its own table. Not
// while a rollback's minValid is set: the data is then newer than the oplog (as MongoDB's
// member is inconsistent until it reaches minValid).
void DocSystem::check_oplog(WT_CONNECTION* conn, std::vector<properties::Finding>* problems) {
  if (engine_->min_valid()) return;
  models::KvState state;
  int ret = read_documents(conn, &state);
  std::map<std::string, engine::Document> data;
  for (const auto& [key, bson] : state) data[key] = engine::from_bson(reinterpret_cast<const uint8_t*>(bson.data()), bson.size());
  std::vector<properties::OplogEntry> entries;
  engine::OperationContext op(conn);
  WT_CURSOR* c = ret == 0 ? op.cursor(engine::DocumentEngine::kOplogUri, &ret) : nullptr;
  while (c != nullptr && (ret = c->next(c)) == 0) {
    int64_t ts = 0;
    WT_ITEM value;
    c->get_key(c, &ts);
    c->get_value(c, &value);
    const engine::Document e = engine::from_bson(static_cast<const uint8_t*>(value.data), value.size);
    if (e.at("op") == "n") continue;  // a no-op: it changes no document
    const engine::Document& o = e.at("o");
    properties::OplogEntry entry{static_cast<uint64_t>(ts), model_key(e.at("ns").get<std::string>(), o.at("_id")), std::nullopt};
    if (e.at("op") == "u") entry.image = o;
    entries.push_back(std::move(entry));
  }
  if (ret != 0 && ret != WT_NOTFOUND) {
    problems->emplace_back(properties::Property::kTablesVerify, std::string("reading the oplog: ") + wiredtiger_strerror(ret));
    return;
  }
  std::map<std::string, uint64_t> capped;  // the padded record store does not trim
  for (const auto& [ns, coll] : engine_->catalog().collections()) {
    if (coll.capped_max_docs > 0 && !coll.padded) capped[ns] = coll.capped_max_docs;
  }
  for (auto& p : properties::check_oplog(entries, data, capped)) problems->push_back(std::move(p));
}

// Conflicting grants since the last report: at validate, and at close, so that a generation
// that ends in a crash (never validated) still reports them.
std::optional<properties::Finding> DocSystem::new_conflicting_grants() {
  const uint64_t grants = lock_holders_.conflicting_grants();
  assert(grants >= conflicting_grants_reported_);
  if (grants == conflicting_grants_reported_) return std::nullopt;
  const uint64_t fresh = grants - conflicting_grants_reported_;
  conflicting_grants_reported_ = grants;
  return properties::Finding{properties::Property::kLockSafety, std::to_string(fresh) + " conflicting grants"};
}

void DocSystem::close() {
  if (engine_) count_coverage(*engine_);
  if (engine_) {
    if (auto f = new_conflicting_grants()) finding(f->first, f->second);
  }
  conflicting_grants_reported_ = 0;  // the next generation's clients hold nothing yet
  lock_holders_ = properties::LockHolders{};
  op_.reset();
  engine_.reset();
}

// The engine's counters of interesting events, once per node generation (before it goes).
void DocSystem::count_coverage(engine::DocumentEngine& e) {
  run_.reached(properties::Marker::kWriteConflictRetried, e.metrics().write_conflicts);
  run_.reached(properties::Marker::kRecordMoved, e.metrics().record_moves);
  run_.reached(properties::Marker::kTtlDeleted, e.metrics().ttl.deleted_documents);
  run_.reached(properties::Marker::kLockWaited, e.locks().waits());
}

std::vector<properties::Marker> DocSystem::busy_phases() const {
  std::vector<properties::Marker> phases;
  if (engine_ && engine_->moving()) phases.push_back(properties::Marker::kCrashDuringPaddingMove);
  if (backup_ && backup_->copying()) phases.push_back(properties::Marker::kCrashDuringBackupCopy);
  return phases;
}

DocSystem::DocSystem(RunContext& run, NodeContext& host)
    : run_(run), host_(host), oplog_bound_(std::max<uint64_t>(run.scenario().node.oplog_max_entries, 1)) {
  const Scenario& s = run_.scenario();
  if (!s.backup.enabled || s.backup.member != host_.member()) return;
  backup_ = std::make_unique<HotBackupActor>(run_, host_, engine_, rewrites_, commits_in_flight_,
                                             [this](properties::Property p, const std::string& d) { finding(p, d); });
}

DocSystem::~DocSystem() = default;

void DocSystem::before_open() {
  commits_in_flight_ = 0;  // the last generation's fibers are gone
  if (backup_) backup_->before_open();
}

void DocSystem::after_open(WT_CONNECTION* conn) {
  if (backup_) backup_->after_open(conn);
}

void DocSystem::spawn_backup(const std::string& suffix) {
  if (backup_ && backup_->due()) run_.sim().spawn("backup" + suffix, host_.fiber_group(), [this] { backup_->run(); });
}

std::string DocSystem::backup_pending() const { return backup_ ? backup_->liveness_pending() : ""; }

bool DocSystem::backup_copying() const { return backup_ && backup_->copying(); }

nlohmann::json DocSystem::sample_metrics() {
  if (!engine_) return nullptr;
  engine::OperationContext op(host_.node().conn());
  // WiredTiger's statistics and the real file sizes included: its threads are fibers of the
  // seeded scheduler, so they are part of the deterministic run (and of the hash).
  nlohmann::json sample = {{"serverStatus", engine_->server_status(op)}};
  for (const auto& [ns, coll] : engine_->catalog().collections()) sample["collStats"][ns] = engine_->coll_stats(ns);
  return sample;
}

std::vector<properties::Finding> DocSystem::take_findings() {
  std::vector<properties::Finding> out;
  out.swap(findings_);
  return out;
}

void DocSystem::spawn_oplog_trimmer(const std::string& suffix) {
  if (!run_.scenario().node.oplog) return;
  run_.sim().spawn("oplog-trimmer" + suffix, host_.fiber_group(), [this] {
    engine::OperationContext op(host_.node().conn());
    sim::Simulator& sim = run_.sim();
    while (sim.now_ns() < run_.end_ns()) {
      sim.sleep_until(std::min(sim.now_ns() + sim::kNsPerSec, run_.end_ns()));
      if (sim.now_ns() >= run_.end_ns()) break;
      const std::optional<uint64_t> newest_before_ts = oplog_end(op, /*newest=*/true);
      begin_commit();  // a trim commits too: a backup's hold waits for it (hot_backup_actor.h)
      host_.node_call("trim_oplog", [&] { return engine_->trim_oplog(op); });
      end_commit();
      if (auto f = oplog_bound_.pass(newest_before_ts, oplog_end(op, /*newest=*/false))) finding(f->first, f->second);
    }
  });
}

// The oplog table's newest or oldest key, read raw for oplog_within_bound (nullopt: none, or the
// read failed: the pass is then not judged).
std::optional<uint64_t> DocSystem::oplog_end(engine::OperationContext& op, bool newest) {
  std::optional<uint64_t> ts;
  const int ret = host_.node_call("oplog_bound_read", [&] { return properties::read_oplog_end(op.session(), newest, &ts); },
                                  {.handle_failure = false});
  return ret == 0 ? ts : std::nullopt;
}

void DocSystem::finding(properties::Property property, const std::string& detail) {
  if (findings_.size() < kMaxFindingsKept) findings_.emplace_back(property, detail);
}

void DocSystem::begin_commit() {
  constexpr sim::Nanos kPollNs = sim::kNsPerMs;
  while (backup_ && backup_->holds_commits()) run_.sim().sleep_for(kPollNs);
  ++commits_in_flight_;
}

void DocSystem::end_commit() {
  assert(commits_in_flight_ > 0);
  --commits_in_flight_;
}

uint64_t DocSystem::before_commit(const std::vector<engine::DocWrite>& writes, bool durable) {
  begin_commit();
  std::vector<models::KvWrite> kv;
  for (const engine::DocWrite& w : writes) {
    const std::string key = model_key(w.ns, *w.id);
    check_increment(key, w);
    if (!w.ttl_field.empty()) check_ttl_delete(w);
    if (w.ttl_field.empty()) check_command_write(w);
    kv.push_back({key, w.post_image != nullptr ? models::Value{std::string(w.post_bson)} : std::nullopt});
  }
  const uint64_t seq = host_.history().invoke(std::move(kv), durable, commit_details(writes));
  durable_[seq] = durable;
  return seq;
}

size_t DocSystem::ttl_indexes(std::string_view ns) const {
  const engine::CollectionSpec* coll = engine_->catalog().find(std::string(ns));
  if (coll == nullptr) return 0;
  return std::count_if(coll->indexes.begin(), coll->indexes.end(), [](const engine::IndexSpec& i) { return i.expire_after_seconds.has_value(); });
}

// What a unit of work did, for the history: its kind (every document of a unit is the same
// kind: a group is inserts only) and, for a TTL delete, what decides it.
nlohmann::json DocSystem::commit_details(const std::vector<engine::DocWrite>& writes) {
  const engine::DocWrite& first = writes.front();
  const char* op = !first.ttl_field.empty()     ? "ttl_delete"
                   : first.post_image == nullptr ? "delete"
                   : first.pre_image == nullptr  ? "insert"
                                                 : "update";
  nlohmann::json details = {{"op", op}};  // the keys name the collection
  if (first.ttl_field.empty()) return details;
  assert(writes.size() == 1 && first.pre_image != nullptr);
  // The index's field and expireAfterSeconds are in its catalog row; the index is named only
  // when the collection has more than one TTL index.
  const engine::Document* value = engine::get_path(*first.pre_image, std::string(first.ttl_field));
  details["ttl"] = {{"value", value != nullptr ? *value : engine::Document()}};
  // Absent: the same bound as this actor's previous TTL delete (one per index and pass).
  int64_t& last_bound_ms = last_ttl_bound_ms_[run_.sim().current().name];
  if (first.ttl_bound_ms != last_bound_ms) details["ttl"]["bound_ms"] = first.ttl_bound_ms;
  last_bound_ms = first.ttl_bound_ms;
  if (ttl_indexes(first.ns) > 1) details["ttl"]["index"] = first.ttl_index;
  return details;
}

uint64_t DocSystem::before_catalog_commit(std::string_view ns, std::string_view row) {
  assert(!ns.empty() && !row.empty());
  begin_commit();
  const uint64_t seq = host_.history().invoke({{catalog_key(ns), models::Value{std::string(row)}}}, true,
                                              {{"ns", ns}, {"op", "catalog"}, {"row", nlohmann::json::parse(row)}});
  durable_[seq] = true;
  return seq;
}

// A drop: the catalog row and every document of the collection go in one commit.
uint64_t DocSystem::before_drop_commit(std::string_view ns, const std::vector<engine::Document>& ids) {
  assert(!ns.empty());
  begin_commit();
  std::vector<models::KvWrite> writes = {{catalog_key(ns), std::nullopt}};
  for (const engine::Document& id : ids) {
    writes.push_back({model_key(ns, id), std::nullopt});
    last_n_.erase(writes.back().key);  // a document of that _id later starts a new chain
  }
  const uint64_t seq = host_.history().invoke(std::move(writes), true, {{"ns", ns}, {"op", "drop"}});
  durable_[seq] = true;
  return seq;
}

void DocSystem::after_commit(uint64_t ticket, int ret) {
  assert(commits_in_flight_ > 0);
  --commits_in_flight_;
  host_.after_wt_call();  // a fenced node acknowledges nothing
  if (ret != 0) {
    host_.history().info(ticket, "commit failed");
    last_n_.clear();  // the chain of images is broken for now
    ++run_.stats().commits_failed;
    durable_.erase(ticket);
    return;
  }
  if (!durable_[ticket]) ack(ticket);
}

void DocSystem::after_flush(const std::vector<uint64_t>& tickets, int ret) {
  host_.after_wt_call();
  if (ret != 0) return;  // the failure is fatal to the node: the tickets stay in doubt
  for (uint64_t t : tickets) ack(t);
}

void DocSystem::ack(uint64_t ticket) {
  host_.history().ok(ticket);
  durable_.erase(ticket);
  ++run_.stats().commits_acked;
}

// Exactly-once $inc (properties/document_properties.h); the last committed counter per key.
void DocSystem::check_increment(const std::string& key, const engine::DocWrite& w) {
  const engine::Document* n = w.post_image != nullptr && w.post_image->contains("n") ? &w.post_image->at("n") : nullptr;
  auto last = last_n_.find(key);
  const std::optional<int64_t> last_n = last != last_n_.end() ? std::optional<int64_t>(last->second) : std::nullopt;
  if (auto f = properties::check_increment(key, last_n, n, command_increment_of_n())) finding(f->first, f->second);
  if (n != nullptr && n->is_number_integer()) {
    last_n_[key] = n->get<int64_t>();
  } else {
    last_n_.erase(key);
  }
}

void DocSystem::check_ttl_delete(const engine::DocWrite& w) {
  properties::TtlDelete d;
  d.ns = w.ns;
  d.id = w.id;
  d.field = w.ttl_field;
  d.indexed_value = w.pre_image != nullptr ? engine::get_path(*w.pre_image, std::string(w.ttl_field)) : nullptr;
  d.now_ms = engine_->now_ms();
  d.expire_after_s = w.ttl_expire_after_s;
  d.on_primary = ttl_deleter_was_primary();
  const engine::CollectionSpec* coll = engine_->catalog().find(std::string(w.ns));
  d.capped = coll != nullptr && coll->capped_max_docs > 0;
  const engine::IndexSpec* index = coll != nullptr ? coll->index(std::string(w.ttl_index)) : nullptr;
  d.pre_image = w.pre_image;
  d.partial_filter = index != nullptr && index->partial_filter ? &*index->partial_filter : nullptr;
  if (auto f = properties::check_ttl_delete(d)) finding(f->first, f->second);
}

DocSystem::CommandScope::CommandScope(DocSystem& system, properties::WriteCommand& command)
    : system_(system), fiber_id_(system.run_.sim().current().id) {
  const bool fresh = system_.commands_.emplace(fiber_id_, &command).second;
  assert(fresh && "a fiber runs one write command at a time");
  (void)fresh;
}

DocSystem::CommandScope::~CommandScope() { system_.commands_.erase(fiber_id_); }

// The $inc of field "n" the current fiber's command asks for (0 without one): what
// increments_counted_once expects, from the client's command rather than the engine's update code.
int64_t DocSystem::command_increment_of_n() const {
  const auto running = commands_.find(run_.sim().current().id);
  if (running == commands_.end()) return 0;
  const properties::WriteCommand& c = *running->second;
  if (c.kind == properties::WriteCommand::Kind::kInsert || c.kind == properties::WriteCommand::Kind::kDelete || c.remove) return 0;
  const engine::Document* by = c.update->is_object() && c.update->contains("$inc") ? engine::get_path((*c.update)["$inc"], "n") : nullptr;
  return by != nullptr && by->is_number_integer() ? by->get<int64_t>() : 0;
}

// writes_follow_commands: a write of a client's command (a secondary's apply, a rollback's refetch
// and the TTL monitor run none) against the command.
void DocSystem::check_command_write(const engine::DocWrite& w) {
  const auto running = commands_.find(run_.sim().current().id);
  if (running == commands_.end()) return;
  properties::WriteCommand& command = *running->second;
  assert(command.ns == w.ns);
  if (auto f = properties::check_write(command, w.pre_image, w.post_image)) finding(f->first, f->second);
}

}  // namespace wtsim::world
