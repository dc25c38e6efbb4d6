#include "traces/canonical_hash.h"

#include <algorithm>
#include <charconv>
#include <memory>

namespace wtsim::traces {
namespace {

// Feeds the serialiser's output straight into FNV-1a.
class FnvOutput : public nlohmann::detail::output_adapter_protocol<char> {
 public:
  explicit FnvOutput(uint64_t basis) : h_(basis) {}
  void write_character(char c) override { h_ = fnv1a64_continue(std::string_view(&c, 1), h_); }
  void write_characters(const char* s, std::size_t length) override { h_ = fnv1a64_continue(std::string_view(s, length), h_); }
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
  h = fnv1a64_continue("\"", h);
  h = fnv1a64_continue(s, h);
  return fnv1a64_continue("\"", h);
}

template <typename Number>
uint64_t hash_number(Number n, uint64_t h) {
  char buf[24];
  return fnv1a64_continue(std::string_view(buf, std::to_chars(buf, buf + sizeof buf, n).ptr - buf), h);
}

uint64_t walk(const nlohmann::json& j, uint64_t h) {
  switch (j.type()) {
    case nlohmann::json::value_t::object: {
      h = fnv1a64_continue("{", h);
      bool first = true;
      for (const auto& [key, value] : j.get_ref<const nlohmann::json::object_t&>()) {
        if (!first) h = fnv1a64_continue(",", h);
        first = false;
        h = fnv1a64_continue(":", hash_string(key, h));
        h = walk(value, h);
      }
      return fnv1a64_continue("}", h);
    }
    case nlohmann::json::value_t::array: {
      h = fnv1a64_continue("[", h);
      for (size_t i = 0; i < j.size(); ++i) {
        if (i > 0) h = fnv1a64_continue(",", h);
        h = walk(j[i], h);
      }
      return fnv1a64_continue("]", h);
    }
    case nlohmann::json::value_t::string: return hash_string(j.get_ref<const std::string&>(), h);
    case nlohmann::json::value_t::number_integer: return hash_number(j.get<int64_t>(), h);
    case nlohmann::json::value_t::number_unsigned: return hash_number(j.get<uint64_t>(), h);
    case nlohmann::json::value_t::boolean: return fnv1a64_continue(j.get<bool>() ? "true" : "false", h);
    case nlohmann::json::value_t::null: return fnv1a64_continue("null", h);
    default: return hash_serialised(j, h);  // floats, binary, discarded
  }
}

}  // namespace

uint64_t hash_canonical(const nlohmann::json& j, uint64_t basis) { return walk(j, basis); }
uint64_t hash_canonical_string(std::string_view s, uint64_t basis) { return hash_string(s, basis); }
uint64_t hash_canonical_integer(int64_t n, uint64_t basis) { return hash_number(n, basis); }
uint64_t hash_canonical_integer(uint64_t n, uint64_t basis) { return hash_number(n, basis); }

}  // namespace wtsim::traces
