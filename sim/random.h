#pragma once
// Seeded random streams. Every consumer draws from a stream named after its purpose, derived from
// the run seed, so adding draws to one stream never shifts another.
#include <cassert>
#include <cstdint>
#include <string_view>

namespace wtsim::sim {

// FNV-1a, 64-bit: a stable hash for names (std::hash is not stable across builds). Inline: the
// trace hash runs it over every event's text.
inline uint64_t fnv1a64(std::string_view bytes, uint64_t basis = 0xcbf29ce484222325ULL) {
  uint64_t h = basis;
  for (const unsigned char c : bytes) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return h;
}

// xoshiro256** seeded through splitmix64.
class Rng {
 public:
  explicit Rng(uint64_t seed);

  uint64_t next();
  // Uniform in [0, n), n > 0, without modulo bias.
  uint64_t below(uint64_t n);
  // Uniform in [lo, hi], inclusive.
  int64_t between(int64_t lo, int64_t hi);
  // Uniform in [0, 1).
  double unit();
  bool chance(double p) { return unit() < p; }

 private:
  uint64_t s_[4];
};

// The stream `name` of run `seed`.
Rng stream(uint64_t seed, std::string_view name);

}  // namespace wtsim::sim
