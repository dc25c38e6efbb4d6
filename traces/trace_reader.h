#pragma once
// Reads and validates a trace file. Problems are reported as "FILE: /json/path: problem".
#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>

namespace wtsim::traces {

struct LoadedTrace {
  nlohmann::json doc;
  std::string path;
};

// Throws std::invalid_argument naming the file, the path inside it and the problem (malformed
// JSON, truncation, a newer format version, a missing or mistyped field, a hash mismatch).
// Either form, told apart by content: the single JSON document, or JSON Lines (traces/
// trace_stream.h), loaded into the same document shape; its problems name the line.
LoadedTrace read_trace(const std::string& path);
// The same checks on an already parsed document.
void validate_trace(const nlohmann::json& doc);
// One event's fields; `position` is its place in the trace (its "i" may not be smaller), `path`
// prefixes the JSON paths in messages. Throws sim::JsonError.
void validate_event(const nlohmann::json& e, uint64_t position, const std::string& path);

}  // namespace wtsim::traces
