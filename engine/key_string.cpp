#include "engine/key_string.h"

#include <cassert>
#include <cstring>

namespace wtsim::engine {
namespace {

enum : uint8_t { kNull = 10, kNumber = 20, kString = 30, kObject = 40, kArray = 50, kBool = 80, kDate = 90 };

void append_u64(std::string& out, uint64_t x) {
  for (int shift = 56; shift >= 0; shift -= 8) out.push_back(static_cast<char>((x >> shift) & 0xff));
}

// Doubles in an order-preserving form: flip the sign bit of positives, all bits of negatives.
uint64_t ordered_bits(double d) {
  if (d == 0) d = 0;  // -0 == +0
  uint64_t bits;
  std::memcpy(&bits, &d, sizeof bits);
  return (bits & (1ULL << 63)) ? ~bits : bits | (1ULL << 63);
}

void append_string(std::string& out, const std::string& s) {
  // 0x00 inside the string becomes 0x00 0xFF; the terminator 0x00 0x00 sorts before both.
  for (char c : s) {
    out.push_back(c);
    if (c == '\0') out.push_back(static_cast<char>(0xff));
  }
  out.push_back('\0');
  out.push_back('\0');
}

}  // namespace

void append_key_value(std::string& out, const Document& v, bool descending) {
  const size_t start = out.size();
  if (v.is_null()) {
    out.push_back(static_cast<char>(kNull));
  } else if (v.is_number()) {
    out.push_back(static_cast<char>(kNumber));
    append_u64(out, ordered_bits(v.get<double>()));
  } else if (v.is_string()) {
    out.push_back(static_cast<char>(kString));
    append_string(out, v.get_ref<const std::string&>());
  } else if (is_date(v)) {
    out.push_back(static_cast<char>(kDate));
    append_u64(out, static_cast<uint64_t>(date_ms(v)) ^ (1ULL << 63));
  } else if (v.is_boolean()) {
    out.push_back(static_cast<char>(kBool));
    out.push_back(v.get<bool>() ? 1 : 0);
  } else {
    out.push_back(static_cast<char>(v.is_array() ? kArray : kObject));
    append_string(out, v.dump());
  }
  if (descending) {
    for (size_t i = start; i < out.size(); ++i) out[i] = static_cast<char>(~out[i]);
  }
}

std::string key_of(const Document& v) {
  std::string out;
  append_key_value(out, v);
  return out;
}

std::string record_id_key(uint64_t id) {
  std::string s;
  append_u64(s, id);
  return s;
}

uint64_t record_id_of(std::string_view rkey) {
  assert(rkey.size() == 8);
  uint64_t v = 0;
  for (const char c : rkey) v = (v << 8) | static_cast<uint8_t>(c);
  return v;
}

}  // namespace wtsim::engine
