#include "faults/crash_mode.h"

namespace wtsim::faults {

const char* to_string(CrashMode mode) {
  switch (mode) {
    case CrashMode::kDropUnsynced: return "drop_unsynced";
    case CrashMode::kTornPrefix: return "torn_prefix";
    case CrashMode::kSectorDamage: return "sector_damage";
  }
  return "?";
}

std::optional<CrashMode> crash_mode_from_string(std::string_view name) {
  for (CrashMode m : {CrashMode::kDropUnsynced, CrashMode::kTornPrefix, CrashMode::kSectorDamage}) {
    if (name == to_string(m)) return m;
  }
  return std::nullopt;
}

}  // namespace wtsim::faults
