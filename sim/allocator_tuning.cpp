#include "sim/allocator_tuning.h"

#include <unistd.h>

#include <cstdlib>
#include <string>

namespace wtsim::sim {

// glibc's upper limit; the TTL account at 1/10 scale: 42 s with the default of 7, 28 s with it.
constexpr const char* kTunable = "glibc.malloc.tcache_count=65535";

void tune_allocator_or_reexec(char** argv) {
  const char* off = std::getenv("WTSIM_MALLOC_TUNING");
  if (off != nullptr && std::string(off) == "off") return;
  const char* current = std::getenv("GLIBC_TUNABLES");
  std::string tunables = current != nullptr ? current : "";
  if (tunables.find("glibc.malloc.tcache_count") != std::string::npos) return;  // set: by us or the user
  tunables = tunables.empty() ? kTunable : tunables + ":" + kTunable;
  if (setenv("GLIBC_TUNABLES", tunables.c_str(), 1) != 0) return;
  execv("/proc/self/exe", argv);  // returns only on failure: run untuned
  unsetenv("GLIBC_TUNABLES");
  if (current != nullptr) setenv("GLIBC_TUNABLES", current, 1);
}

}  // namespace wtsim::sim
