#pragma once
// Reads and validates a trace file. Problems are reported as "FILE: /json/path: problem".
#include <nlohmann/json.hpp>

#include <string>

namespace wtsim::traces {

struct LoadedTrace {
  nlohmann::json doc;
  std::string path;
};

// Throws std::invalid_argument naming the file, the path inside it and the problem (malformed
// JSON, truncation, a newer format version, a missing or mistyped field, a hash mismatch).
LoadedTrace read_trace(const std::string& path);
// The same checks on an already parsed document.
void validate_trace(const nlohmann::json& doc);

}  // namespace wtsim::traces
