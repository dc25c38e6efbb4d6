#include "engine/bson.h"

#include <algorithm>
#include <cassert>
#include <cstring>
#include <limits>

namespace wtsim::engine {
namespace {

constexpr size_t kLengthBytes = 4;

uint32_t le32(const uint8_t* p) {
  uint32_t v = 0;
  std::memcpy(&v, p, sizeof v);  // BSON is little-endian, as is every machine this runs on
  return v;
}

// Bytes of an element's value starting at `p` (with `left` bytes to the end), or nullopt if its
// type is unknown or it runs past the end.
std::optional<size_t> value_bytes(uint8_t type, const uint8_t* p, size_t left) {
  size_t n = 0;
  switch (type) {
    case 0x0A: n = 0; break;                                // null
    case 0x08: n = 1; break;                                // bool
    case 0x10: n = 4; break;                                // int32
    case 0x01: case 0x09: case 0x11: case 0x12: n = 8; break;  // double, date, uint64, int64
    case 0x02: n = left >= 4 ? size_t{4} + le32(p) : left + 1; break;  // string
    case 0x03: case 0x04: n = left >= 4 && le32(p) >= 5 ? le32(p) : left + 1; break;  // document, array
    case 0x05: n = left >= 4 ? size_t{5} + le32(p) : left + 1; break;  // binary
    default: return std::nullopt;
  }
  if (n > left) return std::nullopt;
  return n;
}

}  // namespace

BsonBuilder::BsonBuilder() { bytes_.resize(kLengthBytes); }

void BsonBuilder::add_le(uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) bytes_.push_back(static_cast<uint8_t>(value >> (8 * i)));
}

void BsonBuilder::add_name(uint8_t type, std::string_view name) {
  assert(name.find('\0') == std::string_view::npos);
  bytes_.push_back(type);
  bytes_.insert(bytes_.end(), name.begin(), name.end());
  bytes_.push_back(0);
}

void BsonBuilder::add_string(std::string_view name, std::string_view value) {
  add_name(0x02, name);
  add_le(value.size() + 1, 4);
  bytes_.insert(bytes_.end(), value.begin(), value.end());
  bytes_.push_back(0);
}

void BsonBuilder::add_int(std::string_view name, int64_t value) {
  const bool fits32 = value >= std::numeric_limits<int32_t>::min() && value <= std::numeric_limits<int32_t>::max();
  add_name(fits32 ? 0x10 : 0x12, name);
  add_le(static_cast<uint64_t>(value), fits32 ? 4 : 8);
}

void BsonBuilder::add_document(std::string_view name, const uint8_t* bson, size_t size) {
  assert(size >= 5 && le32(bson) == size);
  add_name(0x03, name);
  bytes_.insert(bytes_.end(), bson, bson + size);
}

std::vector<uint8_t> BsonBuilder::finish() && {
  bytes_.push_back(0);
  const auto total = static_cast<uint32_t>(bytes_.size());
  std::memcpy(bytes_.data(), &total, sizeof total);
  return std::move(bytes_);
}

std::optional<Document> bson_project(const uint8_t* data, size_t size, const std::vector<std::string>& names) {
  if (size < 5 || le32(data) != size || data[size - 1] != 0) return std::nullopt;
  std::vector<uint8_t> picked(kLengthBytes);  // the chosen elements, as a document of their own
  size_t pos = kLengthBytes;
  while (pos < size - 1) {
    const size_t element = pos;
    const uint8_t type = data[pos++];
    const void* nul = std::memchr(data + pos, 0, size - 1 - pos);
    if (nul == nullptr) return std::nullopt;
    const std::string_view field(reinterpret_cast<const char*>(data + pos), static_cast<const uint8_t*>(nul) - (data + pos));
    pos += field.size() + 1;
    const std::optional<size_t> value = value_bytes(type, data + pos, size - 1 - pos);
    if (!value) return std::nullopt;
    pos += *value;
    if (std::find(names.begin(), names.end(), field) != names.end()) {
      picked.insert(picked.end(), data + element, data + pos);
    }
  }
  picked.push_back(0);
  const auto total = static_cast<uint32_t>(picked.size());
  std::memcpy(picked.data(), &total, sizeof total);
  try {
    return from_bson(picked.data(), picked.size());
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;  // a damaged value inside a well-framed element
  }
}

}  // namespace wtsim::engine
