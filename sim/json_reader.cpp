#include "sim/json_reader.h"

#include <algorithm>
#include <cassert>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace wtsim::sim {

std::string printable(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u != 0x7f) {
      out += c;
      continue;
    }
    char buf[8];
    std::snprintf(buf, sizeof buf, "\\u%04x", u);
    out += buf;
  }
  return out;
}

namespace {

// The byte offset where nesting first exceeds `max_depth` (brackets inside strings ignored),
// or npos.
size_t too_deep_at(const std::string& text, size_t max_depth) {
  size_t depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > max_depth) return i;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return std::string::npos;
}

}  // namespace

nlohmann::json parse_json(const std::string& text, const std::string& origin, const std::string& hint) {
  const std::string prefix = (origin.empty() ? "" : origin + ": ") + "not valid JSON" + hint + ": ";
  const size_t deep = too_deep_at(text, kMaxJsonDepth);
  if (deep != std::string::npos) {
    throw std::invalid_argument(prefix + "byte " + std::to_string(deep + 1) + ": arrays and objects nested deeper than " +
                                std::to_string(kMaxJsonDepth) + " levels");
  }
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw std::invalid_argument(prefix + "byte " + std::to_string(e.byte) + ": " + plain_json_error(e));
  } catch (const nlohmann::json::exception& e) {  // a number out of range
    throw std::invalid_argument(prefix + plain_json_error(e));
  }
}

std::string plain_json_error(const nlohmann::json::exception& e) {
  std::string text = e.what();
  if (text.rfind("[json.exception.", 0) == 0) {
    const size_t tag_end = text.find("] ");
    if (tag_end != std::string::npos) text.erase(0, tag_end + 2);
  }
  if (text.rfind("parse error at ", 0) == 0) text.erase(0, std::strlen("parse error at "));
  return printable(text);
}

std::string read_input_file(const std::string& path, const std::string& what) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw std::invalid_argument(path + ": cannot open " + what + ": it is a directory");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::invalid_argument(path + ": cannot open " + what + ": " + std::strerror(errno));
  std::stringstream buf;
  buf << in.rdbuf();
  if (in.bad()) throw std::invalid_argument(path + ": cannot read " + what + ": " + std::strerror(errno));
  return buf.str();
}

std::string describe(const nlohmann::json& j) {
  // A string set from the command line may hold invalid UTF-8, which dump() would throw on.
  std::string s = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  if (s.size() > 40) s = s.substr(0, 37) + "...";
  return std::string(j.type_name()) + " " + s;
}

namespace {

FieldCatalogue* g_recording = nullptr;  // the catalogue recording, if any

std::string pattern_of(const std::string& path) {  // "/fault_plan/3/at_ms" -> "/fault_plan/N/at_ms"
  std::string out;
  size_t at = 0;
  while (at < path.size()) {
    const size_t end = std::min(path.find('/', at + 1), path.size());
    const std::string part = path.substr(at, end - at);
    const bool index = part.size() > 1 && part.find_first_not_of("0123456789", 1) == std::string::npos;
    out += index ? "/N" : part;
    at = end;
  }
  return out;
}

}  // namespace

FieldCatalogue::FieldCatalogue() {
  assert(g_recording == nullptr && "one catalogue records at a time");
  g_recording = this;
}

FieldCatalogue::~FieldCatalogue() { g_recording = nullptr; }

void FieldCatalogue::note(const std::string& path, const char* type, const std::string& fallback, Use use) {
  if (g_recording == nullptr) return;
  Field& f = g_recording->fields_[pattern_of(path)];
  if (f.type.empty() || f.type == "value") f.type = type;  // a typed accessor tells more than required()
  if (f.fallback.empty()) f.fallback = fallback;
  f.probed = f.probed || use == Use::kProbed;
  f.required = !f.probed && (f.required || use == Use::kRequired);
}

void FieldCatalogue::note_bounds(const std::string& path, const std::string& bounds) {
  if (g_recording == nullptr) return;
  Field& f = g_recording->fields_[pattern_of(path)];
  if (f.type.empty()) f.type = "value";
  f.bounds = bounds;
}

void check_bounds(bool within, const std::string& path, const std::string& bounds) {
  assert(!bounds.empty());
  FieldCatalogue::note_bounds(path, bounds);
  if (!within) throw JsonError(path, "must be " + bounds);
}

ObjectReader::ObjectReader(const nlohmann::json& j, std::string path)
    : j_(j), path_(std::move(path)) {
  if (!j_.is_object()) throw JsonError(path_, "expected an object, found " + describe(j_));
}

const nlohmann::json& ObjectReader::required(const std::string& key) {
  known_.insert(key);
  if (g_recording != nullptr) FieldCatalogue::note(path_of(key), "value", "", FieldCatalogue::Use::kRequired);
  if (!j_.contains(key)) throw JsonError(path_of(key), "required field is missing");
  return j_.at(key);
}

const nlohmann::json* ObjectReader::optional(const std::string& key) {
  known_.insert(key);
  if (g_recording != nullptr) FieldCatalogue::note(path_of(key), "value", "");
  return j_.contains(key) ? &j_.at(key) : nullptr;
}

uint64_t as_u64(const nlohmann::json& j, const std::string& path) {
  if (!j.is_number_unsigned() && !(j.is_number_integer() && j.get<int64_t>() >= 0)) {
    throw JsonError(path, "expected a non-negative integer, found " + describe(j));
  }
  return j.get<uint64_t>();
}

double as_number(const nlohmann::json& j, const std::string& path) {
  if (!j.is_number()) throw JsonError(path, "expected a number, found " + describe(j));
  return j.get<double>();
}

namespace {

uint64_t as_setting(const nlohmann::json& j, const std::string& path) {
  const uint64_t x = as_u64(j, path);
  if (x > kMaxSetting) throw JsonError(path, "must be at most " + std::to_string(kMaxSetting) + ", found " + std::to_string(x));
  return x;
}

}  // namespace

uint64_t ObjectReader::u64(const std::string& key) {
  if (g_recording != nullptr) FieldCatalogue::note(path_of(key), "integer", "");
  return as_setting(required(key), path_of(key));
}

uint64_t ObjectReader::u64_or(const std::string& key, uint64_t fallback) {
  if (g_recording != nullptr) FieldCatalogue::note(path_of(key), "integer", std::to_string(fallback));
  const nlohmann::json* v = optional(key);
  return v == nullptr ? fallback : as_setting(*v, path_of(key));
}

double ObjectReader::number_or(const std::string& key, double fallback) {
  if (g_recording != nullptr) FieldCatalogue::note(path_of(key), "number", nlohmann::json(fallback).dump());
  const nlohmann::json* v = optional(key);
  return v == nullptr ? fallback : as_number(*v, path_of(key));
}

double ObjectReader::fraction_or(const std::string& key, double fallback) {
  if (g_recording != nullptr) FieldCatalogue::note(path_of(key), "fraction", nlohmann::json(fallback).dump());
  const double x = number_or(key, fallback);
  if (x < 0.0 || x > 1.0) {
    throw JsonError(path_of(key), "expected a fraction in [0, 1], found " + std::to_string(x));
  }
  return x;
}

bool ObjectReader::bool_or(const std::string& key, bool fallback) {
  if (g_recording != nullptr) FieldCatalogue::note(path_of(key), "boolean", fallback ? "true" : "false");
  const nlohmann::json* v = optional(key);
  if (v == nullptr) return fallback;
  if (!v->is_boolean()) throw JsonError(path_of(key), "expected true or false, found " + describe(*v));
  return v->get<bool>();
}

std::string ObjectReader::string(const std::string& key) {
  if (g_recording != nullptr) FieldCatalogue::note(path_of(key), "string", "");
  const nlohmann::json& v = required(key);
  if (!v.is_string()) throw JsonError(path_of(key), "expected a string, found " + describe(v));
  return v.get<std::string>();
}

std::string ObjectReader::string_or(const std::string& key, const std::string& fallback) {
  if (g_recording != nullptr) FieldCatalogue::note(path_of(key), "string", nlohmann::json(fallback).dump());
  return has(key) ? string(key) : (known_.insert(key), fallback);
}

void ObjectReader::reject_unknown() const {
  for (const auto& [key, value] : j_.items()) {
    if (known_.count(key) == 0) throw JsonError(path_of(key), "unknown field");
  }
}

}  // namespace wtsim::sim
