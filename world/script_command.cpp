// The document commands of a script step on one member's engine (world/script_command.h).
#include "world/script_command.h"

#include <algorithm>
#include <array>
#include <cassert>

#include "world/doc_system.h"

namespace wtsim::world {

bool is_write_command(const std::string& cmd) { return cmd == "insert" || cmd == "update" || cmd == "replace" || cmd == "delete"; }

bool is_document_command(const std::string& cmd) {
  static constexpr std::array<const char*, 5> kOthers = {"find", "create", "createIndex", "dropIndex", "collMod"};
  return is_write_command(cmd) || std::find(kOthers.begin(), kOthers.end(), cmd) != kOthers.end();
}

std::string code_name(engine::ErrorCode code) {
  switch (code) {
    case engine::ErrorCode::kOk: return "OK";
    case engine::ErrorCode::kBadValue: return "BadValue";
    case engine::ErrorCode::kNamespaceNotFound: return "NamespaceNotFound";
    case engine::ErrorCode::kIndexNotFound: return "IndexNotFound";
    case engine::ErrorCode::kCannotGrowCapped: return "CannotGrowCapped";
    case engine::ErrorCode::kDuplicateKey: return "DuplicateKey";
  }
  return "Unknown";
}

std::string code_text(const engine::Status& status) {
  return status.wt_code != 0 ? "WiredTiger error " + std::to_string(status.wt_code) : code_name(status.code);
}

engine::Document resolve_now(const nlohmann::json& v, int64_t now_ms) {
  if (v.is_object() && v.size() == 1 && v.contains("$now") && v["$now"].is_number_integer()) {
    return engine::make_date(now_ms + v["$now"].get<int64_t>());
  }
  if (!v.is_object() && !v.is_array()) return v;
  engine::Document out = v;
  for (auto& [k, x] : out.items()) x = resolve_now(x, now_ms);
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
  return spec;
}

engine::FindRequest find_request(const nlohmann::json& args) {
  engine::FindRequest req;
  req.filter = args.value("filter", engine::Document::object());
  if (args.contains("sort")) req.sort = index_spec({{"key", args["sort"]}}).fields.front();
  req.limit = args.value("limit", uint64_t{0});
  req.hint = args.value("hint", "");
  return req;
}

engine::CollectionOptions collection_options(const nlohmann::json& args) {
  engine::CollectionOptions o;
  o.padded = args.value("padded", false);
  o.capped_max_docs = args.value("capped_max_docs", uint64_t{0});
  o.power_of_2_sizes = args.value("power_of_2_sizes", false);
  if (args.value("padding_rules", "2.6") == "1.x") o.padding_rules = engine::MmapAllocator::PaddingRules::kV1x;
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
    if (f.status.ok()) check_find(ns, req.filter, f.docs, read.token());
    r.code = code_text(f.status);
    r.n = f.docs.size();
    r.docs = engine::Document(f.docs);
    r.explain = f.explain;
    return r;
  }
  const engine::Status s = host_.node_call("script_" + cmd, [&] {
    if (cmd == "create") return engine_->create_collection(op, ns, collection_options(a));
    if (cmd == "createIndex") return engine_->create_index(op, ns, index_spec(a));
    if (cmd == "dropIndex") return engine_->drop_index(op, ns, a["name"]);
    return engine_->set_expire_after(op, ns, a["index"], a["expireAfterSeconds"]);
  });
  r.code = code_text(s);
  return r;
}

ScriptReply DocSystem::script_write(engine::OperationContext& op, const std::string& cmd, const nlohmann::json& a) {
  const std::string ns = a["ns"];
  const engine::WriteConcern wc{a.value("j", false)};
  const engine::Document filter = a.value("filter", engine::Document::object());
  engine::WriteResult w;
  if (cmd == "insert") {
    std::vector<engine::Document> docs = a["docs"].is_array() ? a["docs"].get<std::vector<engine::Document>>() : std::vector<engine::Document>{a["docs"]};
    w = write("script_insert", [&] { return engine_->insert_many(op, ns, std::move(docs), wc, a.value("ordered", true)); });
  } else if (cmd == "update" || cmd == "replace") {
    const engine::Document& change = cmd == "update" ? a["update"] : a["replacement"];
    w = write("script_update", [&] { return engine_->update(op, ns, filter, change, a.value("upsert", false), a.value("multi", false), wc); });
  } else {
    w = write("script_delete", [&] { return engine_->remove(op, ns, filter, !a.value("many", false), wc); });
  }
  ScriptReply r;
  r.n = w.n;
  r.modified = w.modified;
  r.code = w.status.ok() && !w.errors.empty() ? code_name(w.errors.front().code) : code_text(w.status);
  return r;
}

}  // namespace wtsim::world
