#pragma once
// The readers under test take a file name (as the CLI does), so each fuzz input is written to one
// per-process scratch file first. The file is removed when the process exits.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

namespace wtsim::fuzz {

inline const std::string& scratch_path() {
  static const std::string path = [] {
    const char* dir = std::getenv("TMPDIR");
    std::string p = std::string(dir != nullptr && *dir != '\0' ? dir : "/tmp") + "/wtsim-fuzz-" +
                    std::to_string(getpid()) + ".json";
    std::atexit([] { std::remove(scratch_path().c_str()); });
    return p;
  }();
  return path;
}

// Writes `size` bytes to the scratch file and returns its name; aborts if the disk refuses
// (that is a broken fuzz setup, not a finding).
inline const std::string& write_input(const char* data, size_t size) {
  const std::string& path = scratch_path();
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr || std::fwrite(data, 1, size, f) != size || std::fclose(f) != 0) {
    std::perror(path.c_str());
    std::abort();
  }
  return path;
}

}  // namespace wtsim::fuzz
