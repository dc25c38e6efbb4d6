#pragma once
// Reads JSON objects field by field, naming the path and the problem of anything wrong
// ("/faults/2/at_ms: expected a non-negative integer, found \"10s\""). Unknown fields are errors,
// so that a typo in a scenario never silently falls back to a default.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>

namespace wtsim::sim {

// Control characters from the input (keys, string values) shown escaped ("\u0000"), so that a
// NUL cannot cut the message short and nothing in it moves the terminal.
std::string printable(const std::string& text);

class JsonError : public std::invalid_argument {
 public:
  JsonError(const std::string& path, const std::string& problem)
      : std::invalid_argument(printable((path.empty() ? std::string("/") : path) + ": " + problem)) {}
};

std::string describe(const nlohmann::json& j);  // short rendering of a found value
// The JSON library's message in plain words: without its "[json.exception.type_error.302] " tag
// and "parse error at " lead, control characters escaped.
std::string plain_json_error(const nlohmann::json::exception& e);
// A whole input file's bytes. Throws std::invalid_argument "PATH: cannot open WHAT: REASON"
// (no such file, a directory, permission denied).
std::string read_input_file(const std::string& path, const std::string& what);

// The largest count, size or time a setting may have: beyond any real one, and small enough that
// milliseconds converted to nanoseconds (x 1e6) and added up cannot overflow a signed 64-bit value.
constexpr uint64_t kMaxSetting = uint64_t{1} << 40;

// Every field the readers take while one is recording, for the generated reference (`wtsim
// docs`): its path (array indexes as "N"), type and default. Off, and free, otherwise; one at a time.
class FieldCatalogue {
 public:
  struct Field {
    std::string type;      // "integer", "number", "fraction", "boolean", "string", or "value"
    std::string fallback;  // the default as JSON text; empty: none
    bool probed = false;   // asked for with has() first: optional whatever reads it then
    bool required = false; // read with required() and never probed
    std::string bounds;    // "at least 1", "in [1, 100]": what check_bounds refuses outside
  };
  FieldCatalogue();
  ~FieldCatalogue();
  FieldCatalogue(const FieldCatalogue&) = delete;
  FieldCatalogue& operator=(const FieldCatalogue&) = delete;
  const std::map<std::string, Field>& fields() const { return fields_; }
  // Called by ObjectReader's accessors; a no-op unless a catalogue is recording.
  enum class Use { kRead, kProbed, kRequired };
  static void note(const std::string& path, const char* type, const std::string& fallback, Use use = Use::kRead);
  static void note_bounds(const std::string& path, const std::string& bounds);

 private:
  std::map<std::string, Field> fields_;  // by path, sorted
};

class ObjectReader {
 public:
  ObjectReader(const nlohmann::json& j, std::string path);

  bool has(const std::string& key) const {
    FieldCatalogue::note(path_of(key), "value", "", FieldCatalogue::Use::kProbed);
    return j_.contains(key);
  }
  const std::string& path() const { return path_; }
  std::string path_of(const std::string& key) const { return path_ + "/" + key; }

  // Each accessor marks the key as known; the *_or forms give a default when absent. u64 and
  // u64_or read settings (counts, sizes, times), which are at most kMaxSetting.
  const nlohmann::json& required(const std::string& key);
  const nlohmann::json* optional(const std::string& key);
  uint64_t u64(const std::string& key);
  uint64_t u64_or(const std::string& key, uint64_t fallback);
  double number_or(const std::string& key, double fallback);
  double fraction_or(const std::string& key, double fallback);  // in [0, 1]
  bool bool_or(const std::string& key, bool fallback);
  std::string string(const std::string& key);
  std::string string_or(const std::string& key, const std::string& fallback);

  // Throws if the object has a key no accessor asked for.
  void reject_unknown() const;

 private:
  const nlohmann::json& j_;
  std::string path_;
  std::set<std::string> known_;
};

// Nesting deeper than this is refused before parsing: the library's dump, copy and compare
// recurse per level, and a file of a few hundred kB of "[" would overflow the stack.
constexpr size_t kMaxJsonDepth = 100;

// Parses a whole file's text. Throws std::invalid_argument "ORIGIN: not valid JSON<hint>: ..."
// (with the byte offset where known) for malformed text, out-of-range numbers and too deep nesting.
// An empty origin leaves out the "ORIGIN: " (for a caller that names the place itself).
nlohmann::json parse_json(const std::string& text, const std::string& origin, const std::string& hint = "");

// A value's bounds, checked where it is read and recorded in the field catalogue (the generated
// scenario fields page shows them): throws JsonError(path, "must be " + bounds) if !within.
void check_bounds(bool within, const std::string& path, const std::string& bounds);

uint64_t as_u64(const nlohmann::json& j, const std::string& path);
double as_number(const nlohmann::json& j, const std::string& path);

}  // namespace wtsim::sim
