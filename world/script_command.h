#pragma once
// What a script step (world/script.h) produced, and the pieces of running one on a member's
// document engine: the step's arguments as the engine takes them, MongoDB's code names for the
// engine's answers, and the metrics an expectation reads. The commands themselves run in
// DocSystem::script_command (world/script_command.cpp), on whichever member serves them: the
// script's own node (world/script_system.cpp) or, with elections, the primary a script client
// found (world/script_clients.h).
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "engine/engine.h"
#include "world/script.h"
#include "world/system.h"

namespace wtsim::world {

class NodeContext;

struct ScriptReply {
  std::string code = "OK";
  std::optional<uint64_t> n, modified;
  std::optional<engine::Document> docs;
  engine::Document explain;
  std::optional<nlohmann::json> metrics;   // of the member that served the step, when asked for
  std::optional<std::string> state;        // replSetGetStatus
  std::optional<uint64_t> entries_behind;  // replSetGetStatus
  std::optional<uint64_t> disk_bytes;      // the node's table files, when expected
  engine::Document reply;                  // a command's reply (collMod's expireAfterSeconds_old, ...)
  std::optional<size_t> member;            // with elections: the member that served it
  OplogId last_op;                         // a write's newest oplog entry (ts 0: none)
};

// A reply that is only a code ("NotMaster", "HostUnreachable", ...).
inline ScriptReply reply_code(std::string code) {
  ScriptReply r;
  r.code = std::move(code);
  return r;
}

// A step run on a member with elections: the command, its resolved arguments, and what the
// script client asks of the member beyond it.
struct ScriptRequest {
  std::string cmd;
  nlohmann::json args;
  bool any_member = false;    // a find on a named member: served whatever its role
  bool majority = false;      // w:"majority": waits until a majority holds the write
  sim::Nanos wtimeout_ns = 0;
  bool want_metrics = false;  // the step expects metrics: the serving member's
};

// MongoDB's name for an engine code, and a command's status as a script expects it: a
// WiredTiger failure by its number, else the engine's code.
std::string code_name(engine::ErrorCode code);
std::string code_text(const engine::Status& status);

// {"$now": OFFSET_MS} anywhere in `v` becomes a Date at `now_ms` plus the offset,
// {"$repeatIndex": OFFSET} the step's run (0 for the first of its `repeat` runs) plus the offset,
// and {"$fill": [TEXT, N]} N copies of TEXT.
engine::Document resolve_now(const nlohmann::json& v, int64_t now_ms, uint64_t repeat_index = 0);

engine::IndexSpec index_spec(const nlohmann::json& args);
engine::FindRequest find_request(const nlohmann::json& args);
engine::CollectionOptions collection_options(const nlohmann::json& args);
engine::FindAndModifyRequest find_and_modify_request(const nlohmann::json& args);
// collMod's index option: `index` an object {keyPattern | name, expireAfterSeconds} as MongoDB
// takes it, or the index's name with expireAfterSeconds beside it.
engine::CollModRequest coll_mod_request(const nlohmann::json& args);

// serverStatus and every collection's collStats of `e`, as an expectation's metrics read them.
nlohmann::json metrics_of(NodeContext& host, engine::DocumentEngine& e, engine::OperationContext& op);

}  // namespace wtsim::world
