#include "world/script.h"

#include <algorithm>
#include <array>

#include "sim/json_reader.h"

namespace wtsim::world {
namespace {

using sim::JsonError;
using sim::ObjectReader;

// Each command's fields beyond cmd, client and expect: name -> required.
using Fields = std::map<std::string, bool>;

const std::map<std::string, Fields>& commands() {
  static const std::map<std::string, Fields> kCommands = {
      {"create", {{"ns", true}, {"padded", false}, {"capped_max_docs", false}, {"padding_rules", false}, {"power_of_2_sizes", false}, {"flags", false}, {"clusteredIndex", false}}},
      {"createIndex", {{"ns", true}, {"key", true}, {"name", false}, {"unique", false}, {"expireAfterSeconds", false}, {"partialFilterExpression", false}}},
      {"dropIndex", {{"ns", true}, {"name", true}}},
      {"drop", {{"ns", true}}},
      {"collMod", {{"ns", true}, {"index", false}, {"expireAfterSeconds", false}, {"usePowerOf2Sizes", false}, {"noPadding", false}}},
      {"insert", {{"ns", true}, {"docs", true}, {"ordered", false}, {"j", false}, {"w", false}, {"wtimeout_ms", false}}},
      {"update", {{"ns", true}, {"filter", false}, {"update", true}, {"upsert", false}, {"multi", false}, {"j", false}, {"w", false}, {"wtimeout_ms", false}}},
      {"replace", {{"ns", true}, {"filter", false}, {"replacement", true}, {"upsert", false}, {"j", false}, {"w", false}, {"wtimeout_ms", false}}},
      {"findAndModify", {{"ns", true}, {"query", false}, {"sort", false}, {"update", false}, {"remove", false}, {"new", false}, {"upsert", false}, {"fields", false}, {"j", false}, {"w", false}, {"wtimeout_ms", false}}},
      {"delete", {{"ns", true}, {"filter", false}, {"many", false}, {"j", false}, {"w", false}, {"wtimeout_ms", false}}},
      {"listIndexes", {{"ns", true}}},
      {"find", {{"ns", true}, {"filter", false}, {"sort", false}, {"limit", false}, {"hint", false}, {"member", false}, {"showRecordId", false}}},
      {"sleep", {{"ms", true}}},
      {"checkpoint", {}},
      {"flush", {}},
      {"crash", {{"mode", false}, {"after_disk_ops", false}}},
      {"waitTtlPass", {}},
      {"runTtlPass", {}},
      {"setParameter", {{"ttlMonitorEnabled", false}, {"ttlMonitorSleepSecs", false}}},
      {"barrier", {}},
      {"awaitReplication", {{"timeout_ms", false}}},
      {"partition", {{"isolate", false}, {"side", false}, {"from", false}, {"to", false}}},
      {"pause", {{"member", true}}},
      {"heal", {}},
      {"replSetGetStatus", {{"member", false}}},
      {"stepDown", {{"secs", false}, {"catch_up_secs", false}}},
  };
  return kCommands;
}

void expect_type(const nlohmann::json& v, bool ok, const std::string& path, const char* what) {
  if (!ok) throw JsonError(path, std::string("expected ") + what + ", found " + sim::describe(v));
}

// An index key: {"field": 1} or [["a", 1], ["b", -1]] (an array keeps a compound key's order).
void check_key(const nlohmann::json& key, const std::string& path) {
  const bool one = key.is_object() && key.size() == 1;
  expect_type(key, one || (key.is_array() && !key.empty()), path, "{\"field\": 1} or [[\"a\", 1], [\"b\", -1]]");
  const auto direction = [&](const nlohmann::json& d, const std::string& at) {
    expect_type(d, d.is_number_integer() && (d.get<int>() == 1 || d.get<int>() == -1), at, "1 or -1");
  };
  if (one) return direction(key.begin().value(), path + "/" + key.begin().key());
  for (size_t i = 0; i < key.size(); ++i) {
    const nlohmann::json& part = key[i];
    const std::string at = path + "/" + std::to_string(i);
    expect_type(part, part.is_array() && part.size() == 2 && part[0].is_string(), at, "[\"field\", 1]");
    direction(part[1], at + "/1");
  }
}

// collMod's index: its name, or MongoDB's sub-document. The sub-document's values are not
// checked here: collMod answers a wrong one with MongoDB's error (InvalidOptions).
void check_coll_mod_index(const nlohmann::json& v, const std::string& path) {
  expect_type(v, (v.is_string() && !v.get<std::string>().empty()) || v.is_object(), path,
              "an index name, or {\"keyPattern\" or \"name\", \"expireAfterSeconds\"}");
  if (!v.is_object()) return;
  for (const auto& [key, value] : v.items()) {
    if (key != "keyPattern" && key != "name" && key != "expireAfterSeconds") throw JsonError(path + "/" + key, "unknown field");
  }
}

// findAndModify's `fields`: numbers and booleans; other values MongoDB refuses with BadValue, as the
// engine does, except the operators it would run, which are not modelled.
void check_projection(const nlohmann::json& v, const std::string& path) {
  expect_type(v, v.is_object(), path, "an object");
  for (const auto& [field, value] : v.items()) {
    const bool modelled = !value.is_object() || !(value.contains("$slice") || value.contains("$elemMatch") || value.contains("$meta"));
    expect_type(value, modelled, path + "/" + field, "a number or a boolean ($slice, $elemMatch and $meta are not modelled)");
  }
}

// The types of the fields that have one.
void check_field(const std::string& field, const nlohmann::json& v, const std::string& path) {
  static const std::vector<std::string> kBools = {"padded", "power_of_2_sizes", "unique", "ordered", "j", "upsert", "multi", "many", "ttlMonitorEnabled", "remove", "new", "usePowerOf2Sizes", "noPadding", "showRecordId"};
  static const std::vector<std::string> kObjects = {"filter", "update", "replacement", "query"};
  static const std::vector<std::string> kStrings = {"ns", "name", "hint"};
  static const std::vector<std::string> kCounts = {"capped_max_docs", "limit", "ms", "ttlMonitorSleepSecs", "after_disk_ops", "member",
                                                   "timeout_ms", "isolate", "from", "to", "wtimeout_ms", "secs", "catch_up_secs"};
  const auto in = [&](const std::vector<std::string>& names) { return std::find(names.begin(), names.end(), field) != names.end(); };
  if (in(kBools)) expect_type(v, v.is_boolean(), path, "true or false");
  if (in(kObjects)) expect_type(v, v.is_object(), path, "an object");
  if (in(kStrings)) expect_type(v, v.is_string() && !v.get<std::string>().empty(), path, "a non-empty string");
  if (in(kCounts)) sim::as_u64(v, path);
  if (field == "flags") expect_type(v, v.is_number_integer() && v.get<int64_t>() >= 0 && v.get<int64_t>() <= 3, path, "userFlags: 0 to 3 (1 usePowerOf2Sizes, 2 noPadding)");
  if (field == "after_disk_ops") expect_type(v, v.get<uint64_t>() >= 1, path, "at least 1");
  constexpr uint64_t kYearS = 365ULL * 24 * 3600;
  if (field == "ttlMonitorSleepSecs") expect_type(v, v.get<uint64_t>() >= 1 && v.get<uint64_t>() <= kYearS, path, "seconds in [1, a year]");
  if (field == "ms") expect_type(v, v.get<uint64_t>() <= kYearS * 1000, path, "milliseconds, at most a year");
  if (field == "timeout_ms") expect_type(v, v.get<uint64_t>() >= 1 && v.get<uint64_t>() <= 3'600'000, path, "milliseconds in [1, 3600000]");
  if (field == "wtimeout_ms") expect_type(v, v.get<uint64_t>() >= 1 && v.get<uint64_t>() <= 3'600'000, path, "milliseconds in [1, 3600000]");
  if (field == "secs") expect_type(v, v.get<uint64_t>() >= 1 && v.get<uint64_t>() <= 3600, path, "seconds in [1, 3600]");
  if (field == "catch_up_secs") expect_type(v, v.get<uint64_t>() <= 3600, path, "seconds in [0, 3600]");
  if (field == "w") expect_type(v, v == 1 || v == "majority", path, "1 or \"majority\"");
  if (field == "ns") expect_type(v, v.get<std::string>().find('.') != std::string::npos, path, "\"db.collection\"");
  if (field == "key" || field == "sort") check_key(v, path);
  if (field == "docs") expect_type(v, v.is_object() || (v.is_array() && !v.empty()), path, "a document or a non-empty array of them");
  if (field == "docs" && v.is_array()) {
    for (size_t i = 0; i < v.size(); ++i) expect_type(v[i], v[i].is_object(), path + "/" + std::to_string(i), "a document");
  }
  if (field == "side") {
    expect_type(v, v.is_array() && !v.empty(), path, "a non-empty array of members");
    for (size_t i = 0; i < v.size(); ++i) sim::as_u64(v[i], path + "/" + std::to_string(i));
  }
  if (field == "index") check_coll_mod_index(v, path);
  if (field == "fields") check_projection(v, path);
  if (field == "clusteredIndex") {  // MongoDB 5.3's only form
    expect_type(v, v == nlohmann::json{{"key", {{"_id", 1}}}, {"unique", true}}, path, "{\"key\": {\"_id\": 1}, \"unique\": true}");
  }
  if (field == "padding_rules") expect_type(v, v == "1.x" || v == "2.6", path, "\"1.x\" or \"2.6\"");
  if (field == "mode") expect_type(v, v == "drop_unsynced" || v == "torn_prefix" || v == "sector_damage", path, "drop_unsynced, torn_prefix or sector_damage");
}

// A value or a {"min": a, "max": b} range of numbers.
void check_range(const nlohmann::json& v, const std::string& path) {
  if (!v.is_object()) return;
  ObjectReader r(v, path);
  if (const nlohmann::json* min = r.optional("min")) sim::as_number(*min, path + "/min");
  if (const nlohmann::json* max = r.optional("max")) sim::as_number(*max, path + "/max");
  r.reject_unknown();
  if (v.empty()) throw JsonError(path, "a range needs min or max");
}

// The metrics an expectation may name: the engine's serverStatus counters (engine/metrics.h),
// WiredTiger's statistics by section, and collStats's fields.
void check_metric_path(const std::string& pointer, const std::string& path) {
  static const std::vector<std::string> kServerStatus = {
      "/serverStatus/opcounters/insert", "/serverStatus/opcounters/query", "/serverStatus/opcounters/update",
      "/serverStatus/opcounters/delete", "/serverStatus/opcounters/getmore", "/serverStatus/opcounters/command",
      "/serverStatus/metrics/document/inserted", "/serverStatus/metrics/document/updated",
      "/serverStatus/metrics/document/deleted", "/serverStatus/metrics/document/returned",
      "/serverStatus/metrics/queryExecutor/scanned", "/serverStatus/metrics/queryExecutor/scannedObjects",
      "/serverStatus/metrics/ttl/passes", "/serverStatus/metrics/ttl/deletedDocuments",
      "/serverStatus/metrics/operation/writeConflicts", "/serverStatus/metrics/record/moves"};
  static const std::vector<std::string> kCollStats = {"count", "size", "avgObjSize", "storageSize", "numExtents", "lastExtentSize",
                                                      "nindexes", "totalIndexSize", "indexSizes", "paddingFactor", "userFlags", "capped", "max"};
  if (std::find(kServerStatus.begin(), kServerStatus.end(), pointer) != kServerStatus.end()) return;
  const std::string wt = "/serverStatus/wiredTiger/";
  if (pointer.rfind(wt, 0) == 0 && std::count(pointer.begin() + static_cast<long>(wt.size()), pointer.end(), '/') == 1) return;
  if (pointer.rfind("/collStats/", 0) == 0) {
    const size_t field = pointer.find('/', 11);
    const std::string name = field == std::string::npos ? "" : pointer.substr(field + 1, pointer.find('/', field + 1) - field - 1);
    if (std::find(kCollStats.begin(), kCollStats.end(), name) != kCollStats.end()) return;
  }
  throw JsonError(path, "names no metric: expected a serverStatus counter (/serverStatus/opcounters/update, "
                        "/serverStatus/metrics/ttl/deletedDocuments, /serverStatus/wiredTiger/<section>/<statistic>, ...) "
                        "or /collStats/<db.coll>/<field>");
}

// MongoDB's error codes the steps answer with, by name and number.
const std::vector<std::pair<std::string, int>>& error_codes() {
  static const std::vector<std::pair<std::string, int>> kCodes = {
      {"OK", 0}, {"BadValue", 2}, {"HostUnreachable", 6}, {"FailedToParse", 9}, {"IllegalOperation", 20}, {"NamespaceNotFound", 26},
      {"IndexNotFound", 27}, {"WriteConcernFailed", 64}, {"CannotCreateIndex", 67}, {"InvalidOptions", 72}, {"AmbiguousIndexKeyPattern", 181},
      {"ExceededTimeLimit", 262}, {"CannotGrowCapped", 10003}, {"NotMaster", 10107}, {"DuplicateKey", 11000}, {"NotMasterOrSecondary", 13436}};
  return kCodes;
}

// An expected code, by name or by number: its name.
std::string code_from(const nlohmann::json& v, const std::string& path) {
  for (const auto& [name, number] : error_codes()) {
    if ((v.is_string() && v == name) || (v.is_number_integer() && v == number)) return name;
  }
  std::string known;
  for (const auto& [name, number] : error_codes()) known += (known.empty() ? "" : ", ") + name + " (" + std::to_string(number) + ")";
  throw JsonError(path, "expected one of MongoDB's codes the steps answer with, by name or number: " + known + "; found " + sim::describe(v));
}

std::map<std::string, nlohmann::json> pointer_map(const nlohmann::json& j, const std::string& path, bool metrics) {
  expect_type(j, j.is_object() && !j.empty(), path, "an object of JSON pointers to values");
  std::map<std::string, nlohmann::json> out;
  for (const auto& [pointer, value] : j.items()) {
    const std::string at = path + "/" + pointer;
    if (pointer.empty() || pointer[0] != '/') throw JsonError(at, "expected a JSON pointer (\"/a/b\")");
    if (metrics) check_metric_path(pointer, at);
    check_range(value, at);
    out[pointer] = value;
  }
  return out;
}

StepExpectation expectation_from(const nlohmann::json& j, const std::string& path) {
  ObjectReader r(j, path);
  StepExpectation e;
  if (const nlohmann::json* docs = r.optional("docs")) {
    expect_type(*docs, docs->is_array(), path + "/docs", "an array of documents");
    e.docs = *docs;
  }
  if (r.has("n")) e.n = r.u64("n");
  if (r.has("modified")) e.modified = r.u64("modified");
  if (const nlohmann::json* code = r.optional("code")) e.code = code_from(*code, path + "/code");
  if (const nlohmann::json* x = r.optional("explain")) e.explain = pointer_map(*x, path + "/explain", false);
  if (const nlohmann::json* m = r.optional("metrics")) e.metrics = pointer_map(*m, path + "/metrics", true);
  if (const nlohmann::json* x = r.optional("reply")) e.reply = pointer_map(*x, path + "/reply", false);
  if (r.has("state")) {
    e.state = r.string("state");
    static const std::vector<std::string> kStates = {"PRIMARY", "SECONDARY", "DOWN", "RECOVERING"};
    if (std::find(kStates.begin(), kStates.end(), *e.state) == kStates.end()) {
      throw JsonError(path + "/state", "expected PRIMARY, SECONDARY, DOWN or RECOVERING");
    }
  }
  if (const nlohmann::json* b = r.optional("entries_behind")) {
    if (!b->is_object()) sim::as_u64(*b, path + "/entries_behind");
    check_range(*b, path + "/entries_behind");
    e.entries_behind = *b;
  }
  if (const nlohmann::json* d = r.optional("disk_bytes")) {
    if (!d->is_object()) sim::as_u64(*d, path + "/disk_bytes");
    check_range(*d, path + "/disk_bytes");
    e.disk_bytes = *d;
  }
  r.reject_unknown();
  return e;
}

// The value generators a step's values may hold ({"$now": ms}, {"$repeatIndex": k},
// {"$fill": [text, n]}), checked wherever they are.
void check_generators(const nlohmann::json& v, const std::string& path) {
  if (v.is_array()) {
    for (size_t i = 0; i < v.size(); ++i) check_generators(v[i], path + "/" + std::to_string(i));
  }
  if (!v.is_object()) return;
  if (v.size() == 1 && (v.contains("$now") || v.contains("$repeatIndex"))) {
    const std::string key = v.begin().key();
    expect_type(v[key], v[key].is_number_integer(), path + "/" + key, "an integer (milliseconds for $now)");
    return;
  }
  if (v.size() == 1 && v.contains("$fill")) {
    const nlohmann::json& f = v["$fill"];
    const bool ok = f.is_array() && f.size() == 2 && f[0].is_string() && !f[0].get<std::string>().empty() && f[1].is_number_unsigned() &&
                    f[0].get<std::string>().size() * f[1].get<uint64_t>() <= (16u << 20);
    expect_type(f, ok, path + "/$fill", "[\"text\", copies], at most 16 MB in all");
    return;
  }
  for (const auto& [key, x] : v.items()) check_generators(x, path + "/" + key);
}

// A partition names its links one way: a member to isolate, a side to cut from the rest, or one
// link (from, to).
void check_partition(const nlohmann::json& args, const std::string& path) {
  const int shapes = args.contains("isolate") + args.contains("side") + (args.contains("from") || args.contains("to"));
  if (shapes != 1) throw JsonError(path, "a partition takes one of isolate, side, or from and to");
  if (args.contains("from") != args.contains("to")) throw JsonError(path + (args.contains("from") ? "/to" : "/from"), "required field is missing (a one-way cut)");
  if (args.contains("from") && args["from"] == args["to"]) throw JsonError(path + "/to", "must differ from from");
}

ScriptStep step_from(const nlohmann::json& j, size_t index, const std::string& path) {
  ObjectReader r(j, path);
  ScriptStep step;
  step.index = index;
  step.cmd = r.string("cmd");
  const auto found = commands().find(step.cmd);
  if (found == commands().end()) {
    std::string names;
    for (const std::string& c : script_commands()) names += (names.empty() ? "" : ", ") + c;
    throw JsonError(path + "/cmd", "unknown command \"" + step.cmd + "\"; the commands are " + names);
  }
  step.client = r.u64_or("client", 0);
  if (step.client >= Script::kClientsMax) throw JsonError(path + "/client", "must be below " + std::to_string(Script::kClientsMax));
  if (step.cmd == "barrier" && r.has("client")) throw JsonError(path + "/client", "a barrier lines up every client: no client field");
  step.repeat = r.u64_or("repeat", 1);
  if (step.repeat < 1 || step.repeat > 100'000) throw JsonError(path + "/repeat", "must be in [1, 100000]");
  if (step.cmd == "barrier" && step.repeat != 1) throw JsonError(path + "/repeat", "a barrier is not repeated");
  for (const auto& [field, required] : found->second) {
    const nlohmann::json* v = required ? &r.required(field) : r.optional(field);
    if (v == nullptr) continue;
    check_field(field, *v, path + "/" + field);
    check_generators(*v, path + "/" + field);
    step.args[field] = *v;
  }
  if (const nlohmann::json* e = r.optional("expect")) step.expect = expectation_from(*e, path + "/expect");
  if (step.expect.docs) check_generators(*step.expect.docs, path + "/expect/docs");
  const bool reads_docs = step.cmd == "find" || step.cmd == "listIndexes";
  if ((step.expect.docs || !step.expect.explain.empty()) && !reads_docs) {
    throw JsonError(path + "/expect", "docs and explain are expectations of a find (docs: or listIndexes)");
  }
  static const std::vector<std::string> kReplies = {"collMod", "runTtlPass", "findAndModify", "find"};
  if (!step.expect.reply.empty() && std::find(kReplies.begin(), kReplies.end(), step.cmd) == kReplies.end()) {
    throw JsonError(path + "/expect/reply", "reply is an expectation of collMod, find, findAndModify and runTtlPass");
  }
  if ((step.expect.state || step.expect.entries_behind) && step.cmd != "replSetGetStatus") {
    throw JsonError(path + "/expect", "state and entries_behind are expectations of replSetGetStatus");
  }
  if (step.cmd == "partition") check_partition(step.args, path);
  if (step.cmd == "create" && step.args.contains("flags") && step.args.contains("power_of_2_sizes")) {
    throw JsonError(path + "/flags", "give flags or power_of_2_sizes, not both");
  }
  if (step.cmd == "create" && step.args.contains("clusteredIndex") && step.args.value("padded", false)) {
    throw JsonError(path + "/clusteredIndex", "a padded (MMAPv1) collection cannot be clustered");
  }
  r.reject_unknown();
  return step;
}

}  // namespace

bool is_write_command(const std::string& cmd) {
  return cmd == "insert" || cmd == "update" || cmd == "replace" || cmd == "delete" || cmd == "findAndModify";
}

bool is_document_command(const std::string& cmd) {
  static constexpr std::array<const char*, 7> kOthers = {"find", "listIndexes", "create", "createIndex", "dropIndex", "collMod", "drop"};
  return is_write_command(cmd) || std::find(kOthers.begin(), kOthers.end(), cmd) != kOthers.end();
}

const std::vector<std::string>& script_commands() {
  static const std::vector<std::string> kNames = [] {
    std::vector<std::string> names;
    for (const auto& [name, fields] : commands()) names.push_back(name);
    return names;
  }();
  return kNames;
}

Script script_from_json(const nlohmann::json& steps, const std::string& path) {
  expect_type(steps, steps.is_array() && !steps.empty(), path, "a non-empty array of steps");
  if (steps.size() > Script::kStepsMax) throw JsonError(path, "at most " + std::to_string(Script::kStepsMax) + " steps");
  std::vector<ScriptStep> all;
  size_t clients = 1;
  for (size_t i = 0; i < steps.size(); ++i) {
    all.push_back(step_from(steps[i], i, path + "/" + std::to_string(i)));
    clients = std::max(clients, all.back().client + 1);
  }
  Script script;
  script.steps = all.size();
  script.clients.resize(clients);
  for (const ScriptStep& s : all) {
    if (s.cmd != "barrier") {
      script.clients[s.client].push_back(s);
      continue;
    }
    for (size_t c = 0; c < clients; ++c) {
      ScriptStep b = s;
      b.client = c;
      script.clients[c].push_back(b);
    }
  }
  return script;
}

}  // namespace wtsim::world
