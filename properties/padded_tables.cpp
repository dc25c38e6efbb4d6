#include "properties/padded_tables.h"

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>

namespace wtsim::properties {
namespace {

constexpr int64_t kPaddingFactorKey = -1;
constexpr size_t kRecordHeaderInValueBytes = 8;  // length, offset
constexpr size_t kBsonLengthBytes = 4;           // a BSON document opens with its int32 length

uint64_t big_endian(const void* data, size_t bytes) {
  const auto* p = static_cast<const uint8_t*>(data);
  uint64_t v = 0;
  for (size_t i = 0; i < bytes; ++i) v = (v << 8) | p[i];
  return v;
}

// The BSON's own length prefix (little-endian int32), or what the value holds when that is longer.
uint32_t stored_document_bytes(const WT_ITEM& value) {
  const size_t held = value.size - kRecordHeaderInValueBytes;
  if (held < kBsonLengthBytes) return static_cast<uint32_t>(held);
  const auto* p = static_cast<const uint8_t*>(value.data) + kRecordHeaderInValueBytes;
  const uint32_t claimed = uint32_t{p[0]} | (uint32_t{p[1]} << 8) | (uint32_t{p[2]} << 16) | (uint32_t{p[3]} << 24);
  return std::max<uint32_t>(claimed, static_cast<uint32_t>(held));
}

engine::RecordLoc loc_of_key(const WT_ITEM& key) {
  const uint64_t packed = big_endian(key.data, 8);
  return {static_cast<uint32_t>(packed >> 32), static_cast<uint32_t>(packed)};
}

int read_extents(WT_CURSOR* c, engine::PaddedLayout* out) {
  int ret = 0;
  while ((ret = c->next(c)) == 0) {
    int64_t key = 0;
    WT_ITEM value{};
    if ((ret = c->get_key(c, &key)) != 0 || (ret = c->get_value(c, &value)) != 0) return ret;
    if (value.size != 8) return EINVAL;
    if (key == kPaddingFactorKey) {
      std::memcpy(&out->padding_factor, value.data, 8);
      continue;
    }
    if (key != static_cast<int64_t>(out->extents.size())) return EINVAL;  // numbered from 0 without gaps
    uint64_t size = 0;
    std::memcpy(&size, value.data, 8);
    out->extents.push_back(size);
  }
  return ret;
}

int read_records(WT_CURSOR* c, engine::PaddedLayout* out) {
  int ret = 0;
  while ((ret = c->next(c)) == 0) {
    WT_ITEM key{}, value{};
    if ((ret = c->get_key(c, &key)) != 0 || (ret = c->get_value(c, &value)) != 0) return ret;
    if (key.size != 8 || value.size < kRecordHeaderInValueBytes) return EINVAL;
    const uint32_t extent = loc_of_key(key).extent;  // the key's low half is the place in the list
    const auto* v = static_cast<const uint8_t*>(value.data);
    out->records.push_back({{extent, static_cast<uint32_t>(big_endian(v + 4, 4))}, static_cast<uint32_t>(big_endian(v, 4))});
    out->record_stored_bytes.push_back(stored_document_bytes(value));
  }
  return ret;
}

int read_free(WT_CURSOR* c, engine::PaddedLayout* out) {
  int ret = 0;
  while ((ret = c->next(c)) == 0) {
    WT_ITEM key{}, value{};
    if ((ret = c->get_key(c, &key)) != 0 || (ret = c->get_value(c, &value)) != 0) return ret;
    if (key.size != 8 || value.size != 4) return EINVAL;
    out->free.push_back({loc_of_key(key), static_cast<uint32_t>(big_endian(value.data, 4))});
  }
  return ret;
}

// Opens `uri`, runs `read` over it, closes it: 0 once every row was read.
template <class Read>
int read_table(WT_SESSION* session, const std::string& uri, Read read) {
  WT_CURSOR* c = nullptr;
  int ret = session->open_cursor(session, uri.c_str(), nullptr, nullptr, &c);
  if (ret != 0) return ret;
  ret = read(c);
  c->close(c);
  return ret == WT_NOTFOUND ? 0 : ret;
}

}  // namespace

int read_padded_tables(WT_SESSION* session, const std::string& table, engine::PaddedLayout* out) {
  out->extents.clear();
  out->records.clear();
  out->free.clear();
  out->record_stored_bytes.clear();
  out->padding_factor = 1.0;
  int ret = read_table(session, table + "-extents", [&](WT_CURSOR* c) { return read_extents(c, out); });
  if (ret == 0) ret = read_table(session, table, [&](WT_CURSOR* c) { return read_records(c, out); });
  if (ret == 0) ret = read_table(session, table + "-free", [&](WT_CURSOR* c) { return read_free(c, out); });
  return ret;
}

int read_padded_layout(WT_SESSION* session, const engine::DocumentEngine& engine, const std::string& ns, engine::PaddedLayout* out) {
  const engine::CollectionSpec* coll = engine.catalog().find(ns);
  if (coll == nullptr || !engine.padded_memory(ns, out).ok()) return ENOENT;
  return read_padded_tables(session, coll->table, out);
}

}  // namespace wtsim::properties
