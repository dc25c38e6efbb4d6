#pragma once
// What a crash does to writes that were not yet synced.
#include <optional>
#include <string>
#include <string_view>

namespace wtsim::faults {

enum class CrashMode {
  kDropUnsynced,  // every unsynced write is lost
  kTornPrefix,    // a random prefix of each file's unsynced writes survives, the last one torn
  kSectorDamage,  // a random subset of the unsynced writes' 512-byte sectors survives
};

constexpr size_t kSectorBytes = 512;

const char* to_string(CrashMode mode);
std::optional<CrashMode> crash_mode_from_string(std::string_view name);

}  // namespace wtsim::faults
