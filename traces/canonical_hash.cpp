#include "traces/canonical_hash.h"

#include "sim/random.h"

#include <algorithm>
#include <charconv>
#include <memory>

namespace wtsim::traces {
namespace {

// Feeds the serialiser's output straight into FNV-1a.
class FnvOutput : public nlohmann::detail::output_adapter_protocol<char> {
 public:
  explicit FnvOutput(uint64_t basis) : h_(basis) {}
  void write_character(char c) override { h_ = sim::fnv1a64(std::string_view(&c, 1), h_); }
  void write_characters(const char* s, std::size_t length) override { h_ = sim::fnv1a64(std::string_view(s, length), h_); }
  uint64_t hash() const { return h_; }

 private:
  uint64_t h_;
};

uint64_t hash_serialised(const nlohmann::json& j, uint64_t basis) {
  auto out = std::make_shared<FnvOutput>(basis);
  nlohmann::detail::serializer<nlohmann::json> s(out, ' ', nlohmann::json::error_handler_t::replace);
  s.dump(j, /*pretty_print=*/false, /*ensure_ascii=*/false, /*indent_step=*/0);
  return out->hash();
}

// Printable ASCII other than the quote and the backslash: the serialiser writes it unchanged.
bool plain(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return c >= 0x20 && c < 0x7f && c != '"' && c != '\\'; });
}

uint64_t hash_string(std::string_view s, uint64_t h) {
  if (!plain(s)) return hash_serialised(nlohmann::json(std::string(s)), h);
  h = sim::fnv1a64("\"", h);
  h = sim::fnv1a64(s, h);
  return sim::fnv1a64("\"", h);
}

template <typename Number>
uint64_t hash_number(Number n, uint64_t h) {
  char buf[24];
  return sim::fnv1a64(std::string_view(buf, std::to_chars(buf, buf + sizeof buf, n).ptr - buf), h);
}

uint64_t walk(const nlohmann::json& j, uint64_t h) {
  switch (j.type()) {
    case nlohmann::json::value_t::object: {
      h = sim::fnv1a64("{", h);
      bool first = true;
      for (const auto& [key, value] : j.get_ref<const nlohmann::json::object_t&>()) {
        if (!first) h = sim::fnv1a64(",", h);
        first = false;
        h = sim::fnv1a64(":", hash_string(key, h));
        h = walk(value, h);
      }
      return sim::fnv1a64("}", h);
    }
    case nlohmann::json::value_t::array: {
      h = sim::fnv1a64("[", h);
      for (size_t i = 0; i < j.size(); ++i) {
        if (i > 0) h = sim::fnv1a64(",", h);
        h = walk(j[i], h);
      }
      return sim::fnv1a64("]", h);
    }
    case nlohmann::json::value_t::string: return hash_string(j.get_ref<const std::string&>(), h);
    case nlohmann::json::value_t::number_integer: return hash_number(j.get<int64_t>(), h);
    case nlohmann::json::value_t::number_unsigned: return hash_number(j.get<uint64_t>(), h);
    case nlohmann::json::value_t::boolean: return sim::fnv1a64(j.get<bool>() ? "true" : "false", h);
    case nlohmann::json::value_t::null: return sim::fnv1a64("null", h);
    default: return hash_serialised(j, h);  // floats, binary, discarded
  }
}

}  // namespace

uint64_t hash_canonical(const nlohmann::json& j, uint64_t basis) { return walk(j, basis); }
uint64_t hash_canonical_string(std::string_view s, uint64_t basis) { return hash_string(s, basis); }
uint64_t hash_canonical_integer(int64_t n, uint64_t basis) { return hash_number(n, basis); }
uint64_t hash_canonical_integer(uint64_t n, uint64_t basis) { return hash_number(n, basis); }

void hex16_digits(uint64_t value, char* out) {
  static constexpr char kDigits[] = "0123456789abcdef";
  for (int i = 15; i >= 0; --i, value >>= 4) out[i] = kDigits[value & 0xf];
}

}  // namespace wtsim::traces
