#pragma once
// Helpers shared by the benchmarks: unique WiredTiger homes and the write of one document.
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "models/kv_model.h"

namespace wtsim::bench {

// WiredTiger refuses to open one home twice in a process: every connection gets a fresh alias.
inline std::string next_home(const std::string& prefix) {
  static uint64_t counter = 0;  // single-threaded benchmarks
  return prefix + std::to_string(++counter);
}

// Distinct keys "k%09d" with ~100-byte values.
inline std::string key_of(uint64_t i) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "k%09llu", static_cast<unsigned long long>(i));
  return buf;
}

inline std::vector<models::KvWrite> one_write(uint64_t i) {
  return {{key_of(i), std::string(100, 'v')}};
}

}  // namespace wtsim::bench
