#include "faults/weakening.h"

#include <array>
#include <cassert>
#include <utility>

namespace wtsim::faults::weakening {
namespace {

constexpr std::array<std::pair<Weakening, const char*>, kWeakeningCount> kNames = {{
    {Weakening::kCrashKeepsUnsynced, "crash_keeps_unsynced"},
    {Weakening::kTornKeepsAnySubset, "torn_keeps_any_subset"},
    {Weakening::kTornNeverTears, "torn_never_tears"},
    {Weakening::kTornKeepsNothing, "torn_keeps_nothing"},
    {Weakening::kSectorDamageWholeWrites, "sector_damage_whole_writes"},
    {Weakening::kSectorDamageHalfSectors, "sector_damage_half_sectors"},
    {Weakening::kSyncPersistsNothing, "sync_persists_nothing"},
    {Weakening::kDirectoryAlwaysDurable, "directory_always_durable"},
    {Weakening::kFailedSyncKeepsDirty, "failed_sync_keeps_dirty"},
    {Weakening::kFenceLeaks, "fence_leaks"},
    {Weakening::kFullDiskIgnored, "full_disk_ignored"},
    {Weakening::kFullDiskRefusesOverwrites, "full_disk_refuses_overwrites"},
    {Weakening::kBitFlipVolatile, "bit_flip_volatile"},
    {Weakening::kLyingSyncTellsTruth, "lying_sync_tells_truth"},
    {Weakening::kIoErrorDropped, "io_error_dropped"},
    {Weakening::kStickyErrorHeals, "sticky_error_heals"},
    {Weakening::kMisdirectLandsInPlace, "misdirect_lands_in_place"},
    {Weakening::kCrashOneOpLate, "crash_one_op_late"},
    {Weakening::kLatencyIgnored, "latency_ignored"},
}};

std::optional<Weakening> g_enabled;

}  // namespace

const char* name_of(Weakening w) {
  const size_t i = static_cast<size_t>(w);
  assert(i < kNames.size() && kNames[i].first == w);  // the table is in the enum's order
  return kNames[i].second;
}

std::optional<Weakening> find(const std::string& name) {
  for (const auto& [w, n] : kNames) {
    if (name == n) return w;
  }
  return std::nullopt;
}

void enable(Weakening w) { g_enabled = w; }
void disable() { g_enabled.reset(); }
std::optional<Weakening> enabled() { return g_enabled; }

}  // namespace wtsim::faults::weakening
