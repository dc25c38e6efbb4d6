#include "engine/document.h"

#include <algorithm>
#include <cassert>
#include <cmath>

namespace wtsim::engine {
namespace {

int type_rank(const Document& v) {
  if (v.is_null()) return 10;
  if (v.is_number()) return 20;
  if (v.is_string()) return 30;
  if (is_date(v)) return 90;
  if (v.is_object()) return 40;
  if (v.is_array()) return 50;
  if (v.is_boolean()) return 80;
  return 127;
}

template <class T>
int cmp(const T& a, const T& b) {
  return a < b ? -1 : (b < a ? 1 : 0);
}

}  // namespace

std::vector<uint8_t> to_bson(const Document& doc) { return Document::to_bson(doc); }

Document from_bson(const uint8_t* data, size_t size) {
  return Document::from_bson(data, data + size);
}

const Document* get_path(const Document& doc, const std::string& path) {
  const Document* cur = &doc;
  size_t start = 0;
  while (true) {
    if (!cur->is_object()) return nullptr;
    const size_t dot = path.find('.', start);
    const std::string part = path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    auto it = cur->find(part);
    if (it == cur->end()) return nullptr;
    cur = &*it;
    if (dot == std::string::npos) return cur;
    start = dot + 1;
  }
}

bool is_date(const Document& v) {
  return v.is_object() && v.size() == 1 && v.contains("$date") && v["$date"].is_number_integer();
}

Document make_date(int64_t ms) { return Document{{"$date", ms}}; }

int64_t date_ms(const Document& v) {
  assert(is_date(v));
  return v["$date"].get<int64_t>();
}

int64_t number_long(const Document& v) {
  assert(v.is_number());
  if (v.is_number_integer()) return v.get<int64_t>();
  const double d = v.get<double>();
  constexpr double kLimit = 9.2e18;  // inside int64's range
  return std::isnan(d) ? 0 : static_cast<int64_t>(std::clamp(d, -kLimit, kLimit));
}

int compare_values(const Document& a, const Document& b) {
  const int ra = type_rank(a), rb = type_rank(b);
  if (ra != rb) return cmp(ra, rb);
  switch (ra) {
    case 10: return 0;
    case 20: return cmp(a.get<double>(), b.get<double>());
    case 30: return cmp(a.get_ref<const std::string&>(), b.get_ref<const std::string&>());
    case 80: return cmp(a.get<bool>(), b.get<bool>());
    case 90: return cmp(date_ms(a), date_ms(b));
    default: return cmp(a.dump(), b.dump());  // objects and arrays: a stable total order
  }
}

}  // namespace wtsim::engine
