#include "world/scenario.h"

#include <algorithm>
#include <cassert>
#include <fstream>
#include <sstream>

#include "sim/json_reader.h"

namespace wtsim::world {
namespace {

using sim::kNsPerMs;
using sim::ObjectReader;

// A string field restricted to `choices` (the first is the default).
std::string one_of(ObjectReader& r, const std::string& key, const std::string& fallback,
                   const std::vector<const char*>& choices) {
  const std::string value = r.string_or(key, fallback);
  std::string expected;
  size_t i = 0;
  for (const char* c : choices) {
    if (value == c) return value;
    if (i > 0) expected += i + 1 == choices.size() ? " or " : ", ";
    expected += std::string("\"") + c + "\"";
    ++i;
  }
  throw sim::JsonError(r.path_of(key), "expected " + expected + ", found \"" + value + "\"");
}

// A duration field in `unit_ns` units (a file's _s or _ms), as nanoseconds; refused past a year.
sim::Nanos ns_or(ObjectReader& r, const std::string& key, sim::Nanos fallback_ns, sim::Nanos unit_ns) {
  assert(unit_ns > 0 && fallback_ns >= 0 && fallback_ns % unit_ns == 0);
  constexpr sim::Nanos kYearNs = 365LL * 24 * 3600 * sim::kNsPerSec;
  const uint64_t units = r.u64_or(key, static_cast<uint64_t>(fallback_ns / unit_ns));
  sim::check_bounds(units <= static_cast<uint64_t>(kYearNs / unit_ns), r.path_of(key), "at most a year");
  const sim::Nanos ns = static_cast<sim::Nanos>(units) * unit_ns;
  assert(ns >= 0 && ns <= kYearNs);
  return ns;
}

// Each mode's names as the file spells them, the default first.
template <class E>
using Names = std::vector<std::pair<const char*, E>>;

const Names<WorkloadKind> kWorkloadKinds = {{"kv", WorkloadKind::kKv}, {"documents", WorkloadKind::kDocuments},
                                            {"time_series", WorkloadKind::kTimeSeries}, {"padding", WorkloadKind::kPadding},
                                            {"backup", WorkloadKind::kBackup}, {"script", WorkloadKind::kScript}};
const Names<engine::LockPolicy> kLockPolicies = {{"document", engine::LockPolicy::kDocument},
                                                 {"collection", engine::LockPolicy::kCollection}};
const Names<RecordStore> kRecordStores = {{"wiredtiger", RecordStore::kWiredTiger}, {"mmapv1", RecordStore::kMmapv1}};
const Names<PaddingVariant> kPaddingVariants = {{"grow", PaddingVariant::kGrow}, {"preset", PaddingVariant::kPreset}};
const Names<engine::MmapAllocator::PaddingRules> kPaddingRules = {{"1.x", engine::MmapAllocator::PaddingRules::kV1x},
                                                                  {"2.6", engine::MmapAllocator::PaddingRules::kV26}};
const Names<TtlMode> kTtlModes = {{"index", TtlMode::kIndex}, {"manual", TtlMode::kManual}, {"none", TtlMode::kNone}};
const Names<BackupMode> kBackupModes = {{"release", BackupMode::kRelease}, {"baseline", BackupMode::kBaseline},
                                        {"none", BackupMode::kNone}};
const Names<BackupOrder> kBackupOrders = {
    {"hottest_first", BackupOrder::kHottestFirst}, {"coldest_first", BackupOrder::kColdestFirst}, {"name", BackupOrder::kName}};
const Names<QueryLoop> kQueryLoops = {{"off", QueryLoop::kOff}, {"every", QueryLoop::kEvery}, {"back_to_back", QueryLoop::kBackToBack}};

template <class E>
const char* name_in(const Names<E>& names, E value) {
  for (const auto& [name, v] : names) {
    if (v == value) return name;
  }
  assert(false && "every enumerator has a name");
  return "?";
}

// A mode field: one of `names`, parsed into its enum.
template <class E>
E enum_of(ObjectReader& r, const std::string& key, E fallback, const Names<E>& names) {
  std::vector<const char*> choices;
  for (const auto& [name, v] : names) choices.push_back(name);
  const std::string value = one_of(r, key, name_in(names, fallback), choices);
  for (const auto& [name, v] : names) {
    if (value == name) return v;
  }
  assert(false && "one_of returns one of the choices");
  return fallback;
}

NodeSpec node_from(const nlohmann::json& j, const std::string& path) {
  ObjectReader r(j, path);
  NodeSpec n;
  n.cache_mb = r.u64_or("cache_mb", n.cache_mb);
  sim::check_bounds(n.cache_mb >= 1, r.path_of("cache_mb"), "at least 1");
  n.log_file_max_kb = r.u64_or("log_file_max_kb", n.log_file_max_kb);
  sim::check_bounds(n.log_file_max_kb == 0 || (n.log_file_max_kb >= 100 && n.log_file_max_kb <= 2 * 1024 * 1024),
                    r.path_of("log_file_max_kb"), "0 (WiredTiger's default) or 100..2097152 (WiredTiger's limits)");
  n.checkpoint_interval_ns =
      static_cast<sim::Nanos>(r.u64_or("checkpoint_interval_ms", n.checkpoint_interval_ns / kNsPerMs)) * kNsPerMs;
  n.journal_commit_interval_ns =
      static_cast<sim::Nanos>(r.u64_or("journal_commit_interval_ms", n.journal_commit_interval_ns / kNsPerMs)) * kNsPerMs;
  n.metrics_interval_ns = static_cast<sim::Nanos>(r.u64_or("metrics_interval_ms", n.metrics_interval_ns / kNsPerMs)) * kNsPerMs;
  n.lock_policy = enum_of(r, "lock_policy", n.lock_policy, kLockPolicies);
  n.record_store = enum_of(r, "record_store", n.record_store, kRecordStores);
  n.oplog = r.bool_or("oplog", n.oplog);
  n.oplog_max_entries = r.u64_or("oplog_max_entries", n.oplog_max_entries);
  if (n.checkpoint_interval_ns == 0 || n.journal_commit_interval_ns == 0) {
    throw sim::JsonError(path, "intervals must be positive");
  }
  r.reject_unknown();
  return n;
}

WorkloadSpec workload_from(const nlohmann::json& j, const std::string& path) {
  ObjectReader r(j, path);
  WorkloadSpec w;
  w.kind = enum_of(r, "kind", w.kind, kWorkloadKinds);
  w.padding_variant = enum_of(r, "padding_variant", w.padding_variant, kPaddingVariants);
  w.power_of_2_sizes = r.bool_or("power_of_2_sizes", w.power_of_2_sizes);
  w.padding_rules = enum_of(r, "padding_heuristic", w.padding_rules, kPaddingRules);
  w.insert_weight = r.u64_or("insert_weight", w.insert_weight);
  w.update_weight = r.u64_or("update_weight", w.update_weight);
  w.delete_weight = r.u64_or("delete_weight", w.delete_weight);
  w.find_weight = r.u64_or("find_weight", w.find_weight);
  w.ddl_weight = r.u64_or("ddl_weight", w.ddl_weight);
  w.batch_size = r.u64_or("batch_size", w.batch_size);
  w.total_documents = r.u64_or("total_documents", w.total_documents);
  w.stop_inserts_at_ns = ns_or(r, "stop_inserts_at_ms", w.stop_inserts_at_ns, kNsPerMs);
  w.ttl_index = r.bool_or("ttl_index", w.ttl_index);
  if (w.ttl_index && w.kind != WorkloadKind::kDocuments) throw sim::JsonError(r.path_of("ttl_index"), "only the \"documents\" workload has it");
  if (w.insert_weight + w.update_weight + w.delete_weight + w.find_weight + w.ddl_weight == 0) {
    throw sim::JsonError(path, "at least one operation weight must be positive");
  }
  sim::check_bounds(w.batch_size >= 1 && w.batch_size <= 100000, r.path_of("batch_size"), "in [1, 100000]");
  w.writers = r.u64_or("writers", w.writers);
  w.keys = r.u64_or("keys", w.keys);
  w.think_ns = static_cast<sim::Nanos>(r.u64_or("think_us", w.think_ns / sim::kNsPerUs)) * sim::kNsPerUs;
  w.durable_fraction = r.fraction_or("durable_fraction", w.durable_fraction);
  w.delete_fraction = r.fraction_or("delete_fraction", w.delete_fraction);
  w.keys_per_txn_max = r.u64_or("keys_per_txn_max", w.keys_per_txn_max);
  w.value_bytes_min = r.u64_or("value_bytes_min", w.value_bytes_min);
  w.value_bytes_max = r.u64_or("value_bytes_max", w.value_bytes_max);
  // Each writer holds a WiredTiger session: more than session_max (100) fail at open_session.
  sim::check_bounds(w.writers >= 1 && w.writers <= 100, r.path_of("writers"), "in [1, 100]");
  sim::check_bounds(w.keys >= 1, r.path_of("keys"), "at least 1");
  sim::check_bounds(w.keys_per_txn_max >= 1, r.path_of("keys_per_txn_max"), "at least 1");
  if (w.value_bytes_min > w.value_bytes_max || w.value_bytes_max > (1u << 20)) {
    throw sim::JsonError(r.path_of("value_bytes_max"), "needs value_bytes_min <= value_bytes_max <= 1 MiB");
  }
  r.reject_unknown();
  return w;
}

TtlSpec ttl_from(const nlohmann::json& j, const std::string& path) {
  ObjectReader r(j, path);
  TtlSpec t;
  t.mode = enum_of(r, "mode", t.mode, kTtlModes);
  t.expire_after_ns = ns_or(r, "expire_after_s", t.expire_after_ns, sim::kNsPerSec);
  t.monitor_sleep_ns = ns_or(r, "monitor_sleep_s", t.monitor_sleep_ns, sim::kNsPerSec);
  sim::check_bounds(t.monitor_sleep_ns != 0, r.path_of("monitor_sleep_s"), "at least 1");
  t.monitor_enabled = r.bool_or("monitor_enabled", t.monitor_enabled);
  t.manual_every_ns = ns_or(r, "manual_every_s", t.manual_every_ns, sim::kNsPerSec);
  sim::check_bounds(t.manual_every_ns != 0, r.path_of("manual_every_s"), "at least 1");
  t.index_at_ns = ns_or(r, "index_at_ms", t.index_at_ns, kNsPerMs);
  t.primary = one_of(r, "role", "primary", {"primary", "secondary"}) == "primary";
  t.query_every_ns = ns_or(r, "query_every_ms", t.query_every_ns, kNsPerMs);
  // A period alone means a periodic loop (as scenarios before "query_loop" say it).
  t.query_loop = enum_of(r, "query_loop", t.query_every_ns > 0 ? QueryLoop::kEvery : QueryLoop::kOff, kQueryLoops);
  t.query_client_ns = ns_or(r, "query_client_us", t.query_client_ns, sim::kNsPerUs);
  sim::check_bounds(t.query_client_ns != 0, r.path_of("query_client_us"), "at least 1");
  if (t.query_loop == QueryLoop::kEvery && t.query_every_ns == 0) {
    throw sim::JsonError(r.path_of("query_every_ms"), "must be at least 1 when query_loop is \"every\"");
  }
  t.touch_every_ns = ns_or(r, "touch_every_ms", t.touch_every_ns, kNsPerMs);
  r.reject_unknown();
  return t;
}

BackupSpec backup_from(const nlohmann::json& j, const std::string& path) {
  ObjectReader r(j, path);
  BackupSpec b;
  b.mode = enum_of(r, "mode", b.mode, kBackupModes);
  b.start_ns = ns_or(r, "start_ms", b.start_ns, kNsPerMs);
  b.sentinel = r.bool_or("sentinel", b.sentinel);
  b.order = enum_of(r, "order", b.order, kBackupOrders);
  // The file gives the bandwidth in MB/s, or in KB/s for a small run's slow copy.
  if (r.has("copy_mb_per_s") && r.has("copy_kb_per_s")) throw sim::JsonError(r.path_of("copy_kb_per_s"), "give copy_mb_per_s or copy_kb_per_s, not both");
  const uint64_t mb_per_s = r.u64_or("copy_mb_per_s", b.copy_kb_per_s / 1000);
  sim::check_bounds(mb_per_s >= 1 && mb_per_s <= 1'000'000, r.path_of("copy_mb_per_s"), "in [1, 1000000]");
  b.copy_kb_per_s = r.u64_or("copy_kb_per_s", mb_per_s * 1000);
  sim::check_bounds(b.copy_kb_per_s >= 1 && b.copy_kb_per_s <= 1'000'000'000, r.path_of("copy_kb_per_s"), "in [1, 1000000000]");
  b.destination_mb = r.u64_or("destination_mb", b.destination_mb);
  constexpr uint64_t kDocsMax = 10'000'000;  // 1 KB documents: 10 GB per collection at most
  const auto docs = [&](const char* field, uint64_t value, uint64_t min) {
    const uint64_t n = r.u64_or(field, value);
    sim::check_bounds(n >= min && n <= kDocsMax, r.path_of(field), "in [" + std::to_string(min) + ", " + std::to_string(kDocsMax) + "]");
    return n;
  };
  b.hot_docs = docs("hot_docs", b.hot_docs, 1);  // the writers pick one of them
  b.warm_docs = docs("warm_docs", b.warm_docs, 1);
  b.cold_docs = docs("cold_docs", b.cold_docs, 0);
  b.append_docs = docs("append_docs", b.append_docs, 0);
  b.warm_every = docs("warm_every", b.warm_every, 1);
  b.append_every = docs("append_every", b.append_every, 1);
  // Checked against the members (and "hidden" resolved) by the scenario.
  if (const nlohmann::json* m = r.optional("member"); m == nullptr || !m->is_string()) {
    b.member = static_cast<size_t>(r.u64_or("member", b.member));
  } else if (*m != "hidden") {
    throw sim::JsonError(r.path_of("member"), "a member's index, or \"hidden\" (the first hidden member)");
  }
  r.reject_unknown();
  return b;
}

// The scenario's backup: whether it runs, and "hidden" as the first hidden member's index.
void resolve_backup(const nlohmann::json& j, Scenario& s) {
  const bool given = j.contains("backup") && j["backup"].is_object();
  s.backup.enabled = s.workload.kind == WorkloadKind::kBackup || (s.workload.kind == WorkloadKind::kDocuments && given);
  if (given && j["backup"].contains("member") && j["backup"]["member"].is_string()) {
    const std::vector<MemberSpec>& members = s.replica_set.members;
    const auto hidden = std::find_if(members.begin(), members.end(), [](const MemberSpec& m) { return m.hidden; });
    if (hidden == members.end()) throw sim::JsonError("/backup/member", "\"hidden\", but no member of replica_set.members is hidden");
    s.backup.member = static_cast<size_t>(hidden - members.begin());
  }
  if (s.backup.member >= s.replica_set.size()) {
    throw sim::JsonError("/backup/member", "must be a member: below " + std::to_string(s.replica_set.size()));
  }
}

engine::CostModel cost_from(const nlohmann::json& j, const std::string& path) {
  ObjectReader r(j, path);
  engine::CostModel c;
  const uint64_t cores = r.u64_or("cpu_cores", static_cast<uint64_t>(c.cpu_cores));  // checked before narrowing
  sim::check_bounds(cores >= 1 && cores <= 256, r.path_of("cpu_cores"), "in [1, 256]");
  c.cpu_cores = static_cast<int>(cores);
  auto ns = [&](const char* key, sim::Nanos& field) {
    field = static_cast<sim::Nanos>(r.u64_or(key, static_cast<uint64_t>(field)));
  };
  ns("cpu_per_op_ns", c.cpu_per_op_ns);
  ns("cpu_per_byte_ns", c.cpu_per_byte_ns);
  ns("cpu_per_key_ns", c.cpu_per_key_ns);
  ns("cpu_per_doc_ns", c.cpu_per_doc_ns);
  ns("move_ns", c.move_ns);
  ns("deleted_entry_ns", c.deleted_entry_ns);
  ns("deleted_entry_evict_ns", c.deleted_entry_evict_ns);
  ns("disk_per_byte_ns", c.disk_per_byte_ns);
  ns("disk_sync_ns", c.disk_sync_ns);
  ns("restart_ns", c.restart_ns);
  r.reject_unknown();
  return c;
}

// Each knob's extremes must make a valid scenario, or a seed would fail on bad input mid-explore.
void check_knob_extremes(const nlohmann::json& j, const std::vector<KnobSpec>& knobs, const std::string& origin) {
  for (const auto& [path, value] : knob_extremes(knobs)) {
    nlohmann::json one = j;
    one.erase("knobs");
    set_field(one, path, value, origin);
    scenario_from_json(one, origin + " with knob " + path + "=" + value.dump());
  }
}

}  // namespace

const char* to_string(WorkloadKind v) { return name_in(kWorkloadKinds, v); }
const char* to_string(RecordStore v) { return name_in(kRecordStores, v); }
const char* to_string(PaddingVariant v) { return name_in(kPaddingVariants, v); }
const char* to_string(TtlMode v) { return name_in(kTtlModes, v); }
const char* to_string(BackupMode v) { return name_in(kBackupModes, v); }
const char* to_string(BackupOrder v) { return name_in(kBackupOrders, v); }
const char* to_string(QueryLoop v) { return name_in(kQueryLoops, v); }

namespace {

// "a.b.c", or a JSON pointer "/a/b.c" (RFC 6901: ~1 is '/', ~0 is '~') for keys with dots.
std::vector<std::string> path_parts(const std::string& path, const std::string& what) {
  const bool pointer = !path.empty() && path[0] == '/';
  const char sep = pointer ? '/' : '.';
  std::vector<std::string> parts;
  for (size_t start = pointer ? 1 : 0;;) {
    const size_t end = path.find(sep, start);
    std::string part = path.substr(start, end == std::string::npos ? std::string::npos : end - start);
    if (pointer) {
      for (size_t i = part.find('~'); i != std::string::npos; i = part.find('~', i + 1)) {
        if (i + 1 >= part.size() || (part[i + 1] != '0' && part[i + 1] != '1')) {
          throw std::invalid_argument(what + ": '~' in a JSON pointer must be ~0 or ~1");
        }
        part.replace(i, 2, part[i + 1] == '1' ? "/" : "~");
      }
    }
    parts.push_back(std::move(part));
    if (parts.size() > 16) throw std::invalid_argument(what + ": a path of more than 16 parts");
    if (end == std::string::npos) return parts;
    start = end + 1;
  }
}

}  // namespace

void set_field(nlohmann::json& j, const std::string& path, nlohmann::json value, const std::string& what) {
  nlohmann::json* node = &j;
  for (const std::string& part : path_parts(path, what)) {
    if (node->is_null()) *node = nlohmann::json::object();  // a section the file left out
    if (!node->is_object()) throw std::invalid_argument(what + ": " + part + " is inside a non-object");
    node = &(*node)[part];
  }
  *node = std::move(value);
}

namespace {

// A script's steps that address a member name one of the replica set's (the script runs on the
// first member, the fixed primary).
// The members a step names exist; the replica set's own steps need one.
// What a script may ask of a replica set with elections: its clients are on the network
// (world/script_clients.h), so a node's own commands have no node to run on.
void check_script_elections(const ScriptStep& step, const ReplicaSetSpec& rs, const std::string& path) {
  static const std::vector<std::string> kNodeCommands = {"crash", "checkpoint", "flush", "setParameter", "waitTtlPass", "runTtlPass"};
  const bool node_command = std::find(kNodeCommands.begin(), kNodeCommands.end(), step.cmd) != kNodeCommands.end();
  if (rs.elections && node_command) {
    throw sim::JsonError(path + "/cmd", step.cmd + " runs on the script's own node: not with replica_set.elections (its clients are on the network)");
  }
  if (rs.elections && step.expect.disk_bytes) throw sim::JsonError(path + "/expect/disk_bytes", "the script's own node's: not with replica_set.elections");
  const bool served = is_document_command(step.cmd);
  if (rs.elections && !step.expect.metrics.empty() && !served) {
    throw sim::JsonError(path + "/expect/metrics", "with replica_set.elections, metrics are those of the member that served a document command");
  }
  if (!rs.elections && step.cmd == "stepDown") throw sim::JsonError(path + "/cmd", "stepDown needs replica_set.elections");
  if (!rs.elections && step.args.contains("w")) throw sim::JsonError(path + "/w", "a write concern needs replica_set.elections (its commit point)");
  if (!rs.elections && step.cmd == "pause" && step.args["member"] == 0) {
    throw sim::JsonError(path + "/member", "the script runs on member 0: pause another member");
  }
}

void check_script_members(const Script& script, const ReplicaSetSpec& rs) {
  const auto check = [&](const nlohmann::json& v, const std::string& path) {
    if (v.get<uint64_t>() >= rs.size()) throw sim::JsonError(path, "must be a member: below " + std::to_string(rs.size()));
  };
  for (const auto& steps : script.clients) {
    for (const ScriptStep& step : steps) {
      const std::string path = "/steps/" + std::to_string(step.index);
      const bool set_step = step.cmd == "partition" || step.cmd == "pause" || step.cmd == "heal" || step.cmd == "replSetGetStatus";
      if (set_step && rs.size() < 2) throw sim::JsonError(path + "/cmd", step.cmd + " needs a replica set: replica_set.members with at least 2");
      check_script_elections(step, rs, path);
      for (const char* field : {"member", "isolate", "from", "to"}) {
        if (step.args.contains(field)) check(step.args[field], path + "/" + field);
      }
      if (!step.args.contains("side")) continue;
      for (size_t i = 0; i < step.args["side"].size(); ++i) check(step.args["side"][i], path + "/side/" + std::to_string(i));
      if (step.args["side"].size() >= rs.size()) throw sim::JsonError(path + "/side", "must leave a member on the other side");
    }
  }
}

}  // namespace

Scenario scenario_from_json(const nlohmann::json& j, const std::string& origin) {
  try {
    ObjectReader r(j, "");
    Scenario s;
    s.source = j;
    s.name = r.string("name");
    s.description = r.string_or("description", "");
    const uint64_t duration_ms = r.u64("duration_ms");
    sim::check_bounds(duration_ms > 0 && duration_ms <= 7ULL * 24 * 3600 * 1000, "/duration_ms", "in (0, 7 days]");
    s.duration_ns = static_cast<sim::Nanos>(duration_ms) * kNsPerMs;
    const uint64_t liveness_ms = r.u64_or("liveness_ms", 0);
    sim::check_bounds(liveness_ms <= 24ULL * 3600 * 1000, "/liveness_ms", "at most a day");
    s.liveness_ns = static_cast<sim::Nanos>(liveness_ms) * kNsPerMs;
    if (r.has("end_after_recovery_ms")) {
      const uint64_t tail_ms = r.u64("end_after_recovery_ms");
      sim::check_bounds(tail_ms <= 24ULL * 3600 * 1000, "/end_after_recovery_ms", "at most a day");
      s.end_after_recovery_ns = static_cast<sim::Nanos>(tail_ms) * kNsPerMs;
    }
    if (auto* n = r.optional("node")) s.node = node_from(*n, "/node");
    if (auto* w = r.optional("workload")) s.workload = workload_from(*w, "/workload");
    if (auto* c = r.optional("cost_model")) s.cost = cost_from(*c, "/cost_model");
    if (auto* t = r.optional("ttl")) s.ttl = ttl_from(*t, "/ttl");
    if (auto* b = r.optional("backup"); b != nullptr && !b->is_null()) s.backup = backup_from(*b, "/backup");  // null: none
    if (auto* rs = r.optional("replica_set")) s.replica_set = replica_set_from_json(*rs, "/replica_set");
    if (auto* steps = r.optional("steps")) {
      const bool other_kind = j.contains("workload") && j["workload"].contains("kind") && s.workload.kind != WorkloadKind::kScript;
      if (other_kind) throw sim::JsonError("/workload/kind", "a scenario with steps runs them: leave kind out or make it \"script\"");
      s.script = script_from_json(*steps, "/steps");
      s.workload.kind = WorkloadKind::kScript;
    } else if (s.workload.kind == WorkloadKind::kScript) {
      throw sim::JsonError("/steps", "required field is missing (workload kind \"script\")");
    }
    if (s.script) check_script_members(*s.script, s.replica_set);
    resolve_backup(j, s);
    const bool election_kind = s.workload.kind == WorkloadKind::kDocuments || s.workload.kind == WorkloadKind::kScript;
    if (s.replica_set.elections && (!election_kind || s.workload.total_documents > 0)) {
      throw sim::JsonError("/replica_set/elections", "a replica set with elections runs the \"documents\" workload's clients (kind \"documents\", no total_documents) or a script's");
    }
    // A liveness phase shorter than two election timeouts (one to notice there is no primary, one
    // more for a split vote's retry) would judge what no correct replica set can do.
    const sim::Nanos liveness_ns_min = 2 * s.replica_set.election_timeout_ns;
    if (s.replica_set.elections && s.liveness_ns > 0 && s.liveness_ns < liveness_ns_min) {
      throw sim::JsonError("/liveness_ms", "with elections, 0 (no liveness phase) or at least two election timeouts (" +
                                               std::to_string(liveness_ns_min / kNsPerMs) + " ms)");
    }
    if (s.replica_set.size() > 1 && s.workload.kind == WorkloadKind::kKv) {
      throw sim::JsonError("/replica_set/members", "a replica set runs the document engine (its oplog): not workload kind \"kv\"");
    }
    auto* plan = r.optional("fault_plan");
    auto* swarm = r.optional("swarm");
    if (plan != nullptr && plan->is_null()) plan = nullptr;  // --set fault_plan=null: use a swarm
    if (swarm != nullptr && swarm->is_null()) swarm = nullptr;
    if (plan != nullptr && swarm != nullptr) {
      throw sim::JsonError("/fault_plan", "give either fault_plan or swarm, not both");
    }
    if (plan != nullptr) s.fault_plan = faults::plan_from_json(*plan, "/fault_plan");
    // A script states what it expects of a run without faults unless it asks for them.
    if (plan == nullptr && swarm == nullptr && s.script) s.fault_plan = faults::FaultPlan{};
    if (swarm != nullptr) s.swarm = faults::swarm_from_json(*swarm, "/swarm");
    if (auto* k = r.optional("knobs")) s.knobs = knobs_from_json(*k);
    s.buggify = r.bool_or("buggify", false);
    r.optional("knobs_drawn");  // informational: what a seed drew (trace headers)
    r.reject_unknown();
    check_knob_extremes(j, s.knobs, origin);
    return s;
  } catch (const sim::JsonError& e) {
    throw std::invalid_argument(origin + ": " + e.what());
  }
}

namespace {

void apply_override(nlohmann::json& j, const std::string& setting, const std::string& origin) {
  const size_t eq = setting.find('=');
  if (eq == std::string::npos || eq == 0) {
    throw std::invalid_argument(origin + ": --set " + setting + ": expected path=value, e.g. node.lock_policy=collection");
  }
  const std::string text = setting.substr(eq + 1);
  nlohmann::json value = nlohmann::json::accept(text) ? sim::parse_json(text, origin + ": --set " + setting) : nlohmann::json(text);
  set_field(j, setting.substr(0, eq), std::move(value), origin + ": --set " + setting);
}

}  // namespace

Scenario load_scenario(const std::string& path, const std::vector<std::string>& overrides) {
  nlohmann::json j = sim::parse_json(sim::read_input_file(path, "scenario file"), path);
  for (const std::string& o : overrides) apply_override(j, o, path);
  return scenario_from_json(j, overrides.empty() ? path : path + " (with --set)");
}

}  // namespace wtsim::world
