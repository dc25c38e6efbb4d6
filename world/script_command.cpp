// The document commands of a script step on one member's engine (world/script_command.h).
#include "world/script_command.h"

#include <algorithm>
#include <cassert>

#include "world/doc_system.h"

namespace wtsim::world {

std::string code_name(engine::ErrorCode code) {
  switch (code) {
    case engine::ErrorCode::kOk: return "OK";
    case engine::ErrorCode::kBadValue: return "BadValue";
    case engine::ErrorCode::kFailedToParse: return "FailedToParse";
    case engine::ErrorCode::kIllegalOperation: return "IllegalOperation";
    case engine::ErrorCode::kNamespaceNotFound: return "NamespaceNotFound";
    case engine::ErrorCode::kIndexNotFound: return "IndexNotFound";
    case engine::ErrorCode::kCannotCreateIndex: return "CannotCreateIndex";
    case engine::ErrorCode::kInvalidOptions: return "InvalidOptions";
    case engine::ErrorCode::kAmbiguousIndexKeyPattern: return "AmbiguousIndexKeyPattern";
    case engine::ErrorCode::kCannotGrowCapped: return "CannotGrowCapped";
    case engine::ErrorCode::kDuplicateKey: return "DuplicateKey";
  }
  return "Unknown";
}

std::string code_text(const engine::Status& status) {
  return status.wt_code != 0 ? "WiredTiger error " + std::to_string(status.wt_code) : code_name(status.code);
}

namespace {

// {"$fill": ["ab", 3]}: "ababab" (a big document's filler, written small). Bounded by MongoDB's
// 16 MB document.
std::optional<std::string> fill_of(const nlohmann::json& v) {
  constexpr uint64_t kBytesMax = 16u << 20;
  if (!v.is_object() || v.size() != 1 || !v.contains("$fill")) return std::nullopt;
  const nlohmann::json& f = v["$fill"];
  if (!f.is_array() || f.size() != 2 || !f[0].is_string() || !f[1].is_number_unsigned()) return std::nullopt;
  const std::string text = f[0];
  const uint64_t times = f[1];
  if (text.size() * times > kBytesMax) return std::nullopt;
  std::string out;
  out.reserve(text.size() * times);
  for (uint64_t i = 0; i < times; ++i) out += text;
  return out;
}

// The documents as stored: showRecordId's field is the find's, not the document's.
std::vector<engine::Document> without_record_ids(std::vector<engine::Document> docs) {
  for (engine::Document& d : docs) d.erase("$recordId");
  return docs;
}

}  // namespace

engine::Document resolve_now(const nlohmann::json& v, int64_t now_ms, uint64_t repeat_index) {
  if (v.is_object() && v.size() == 1 && v.contains("$now") && v["$now"].is_number_integer()) {
    return engine::make_date(now_ms + v["$now"].get<int64_t>());
  }
  if (v.is_object() && v.size() == 1 && v.contains("$repeatIndex") && v["$repeatIndex"].is_number_integer()) {
    return v["$repeatIndex"].get<int64_t>() + static_cast<int64_t>(repeat_index);
  }
  if (const std::optional<std::string> filled = fill_of(v)) return *filled;
  if (!v.is_object() && !v.is_array()) return v;
  engine::Document out = v;
  for (auto& [k, x] : out.items()) x = resolve_now(x, now_ms, repeat_index);
  return out;
}

engine::IndexSpec index_spec(const nlohmann::json& args) {
  engine::IndexSpec spec;
  const nlohmann::json& key = args["key"];
  if (key.is_object()) {
    spec.fields.emplace_back(key.begin().key(), key.begin().value().get<int>());
  } else {
    for (const nlohmann::json& part : key) spec.fields.emplace_back(part[0].get<std::string>(), part[1].get<int>());
  }
  for (const auto& [field, dir] : spec.fields) spec.name += (spec.name.empty() ? "" : "_") + field + "_" + std::to_string(dir);
  spec.name = args.value("name", spec.name);
  spec.unique = args.value("unique", false);
  if (args.contains("expireAfterSeconds")) spec.expire_after_seconds = args["expireAfterSeconds"];
  if (args.contains("partialFilterExpression")) spec.partial_filter = args["partialFilterExpression"];
  return spec;
}

engine::FindRequest find_request(const nlohmann::json& args) {
  engine::FindRequest req;
  req.filter = args.value("filter", engine::Document::object());
  if (args.contains("sort")) req.sort = index_spec({{"key", args["sort"]}}).fields.front();
  req.limit = args.value("limit", uint64_t{0});
  req.hint = args.value("hint", "");
  req.show_record_id = args.value("showRecordId", false);
  return req;
}

engine::CollectionOptions collection_options(const nlohmann::json& args) {
  engine::CollectionOptions o;
  o.padded = args.value("padded", false);
  o.clustered = args.contains("clusteredIndex");
  o.capped_max_docs = args.value("capped_max_docs", uint64_t{0});
  const bool v26 = args.value("padding_rules", "2.6") == "2.6";
  if (!v26) o.padding_rules = engine::MmapAllocator::PaddingRules::kV1x;
  // 2.6's newCollectionsUsePowerOf2Sizes: userFlags 1 unless flags are given, never when capped.
  o.power_of_2_sizes = args.value("power_of_2_sizes", v26 && o.padded && o.capped_max_docs == 0);
  if (args.contains("flags")) {
    o.power_of_2_sizes = (args["flags"].get<int>() & 1) != 0 && o.capped_max_docs == 0;  // 2.6: capped stays 0
    o.no_padding = (args["flags"].get<int>() & 2) != 0;
  }
  return o;
}

nlohmann::json metrics_of(NodeContext& host, engine::DocumentEngine& e, engine::OperationContext& op) {
  engine::Document status;
  host.node_call("script_metrics", [&] { return status = e.server_status(op), 0; }, {.handle_failure = false});
  nlohmann::json m = {{"serverStatus", std::move(status)}};
  for (const auto& [ns, coll] : e.catalog().collections()) m["collStats"][ns] = e.coll_stats(ns);
  return m;
}

ScriptReply DocSystem::script_command(engine::OperationContext& op, const std::string& cmd, const nlohmann::json& a) {
  assert(is_document_command(cmd));
  if (is_write_command(cmd)) return script_write(op, cmd, a);
  const std::string ns = a["ns"];
  ScriptReply r;
  if (cmd == "find") {
    const engine::FindRequest req = find_request(a);
    const models::ReadScope read(host_.model());
    const engine::FindResult f = host_.node_call("script_find", [&] { return engine_->find(op, ns, req); });
    if (f.status.ok() && req.show_record_id) check_find(ns, req, without_record_ids(f.docs), read.token());
    if (f.status.ok() && !req.show_record_id) check_find(ns, req, f.docs, read.token());
    r.code = code_text(f.status);
    r.n = f.docs.size();
    r.docs = engine::Document(f.docs);
    r.explain = f.explain;
    r.reply = {{"cursor", {{"firstBatch", *r.docs}, {"id", 0}, {"ns", ns}}}, {"ok", f.status.ok() ? 1 : 0}};
    return r;
  }
  if (cmd == "listIndexes") return list_indexes(ns);
  if (cmd == "collMod") {
    const engine::CollModResult m = host_.node_call("script_collMod", [&] { return engine_->coll_mod(op, ns, coll_mod_request(a)); });
    r.code = code_text(m.status);
    r.reply = m.reply;
    r.reply["ok"] = m.status.ok() ? 1 : 0;
    if (!m.status.ok()) r.reply.update({{"errmsg", m.message}, {"code", m.status.trace_code()}});
    return r;
  }
  const engine::Status s = host_.node_call("script_" + cmd, [&] {
    if (cmd == "create") return engine_->create_collection(op, ns, collection_options(a));
    if (cmd == "createIndex") return engine_->create_index(op, ns, index_spec(a));
    if (cmd == "drop") return engine_->drop_collection(op, ns);
    return engine_->drop_index(op, ns, a["name"]);
  });
  r.code = code_text(s);
  return r;
}

engine::FindAndModifyRequest find_and_modify_request(const nlohmann::json& a) {
  engine::FindAndModifyRequest request;
  request.query = a.value("query", engine::Document::object());
  if (a.contains("sort")) request.sort = index_spec({{"key", a["sort"]}}).fields.front();
  if (a.contains("update")) request.update = a["update"];
  request.remove = a.value("remove", false);
  request.return_new = a.value("new", false);
  request.upsert = a.value("upsert", false);
  request.fields = a.value("fields", engine::Document::object());
  return request;
}

// findAndModify's reply as MongoDB 3.2 gives it: value (null when no document), lastErrorObject
// {n, updatedExisting, upserted} and ok; a refusal's errmsg and code.
ScriptReply DocSystem::script_find_and_modify(engine::OperationContext& op, const nlohmann::json& a) {
  const std::string ns = a["ns"];
  const engine::FindAndModifyRequest request = find_and_modify_request(a);
  const engine::Document& update = request.update ? *request.update : properties::WriteCommand::kNone;
  properties::WriteCommand command = properties::WriteCommand::make_find_and_modify(ns, request.query, update, request.remove, request.upsert);
  const CommandScope scope(*this, command);
  const engine::FindAndModifyResult f =
      host_.node_call("script_findAndModify", [&] { return engine_->find_and_modify(op, ns, request, {a.value("j", false)}); });
  if (f.status.ok()) run_.note_progress();
  ScriptReply r;
  r.n = f.n;
  r.code = f.status.ok() && !f.errors.empty() ? code_name(f.errors.front().code) : code_text(f.status);
  r.reply = {{"ok", r.code == "OK" ? 1 : 0}};
  if (r.code != "OK") {
    r.reply.update({{"errmsg", f.message}, {"code", f.errors.empty() ? 0 : static_cast<int>(f.errors.front().code)}});
    return r;
  }
  r.reply["value"] = f.value ? *f.value : engine::Document();
  engine::Document last = {{"n", f.n}};
  if (!a.value("remove", false)) last["updatedExisting"] = f.updated_existing;
  if (!f.upserted_ids.empty()) last["upserted"] = f.upserted_ids.front();
  r.reply["lastErrorObject"] = std::move(last);
  return r;
}

engine::CollModRequest coll_mod_request(const nlohmann::json& a) {
  engine::CollModRequest request;
  const auto field = [](const nlohmann::json& from, const char* name) {
    return from.contains(name) ? std::optional<engine::Document>(from[name]) : std::nullopt;
  };
  request.use_power_of_2_sizes = field(a, "usePowerOf2Sizes");
  request.no_padding = field(a, "noPadding");
  request.index = a.contains("index");
  if (!request.index) return request;
  const nlohmann::json& index = a["index"];
  if (index.is_string()) {  // the index's name, its value beside it
    request.name = index;
    request.expire_after_seconds = field(a, "expireAfterSeconds");
    return request;
  }
  request.key_pattern = field(index, "keyPattern");
  request.name = field(index, "name");
  request.expire_after_seconds = field(index, "expireAfterSeconds");
  return request;
}

// listIndexes: each index as MongoDB describes it, in the order they were built. A compound key
// is given as [["a", 1], ["b", -1]], the form a script writes it in (a JSON object has no order).
ScriptReply DocSystem::list_indexes(const std::string& ns) {
  const engine::CollectionSpec* coll = engine_->catalog().find(ns);
  if (coll == nullptr) return reply_code("NamespaceNotFound");
  engine::Document docs = engine::Document::array();
  const bool id_listed = std::any_of(coll->indexes.begin(), coll->indexes.end(), [](const engine::IndexSpec& i) { return i.is_id(); });
  if (!id_listed) {  // a clustered collection's record store is its _id index (MongoDB 5.3)
    docs.push_back({{"key", {{"_id", 1}}}, {"name", "_id_"}, {"ns", ns}, {"unique", true}, {"clustered", true}});
  }
  for (const engine::IndexSpec& index : coll->indexes) {
    engine::Document key = engine::Document::object();
    if (index.fields.size() == 1) key[index.fields.front().first] = index.fields.front().second;
    if (index.fields.size() > 1) key = engine::Document(index.fields);
    engine::Document d = {{"key", key}, {"name", index.name}, {"ns", ns}};
    if (index.unique && !index.is_id()) d["unique"] = true;
    if (index.expire_after_seconds) d["expireAfterSeconds"] = *index.expire_after_seconds;
    if (index.partial_filter) d["partialFilterExpression"] = *index.partial_filter;
    docs.push_back(std::move(d));
  }
  ScriptReply r;
  r.n = docs.size();
  r.docs = std::move(docs);
  return r;
}

ScriptReply DocSystem::script_write(engine::OperationContext& op, const std::string& cmd, const nlohmann::json& a) {
  const std::string ns = a["ns"];
  const engine::WriteConcern wc{a.value("j", false)};
  const engine::Document filter = a.value("filter", engine::Document::object());
  if (cmd == "findAndModify") return script_find_and_modify(op, a);
  engine::WriteResult w;
  if (cmd == "insert") {
    std::vector<engine::Document> docs = a["docs"].is_array() ? a["docs"].get<std::vector<engine::Document>>() : std::vector<engine::Document>{a["docs"]};
    w = write("script_insert", properties::WriteCommand::make_insert(ns, docs), [&] { return engine_->insert_many(op, ns, std::move(docs), wc, a.value("ordered", true)); });
  } else if (cmd == "update" || cmd == "replace") {
    const engine::Document& change = cmd == "update" ? a["update"] : a["replacement"];
    const bool upsert = a.value("upsert", false), multi = a.value("multi", false);
    w = write("script_update", properties::WriteCommand::make_update(ns, filter, change, upsert, multi),
              [&] { return engine_->update(op, ns, filter, change, upsert, multi, wc); });
  } else {
    const bool just_one = !a.value("many", false);
    w = write("script_delete", properties::WriteCommand::make_delete(ns, filter, just_one), [&] { return engine_->remove(op, ns, filter, just_one, wc); });
  }
  ScriptReply r;
  r.n = w.n;
  r.modified = w.modified;
  r.code = w.status.ok() && !w.errors.empty() ? code_name(w.errors.front().code) : code_text(w.status);
  return r;
}

}  // namespace wtsim::world
