#include "sim/allocator_tuning.h"

#include <unistd.h>

#include <cstdlib>
#include <string>

namespace wtsim::sim {
namespace {

// Set in the re-executed process (and inherited by the processes it starts): tune once.
constexpr const char* kDoneVariable = "WTSIM_ALLOCATOR_TUNED";
// glibc's upper limit for the per-thread cache (the default keeps 7 blocks per size).
constexpr const char* kGlibcTunable = "glibc.malloc.tcache_count=65535";

// Appends `value` to a ':'-separated environment variable.
bool append_env(const char* name, const std::string& value) {
  const char* current = std::getenv(name);
  const std::string joined = current != nullptr && *current != '\0' ? std::string(current) + ":" + value : value;
  return setenv(name, joined.c_str(), 1) == 0;
}

// The TTL account at 1/10 scale: 42 s with glibc's defaults, 22.5 s with the tunable, 16.7 s on
// jemalloc (docs/benchmarks.md, "The TTL account: scale and speed").
bool choose_allocator() {
#ifdef WTSIM_JEMALLOC_PATH
  if (access(WTSIM_JEMALLOC_PATH, R_OK) == 0) return append_env("LD_PRELOAD", WTSIM_JEMALLOC_PATH);
#endif
  return append_env("GLIBC_TUNABLES", kGlibcTunable);
}

}  // namespace

void tune_allocator_or_reexec(char** argv) {
  const char* off = std::getenv("WTSIM_MALLOC_TUNING");
  if (off != nullptr && std::string(off) == "off") return;
  if (std::getenv(kDoneVariable) != nullptr) return;
  if (setenv(kDoneVariable, "1", 1) != 0 || !choose_allocator()) return;
  execv("/proc/self/exe", argv);  // returns only on failure: the run goes on untuned
}

}  // namespace wtsim::sim
