#include "properties/ttl_index_scan.h"


namespace wtsim::properties {
namespace {

constexpr uint8_t kDateType = 90;
constexpr size_t kDateEncodingBytes = 9;  // the type byte, then 8 bytes of milliseconds

uint8_t stored(uint8_t byte, bool descending) { return descending ? static_cast<uint8_t>(~byte) : byte; }

// The Date of an entry's key, if the key opens with one.
bool date_of(const WT_ITEM& key, bool descending, int64_t* ms) {
  if (key.size < kDateEncodingBytes) return false;
  const auto* p = static_cast<const uint8_t*>(key.data);
  if (stored(p[0], descending) != kDateType) return false;
  uint64_t bits = 0;
  for (size_t i = 1; i < kDateEncodingBytes; ++i) bits = (bits << 8) | stored(p[i], descending);
  *ms = static_cast<int64_t>(bits ^ (uint64_t{1} << 63));
  return true;
}

}  // namespace

int count_dates_below(WT_SESSION* session, const std::string& uri, bool descending, int64_t bound_ms, uint64_t* count) {
  *count = 0;
  WT_CURSOR* c = nullptr;
  int ret = session->open_cursor(session, uri.c_str(), nullptr, nullptr, &c);
  if (ret != 0) return ret;
  // The Dates are one run of keys: start at its first byte and walk it. Ascending, the oldest come
  // first and the walk stops at the bound; descending, the newest come first.
  const uint8_t first = stored(kDateType, descending);
  WT_ITEM start{};
  start.data = &first;
  start.size = 1;
  c->set_key(c, &start);
  int exact = 0;
  ret = c->search_near(c, &exact);
  if (ret == 0 && exact < 0) ret = c->next(c);
  for (; ret == 0; ret = c->next(c)) {
    WT_ITEM key{};
    if ((ret = c->get_key(c, &key)) != 0) break;
    int64_t ms = 0;
    if (!date_of(key, descending, &ms)) {
      if (key.size > 0 && static_cast<const uint8_t*>(key.data)[0] > first) break;  // past the Dates
      continue;
    }
    if (ms < bound_ms) {
      ++*count;
    } else if (!descending) {
      break;  // every later Date is newer
    }
  }
  c->close(c);
  return ret == WT_NOTFOUND ? 0 : ret;
}

}  // namespace wtsim::properties
