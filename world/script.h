#pragma once
// A scenario's `steps`: ordered commands for one or more clients on the document engine, with
// expectations, run under the same world, clock, faults and properties as any workload
// (world/script_system.cpp runs them). The form, with every command and expectation, is in the
// docs/guide/scripts.md and docs/reference/script-steps.md; a step is one JSON object:
//
//   {"cmd": "insert", "client": 0, "ns": "test.c", "docs": [{"_id": 1}], "expect": {"n": 1}}
//
// Values may hold {"$now": OFFSET_MS}: a Date at the virtual now plus the offset, when the step
// runs; and {"$repeatIndex": OFFSET}: which of the step's `repeat` runs this is (from 0), plus
// the offset. Parsing checks everything it can (command names, fields, types, metric paths), so that a
// mistake is bad input (exit 2, the step's index and field) and not a failure at run time.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace wtsim::world {

// What a step must have produced. Numbers in `metrics` and `explain` are exact values, or
// {"min": a, "max": b} ranges (either bound may be left out).
struct StepExpectation {
  std::optional<nlohmann::json> docs;   // a find's documents, in order
  std::optional<uint64_t> n;            // documents inserted, matched, deleted or returned
  std::optional<uint64_t> modified;     // an update's documents changed
  std::optional<std::string> code;      // "OK" or MongoDB's error code name ("DuplicateKey"; a number given is named)
  std::map<std::string, nlohmann::json> explain;  // JSON pointer into explain("executionStats")
  std::map<std::string, nlohmann::json> metrics;  // "/serverStatus/..." or "/collStats/<ns>/..."
  std::map<std::string, nlohmann::json> reply;    // JSON pointer into a command's reply (collMod's)
  std::optional<nlohmann::json> disk_bytes;       // the node's table files, a value or a range
  std::optional<std::string> state;               // replSetGetStatus: PRIMARY, SECONDARY, DOWN, RECOVERING
  std::optional<nlohmann::json> entries_behind;   // replSetGetStatus: the primary's newest ts minus the member's
  bool empty() const {
    return !docs && !n && !modified && !code && explain.empty() && metrics.empty() && reply.empty() && !disk_bytes && !state &&
           !entries_behind;
  }
};

struct ScriptStep {
  size_t index = 0;   // in the file's `steps`, for messages
  size_t client = 0;  // which client runs it; a barrier belongs to every client
  std::string cmd;
  uint64_t repeat = 1;  // runs this many times; the expectations are checked after the last
  nlohmann::json args = nlohmann::json::object();  // the step's own fields (checked by the parser)
  StepExpectation expect;
};

struct Script {
  static constexpr size_t kStepsMax = 10'000;
  static constexpr size_t kClientsMax = 64;
  std::vector<std::vector<ScriptStep>> clients;  // each client's steps, in file order
  size_t steps = 0;
};

// Reads `steps` (at `path`, e.g. "/steps"); throws sim::JsonError naming "/steps/<i>/<field>".
Script script_from_json(const nlohmann::json& steps, const std::string& path);

// The command names, as a scenario spells them.
const std::vector<std::string>& script_commands();
// The commands a member's document engine runs (DocSystem::script_command); the rest are the
// world's or the script's own.
bool is_document_command(const std::string& cmd);
bool is_write_command(const std::string& cmd);

}  // namespace wtsim::world
