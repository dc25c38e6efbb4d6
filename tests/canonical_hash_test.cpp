// traces/canonical_hash.h: the walk's hash is the FNV-1a of nlohmann's compact text, for every
// kind of value (the trace hash of every shipped run rests on it).
#include "traces/canonical_hash.h"

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <limits>
#include <string>

#include "sim/random.h"

namespace wtsim::traces {
namespace {

uint64_t hash_of_text(const nlohmann::json& j, uint64_t basis) {
  return sim::fnv1a64(j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace), basis);
}

// Strings from plain ASCII, from bytes that need escapes, and from any bytes at all (UTF-8 or not).
rc::Gen<std::string> text() {
  return rc::gen::oneOf(rc::gen::container<std::string>(rc::gen::inRange<char>(0x20, 0x7f)),
                        rc::gen::container<std::string>(rc::gen::element<char>('a', '"', '\\', '\n', '\t', '\x01', '/')),
                        rc::gen::arbitrary<std::string>());
}

rc::Gen<nlohmann::json> scalar() {
  return rc::gen::oneOf(rc::gen::map(rc::gen::arbitrary<int64_t>(), [](int64_t n) { return nlohmann::json(n); }),
                        rc::gen::map(rc::gen::arbitrary<uint64_t>(), [](uint64_t n) { return nlohmann::json(n); }),
                        rc::gen::map(rc::gen::arbitrary<double>(), [](double d) { return nlohmann::json(d); }),
                        rc::gen::map(rc::gen::arbitrary<bool>(), [](bool b) { return nlohmann::json(b); }),
                        rc::gen::just(nlohmann::json()), rc::gen::map(text(), [](std::string s) { return nlohmann::json(s); }));
}

nlohmann::json value(int depth) {
  const int kind = depth == 0 ? 0 : *rc::gen::inRange(0, 3);
  if (kind == 0) return *scalar();
  const int n = *rc::gen::inRange(0, 4);
  nlohmann::json j = kind == 1 ? nlohmann::json::array() : nlohmann::json::object();
  for (int i = 0; i < n; ++i) {
    if (kind == 1) j.push_back(value(depth - 1));
    else j[*text()] = value(depth - 1);
  }
  return j;
}

RC_GTEST_PROP(CanonicalHash, IsTheHashOfTheCompactText, ()) {
  const nlohmann::json j = value(*rc::gen::inRange(0, 4));
  const uint64_t basis = *rc::gen::arbitrary<uint64_t>();
  RC_ASSERT(hash_canonical(j, basis) == hash_of_text(j, basis));
}

TEST(CanonicalHash, CoversEachKindOfValue) {
  const nlohmann::json cases[] = {
      nlohmann::json::object(), nlohmann::json::array(), nullptr, true, false, 0, -1,
      std::numeric_limits<int64_t>::min(), std::numeric_limits<uint64_t>::max(), 0.5, 1.0, -0.0, 1e300,
      "", "plain", "quote\" and back\\slash", "line\nbreak", "caf\xc3\xa9", "bad \xff byte",
      nlohmann::json::binary({1, 2, 3}),
      {{"b", {1, 2, {{"c", nullptr}}}}, {"a", "x"}, {"\t", 2.5}},
  };
  for (const nlohmann::json& j : cases) EXPECT_EQ(hash_canonical(j, sim::fnv1a64("")), hash_of_text(j, sim::fnv1a64(""))) << j.dump();
  EXPECT_NE(hash_canonical({{"a", 1}}, 0), hash_canonical({{"a", 2}}, 0));  // it hashes the values
}

RC_GTEST_PROP(CanonicalHash, StringsAndIntegersAloneHashAsTheirJson, ()) {
  const std::string s = *text();
  const auto i = *rc::gen::arbitrary<int64_t>();
  const auto u = *rc::gen::arbitrary<uint64_t>();
  RC_ASSERT(hash_canonical_string(s, 7) == hash_of_text(nlohmann::json(s), 7));
  RC_ASSERT(hash_canonical_integer(i, 7) == hash_of_text(nlohmann::json(i), 7));
  RC_ASSERT(hash_canonical_integer(u, 7) == hash_of_text(nlohmann::json(u), 7));
}

}  // namespace
}  // namespace wtsim::traces
