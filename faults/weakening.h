#pragma once
// Fault-model weakenings, the switch: each one breaks one promise the simulated disk makes about
// what survives a crash or a disk fault. They are compiled in only for the fault model's
// self-check (tests/fault_model_selfcheck, built with WTSIM_FAULT_WEAKENINGS), which switches each
// on in turn and expects the promise that guards it (tests/fault_promises.h) to report it broken.
// A weakening no promise catches is a hole in the fault model's tests. In every other build
// `active()` is constexpr false, so no weakened code reaches the tool.
//
// What each mode and fault promises, and which check guards it: docs/design/disk-and-crashes.md.
#include <cstddef>
#include <optional>
#include <string>

namespace wtsim::faults::weakening {

enum class Weakening {
  kCrashKeepsUnsynced,        // a crash keeps every unsynced write (as if each file was synced)
  kTornKeepsAnySubset,        // torn_prefix keeps a random subset of the writes, not a prefix
  kTornNeverTears,            // torn_prefix keeps whole writes only
  kTornKeepsNothing,          // torn_prefix keeps no unsynced write (it is drop_unsynced)
  kSectorDamageWholeWrites,   // sector_damage keeps or drops each write whole
  kSectorDamageHalfSectors,   // sector_damage draws per 256 bytes, so a sector can be half new
  kSyncPersistsNothing,       // a successful sync leaves the writes unsynced
  kDirectoryAlwaysDurable,    // a create survives a crash without a directory sync
  kFailedSyncKeepsDirty,      // after a failed fsync the dirty data stays, a later sync persists it
  kFenceLeaks,                // a fenced file system (the crashed connection's) still writes the disk
  kFullDiskIgnored,           // a full disk accepts writes that grow it
  kFullDiskRefusesOverwrites, // a full disk refuses overwrites inside a file too
  kBitFlipVolatile,           // a flipped bit is seen by reads but is not in the durable image
  kLyingSyncTellsTruth,       // a lying sync makes the writes durable
  kIoErrorDropped,            // a planned EIO never reaches the operation
  kStickyErrorHeals,          // a sticky EIO stops after its first operation
  kMisdirectLandsInPlace,     // a misdirected write lands where it was aimed
  kCrashOneOpLate,            // a crash at disk op N lets op N reach the disk first
  kLatencyIgnored,            // a latency window leaves disk costs as they are
};

inline constexpr size_t kWeakeningCount = 19;

const char* name_of(Weakening w);
std::optional<Weakening> find(const std::string& name);

// The one weakening switched on for this process (none by default).
void enable(Weakening w);
void disable();
std::optional<Weakening> enabled();

#ifdef WTSIM_FAULT_WEAKENINGS
inline bool active(Weakening w) { return enabled() == w; }
#else
constexpr bool active(Weakening) { return false; }
#endif

}  // namespace wtsim::faults::weakening
