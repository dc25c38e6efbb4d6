#include "tests/fault_promises.h"

#include <wiredtiger.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <string>
#include <vector>

#include "faults/crash_mode.h"
#include "faults/disk.h"
#include "faults/fault_injector.h"
#include "faults/sim_file_system.h"
#include "sim/virtual_clock.h"

namespace wtsim::tests {
namespace {

using faults::CrashMode;
using faults::Disk;
using faults::InodeId;

constexpr uint64_t kWriteBytes = 1024;  // two sectors
constexpr size_t kTornWrites = 6;
constexpr uint64_t kSeedsMax = 200;     // crashes per statistical promise

// Bytes that are never zero, so that a file's old (zero) bytes and new ones tell apart.
std::vector<uint8_t> pattern(size_t len, uint8_t salt) {
  std::vector<uint8_t> bytes(len);
  for (size_t i = 0; i < len; ++i) bytes[i] = static_cast<uint8_t>(((i * 7 + salt * 31) % 255) + 1);
  return bytes;
}

// A file whose name and `bytes` zeros are durable.
InodeId synced_zeros(Disk& disk, const std::string& name, uint64_t bytes) {
  const InodeId id = disk.open(name, /*create=*/true, /*durable_entry=*/true);
  const std::vector<uint8_t> zeros(bytes, 0);
  disk.write(id, 0, zeros.data(), zeros.size());
  disk.sync(id);
  return id;
}

// How many of `data`'s bytes an image holds at `offset`, and whether they come first (a prefix).
struct Kept {
  uint64_t bytes = 0;
  bool prefix = true;
  bool garbage = false;  // a byte that is neither the old zero nor the written one
};

Kept kept_of(const std::vector<uint8_t>& image, uint64_t offset, const std::vector<uint8_t>& data) {
  Kept k;
  bool seen_old = false;
  for (size_t i = 0; i < data.size(); ++i) {
    const uint8_t b = offset + i < image.size() ? image[offset + i] : 0;
    if (b == data[i]) {
      ++k.bytes;
      k.prefix = k.prefix && !seen_old;
    } else {
      k.garbage = k.garbage || b != 0;
      seen_old = true;
    }
  }
  return k;
}

// kTornWrites unsynced writes side by side over synced zeros, then a crash: what each kept.
std::vector<Kept> torn_crash(uint64_t seed) {
  Disk disk;
  const InodeId id = synced_zeros(disk, "f", kTornWrites * kWriteBytes);
  std::vector<std::vector<uint8_t>> writes;
  for (size_t i = 0; i < kTornWrites; ++i) {
    writes.push_back(pattern(kWriteBytes, static_cast<uint8_t>(i + 1)));
    disk.write(id, i * kWriteBytes, writes.back().data(), kWriteBytes);
  }
  disk.crash(CrashMode::kTornPrefix, seed);
  const std::vector<uint8_t> image = disk.durable_image("f");
  std::vector<Kept> kept;
  for (size_t i = 0; i < kTornWrites; ++i) kept.push_back(kept_of(image, i * kWriteBytes, writes[i]));
  return kept;
}

std::string seed_says(uint64_t seed, const std::string& what) { return "seed " + std::to_string(seed) + ": " + what; }

std::string drop_unsynced_keeps_only_synced() {
  Disk disk;
  const InodeId id = synced_zeros(disk, "f", 2 * kWriteBytes);
  const std::vector<uint8_t> a = pattern(kWriteBytes, 1), b = pattern(2 * kWriteBytes, 2);
  disk.write(id, 0, a.data(), a.size());
  disk.sync(id);
  disk.write(id, kWriteBytes / 2, b.data(), b.size());  // overlaps a and grows the file
  disk.crash(CrashMode::kDropUnsynced, 7);
  std::vector<uint8_t> expected = a;
  expected.resize(2 * kWriteBytes, 0);
  if (disk.visible_image("f") != expected) return "the file does not read as it was at its last sync";
  return "";
}

std::string torn_prefix_keeps_a_prefix() {
  for (uint64_t seed = 1; seed <= kSeedsMax; ++seed) {
    const std::vector<Kept> kept = torn_crash(seed);
    for (size_t i = 0; i + 1 < kept.size(); ++i) {
      if (kept[i].bytes == kWriteBytes) continue;
      for (size_t j = i + 1; j < kept.size(); ++j) {
        if (kept[j].bytes > 0) {
          return seed_says(seed, "write " + std::to_string(j) + " survived but write " + std::to_string(i) + " kept only " +
                                     std::to_string(kept[i].bytes) + " bytes");
        }
      }
    }
  }
  return "";
}

std::string torn_prefix_tears_at_sectors() {
  uint64_t torn_crashes = 0;
  for (uint64_t seed = 1; seed <= kSeedsMax; ++seed) {
    for (const Kept& k : torn_crash(seed)) {
      if (k.garbage) return seed_says(seed, "a write's place holds bytes never written there");
      if (k.bytes == 0 || k.bytes == kWriteBytes) continue;
      if (!k.prefix || k.bytes % faults::kSectorBytes != 0) {
        return seed_says(seed, "a torn write kept " + std::to_string(k.bytes) + " bytes that are not whole sectors from its start");
      }
      ++torn_crashes;
    }
  }
  if (torn_crashes == 0) return "no crash in " + std::to_string(kSeedsMax) + " tore a write";
  return "";
}

std::string torn_prefix_keeps_and_drops() {
  bool kept_some = false, dropped_some = false;
  for (uint64_t seed = 1; seed <= kSeedsMax; ++seed) {
    for (const Kept& k : torn_crash(seed)) {
      kept_some = kept_some || k.bytes == kWriteBytes;
      dropped_some = dropped_some || k.bytes == 0;
    }
  }
  if (!kept_some) return "no crash in " + std::to_string(kSeedsMax) + " kept a whole unsynced write";
  if (!dropped_some) return "no crash in " + std::to_string(kSeedsMax) + " lost an unsynced write";
  return "";
}

// One unsynced write over synced zeros, then a sector_damage crash: the file as it survived.
std::vector<uint8_t> sector_crash(uint64_t seed, uint64_t offset, const std::vector<uint8_t>& data) {
  Disk disk;
  const InodeId id = synced_zeros(disk, "f", 8 * faults::kSectorBytes);
  disk.write(id, offset, data.data(), data.size());
  disk.crash(CrashMode::kSectorDamage, seed);
  return disk.durable_image("f");
}

std::string sector_damage_mixes_within_a_write() {
  const std::vector<uint8_t> data = pattern(8 * faults::kSectorBytes, 3);
  for (uint64_t seed = 1; seed <= kSeedsMax; ++seed) {
    const Kept k = kept_of(sector_crash(seed, 0, data), 0, data);
    if (k.bytes > 0 && k.bytes < data.size()) return "";
  }
  return "no crash in " + std::to_string(kSeedsMax) + " kept part of a write and lost the rest";
}

std::string sector_damage_keeps_whole_sectors() {
  constexpr uint64_t kOffset = 300;  // not sector-aligned: the write's first and last sectors are partial
  const std::vector<uint8_t> data = pattern(3000, 4);
  for (uint64_t seed = 1; seed <= kSeedsMax; ++seed) {
    const std::vector<uint8_t> image = sector_crash(seed, kOffset, data);
    for (uint64_t sector = 0; sector * faults::kSectorBytes < kOffset + data.size(); ++sector) {
      const uint64_t begin = std::max(sector * faults::kSectorBytes, kOffset);
      const uint64_t end = std::min((sector + 1) * faults::kSectorBytes, kOffset + data.size());
      if (begin >= end) continue;
      const std::vector<uint8_t> piece(data.begin() + static_cast<long>(begin - kOffset), data.begin() + static_cast<long>(end - kOffset));
      const Kept k = kept_of(image, begin, piece);
      if (k.garbage || (k.bytes != 0 && k.bytes != piece.size())) {
        return seed_says(seed, "sector " + std::to_string(sector) + " is partly old and partly new");
      }
    }
  }
  return "";
}

std::string synced_writes_survive_every_mode() {
  const std::vector<uint8_t> a = pattern(kWriteBytes, 5), b = pattern(kWriteBytes, 6);
  for (const CrashMode mode : {CrashMode::kDropUnsynced, CrashMode::kTornPrefix, CrashMode::kSectorDamage}) {
    for (uint64_t seed = 1; seed <= 16; ++seed) {
      Disk disk;
      const InodeId id = disk.open("f", true, true);
      disk.write(id, 0, a.data(), a.size());
      disk.sync(id);
      disk.write(id, kWriteBytes, b.data(), b.size());
      disk.crash(mode, seed);
      const std::vector<uint8_t> image = disk.durable_image("f");
      if (kept_of(image, 0, a).bytes != a.size()) {
        return seed_says(seed, std::string("a synced write did not survive a ") + faults::to_string(mode) + " crash");
      }
    }
  }
  return "";
}

std::string create_needs_directory_sync() {
  Disk disk;
  disk.open("synced_entry", true, /*durable_entry=*/false);
  disk.sync_directory();
  const InodeId id = disk.open("unsynced_entry", true, /*durable_entry=*/false);
  const std::vector<uint8_t> a = pattern(kWriteBytes, 7);
  disk.write(id, 0, a.data(), a.size());
  disk.sync(id);  // the file's data, not its directory entry
  disk.crash(CrashMode::kDropUnsynced, 1);
  if (!disk.exists("synced_entry")) return "a create the directory sync covered was lost";
  if (disk.exists("unsynced_entry")) return "a create after the last directory sync survived the crash (its file was synced)";
  return "";
}

std::string failed_sync_loses_dirty_data() {
  Disk disk;
  const InodeId id = synced_zeros(disk, "f", 2 * kWriteBytes);
  const std::vector<uint8_t> x = pattern(kWriteBytes, 8), y = pattern(kWriteBytes, 9);
  disk.write(id, 0, x.data(), x.size());
  disk.drop_dirty(id);  // the fsync failed: Linux marks the pages clean
  if (kept_of(disk.visible_image("f"), 0, x).bytes != x.size()) return "reads stopped seeing the dropped write before any crash";
  disk.write(id, kWriteBytes, y.data(), y.size());
  disk.sync(id);
  disk.crash(CrashMode::kDropUnsynced, 1);
  const std::vector<uint8_t> image = disk.durable_image("f");
  if (kept_of(image, kWriteBytes, y).bytes != y.size()) return "the write after the failed sync was lost though its sync succeeded";
  if (kept_of(image, 0, x).bytes != 0) return "a write whose fsync failed became durable at a later sync";
  return "";
}

// A file system in front of `disk` and one file opened through WiredTiger's interface.
struct OpenedFile {
  faults::SimFileSystem fs;
  WT_FILE_HANDLE* fh = nullptr;
  OpenedFile(Disk& disk, faults::FaultInjector* injector) : fs(disk, injector, "home") {
    WT_FILE_SYSTEM* wfs = fs.wt_file_system();
    [[maybe_unused]] const int ret =
        wfs->fs_open_file(wfs, nullptr, "home/f", WT_FS_OPEN_FILE_TYPE_DATA, WT_FS_OPEN_CREATE | WT_FS_OPEN_DURABLE, &fh);
  }
  ~OpenedFile() {
    if (fh != nullptr) fh->close(fh, nullptr);
  }
  int write(uint64_t offset, const std::vector<uint8_t>& data) {
    return fh->fh_write(fh, nullptr, static_cast<wt_off_t>(offset), data.size(), data.data());
  }
  int sync() { return fh->fh_sync(fh, nullptr); }
  std::vector<uint8_t> read(uint64_t offset, size_t len) {
    std::vector<uint8_t> out(len);
    if (fh->fh_read(fh, nullptr, static_cast<wt_off_t>(offset), len, out.data()) != 0) out.clear();
    return out;
  }
};

std::string fenced_writes_never_reach_the_disk() {
  Disk disk;
  OpenedFile file(disk, nullptr);
  if (file.fh == nullptr) return "the file system did not open a file";
  const std::vector<uint8_t> a = pattern(kWriteBytes, 10), b = pattern(kWriteBytes, 11);
  file.write(0, a);
  file.sync();
  file.fs.fence();  // the node crashed: its connection goes on against a private copy
  file.write(0, b);
  file.sync();
  if (file.read(0, b.size()) != b) return "the fenced connection does not read its own write";
  if (disk.visible_image("f") != a) return "a write made after the fence reached the disk";
  return "";
}

std::string full_disk_refuses_growth() {
  Disk disk;
  const InodeId id = synced_zeros(disk, "f", 4 * kWriteBytes);
  disk.set_capacity(disk.used_bytes() + 100);
  const std::vector<uint8_t> a = pattern(kWriteBytes, 12), small = pattern(50, 13);
  if (disk.write(id, 4 * kWriteBytes, a.data(), a.size()) != ENOSPC) return "a write past the capacity was accepted";
  if (disk.size(id) != 4 * kWriteBytes) return "a refused write changed the file's size";
  if (disk.write(id, 4 * kWriteBytes, small.data(), small.size()) != 0) return "a write within the capacity was refused";
  return "";
}

std::string full_disk_allows_overwrites() {
  Disk disk;
  const InodeId id = synced_zeros(disk, "f", 4 * kWriteBytes);
  disk.set_capacity(disk.used_bytes());  // full to the byte
  const std::vector<uint8_t> a = pattern(kWriteBytes, 14);
  if (disk.write(id, kWriteBytes, a.data(), a.size()) != 0) return "an overwrite inside the file was refused on a full disk";
  if (kept_of(disk.visible_image("f"), kWriteBytes, a).bytes != a.size()) return "an accepted overwrite is not read back";
  return "";
}

// The bits in which two images differ, as "byte:bit" strings.
std::vector<std::string> differing_bits(const std::vector<uint8_t>& x, const std::vector<uint8_t>& y) {
  std::vector<std::string> out;
  if (x.size() != y.size()) return {"sizes " + std::to_string(x.size()) + " and " + std::to_string(y.size())};
  for (size_t i = 0; i < x.size(); ++i) {
    for (int bit = 0; bit < 8; ++bit) {
      if (((x[i] ^ y[i]) >> bit) & 1) out.push_back(std::to_string(i) + ":" + std::to_string(bit));
    }
  }
  return out;
}

std::string bit_flip_is_one_durable_bit() {
  Disk disk;
  const InodeId id = disk.open("f", true, true);
  const std::vector<uint8_t> a = pattern(4 * kWriteBytes, 15);
  disk.write(id, 0, a.data(), a.size());
  disk.sync(id);
  disk.flip_bit("f", 1000, 3);
  const std::vector<std::string> seen = differing_bits(a, disk.visible_image("f"));
  if (seen != std::vector<std::string>{"1000:3"}) return "reads do not see exactly bit 3 of byte 1000 flipped";
  disk.crash(CrashMode::kDropUnsynced, 1);
  const std::vector<std::string> kept = differing_bits(a, disk.durable_image("f"));
  if (kept != std::vector<std::string>{"1000:3"}) return "after a crash the file does not hold exactly the flipped bit";
  return "";
}

std::string lying_sync_persists_nothing() {
  Disk disk;
  disk.set_sync_lies("kv");
  const InodeId liar = disk.open("kv.wt", true, true), honest = disk.open("log", true, true);
  const std::vector<uint8_t> a = pattern(kWriteBytes, 16);
  disk.write(liar, 0, a.data(), a.size());
  disk.write(honest, 0, a.data(), a.size());
  disk.sync(liar);
  disk.sync(honest);
  disk.crash(CrashMode::kDropUnsynced, 1);
  if (!disk.durable_image("kv.wt").empty()) return "a write synced by a lying sync survived the crash";
  if (disk.durable_image("log") != a) return "a file the sync does not lie about lost its synced write";
  return "";
}

faults::Fault io_error(faults::DiskOp op, uint64_t nth, bool sticky) {
  faults::Fault f;
  f.kind = faults::FaultKind::kIoError;
  f.op = op;
  f.file = "kv";
  f.at_disk_op = nth;
  f.sticky = sticky;
  return f;
}

std::string io_error_hits_the_nth_op() {
  faults::FaultInjector injector(faults::FaultPlan{{io_error(faults::DiskOp::kWrite, 3, false)}});
  std::string seen;
  for (int i = 1; i <= 5; ++i) {
    if (injector.on_disk_op(faults::FsOp::kWrite, "log").error != 0) return "a write to another file failed";
    seen += injector.on_disk_op(faults::FsOp::kWrite, "kv.wt").error == EIO ? "E" : ".";
  }
  if (seen != "..E..") return "writes to kv.wt failed as " + seen + ", not ..E.. (only the third)";
  return "";
}

std::string sticky_error_lasts_until_a_power_cycle() {
  faults::FaultInjector injector(faults::FaultPlan{{io_error(faults::DiskOp::kRead, 2, true)}});
  std::string seen;
  for (int i = 1; i <= 5; ++i) seen += injector.on_disk_op(faults::FsOp::kRead, "kv.wt").error == EIO ? "E" : ".";
  if (seen != ".EEEE") return "reads of kv.wt failed as " + seen + ", not .EEEE (from the second on)";
  injector.power_cycled();
  if (injector.on_disk_op(faults::FsOp::kRead, "kv.wt").error != 0) return "a read failed after a power cycle";
  return "";
}

std::string misdirected_write_lands_further_on() {
  faults::Fault misdirect;
  misdirect.kind = faults::FaultKind::kMisdirectedWrite;
  misdirect.file = "f";
  misdirect.at_disk_op = 1;
  misdirect.misdirect_bytes = 4 * kWriteBytes;
  faults::FaultInjector injector(faults::FaultPlan{{misdirect}});
  Disk disk;
  synced_zeros(disk, "f", 8 * kWriteBytes);
  OpenedFile file(disk, &injector);
  const std::vector<uint8_t> a = pattern(kWriteBytes, 17);
  if (file.fh == nullptr || file.write(0, a) != 0) return "the misdirected write failed";
  const std::vector<uint8_t> image = disk.visible_image("f");
  if (kept_of(image, 0, a).bytes != 0) return "the misdirected write reached the place it was aimed at";
  if (kept_of(image, 4 * kWriteBytes, a).bytes != a.size()) return "the misdirected write is not 4096 bytes further on";
  return "";
}

std::string crash_comes_before_its_op() {
  faults::Fault crash;
  crash.kind = faults::FaultKind::kCrash;
  crash.at_disk_op = 3;
  faults::FaultInjector injector(faults::FaultPlan{{crash}});
  std::string seen;
  for (int i = 1; i <= 5; ++i) seen += injector.on_disk_op(faults::FsOp::kWrite, "kv.wt").crash ? "C" : ".";
  if (seen != "..C..") return "the crash came as " + seen + ", not ..C.. (before the third operation)";
  return "";
}

std::string latency_multiplies_in_its_window() {
  faults::Fault slow;
  slow.kind = faults::FaultKind::kLatency;
  slow.at_ns = 100 * sim::kNsPerMs;
  slow.until_ns = 200 * sim::kNsPerMs;
  slow.factor = 5.0;
  const faults::FaultInjector injector(faults::FaultPlan{{slow}});
  if (injector.latency_factor(150 * sim::kNsPerMs) != 5.0) return "the disk is not 5 times slower inside the window";
  if (injector.latency_factor(99 * sim::kNsPerMs) != 1.0 || injector.latency_factor(200 * sim::kNsPerMs) != 1.0) {
    return "the disk is slower outside the window";
  }
  return "";
}

}  // namespace

const std::vector<FaultPromise>& fault_promises() {
  static const std::vector<FaultPromise> promises = {
      {"DropUnsyncedKeepsOnlySynced", "drop_unsynced: a crashed file reads exactly as at its last sync",
       drop_unsynced_keeps_only_synced},
      {"TornPrefixKeepsAPrefix", "torn_prefix: no unsynced write survives unless every earlier one to its file does",
       torn_prefix_keeps_a_prefix},
      {"TornPrefixTearsAtSectors", "torn_prefix: some crashes tear a write, keeping whole sectors from its start",
       torn_prefix_tears_at_sectors},
      {"TornPrefixKeepsAndDrops", "torn_prefix: some crashes keep whole unsynced writes, some lose them",
       torn_prefix_keeps_and_drops},
      {"SectorDamageMixesWithinAWrite", "sector_damage: a crash can keep some sectors of a write and lose others",
       sector_damage_mixes_within_a_write},
      {"SectorDamageKeepsWholeSectors", "sector_damage: each 512-byte sector is wholly old or wholly new",
       sector_damage_keeps_whole_sectors},
      {"SyncedWritesSurviveEveryMode", "a write whose sync returned survives a crash in every mode",
       synced_writes_survive_every_mode},
      {"CreateNeedsADirectorySync", "a create survives a crash only if a directory sync (or a durable create) came after it",
       create_needs_directory_sync},
      {"FailedSyncLosesDirtyData", "after a failed fsync dropped them, dirty writes never become durable",
       failed_sync_loses_dirty_data},
      {"FencedWritesNeverReachTheDisk", "after a crash, nothing the old connection does reaches the disk",
       fenced_writes_never_reach_the_disk},
      {"FullDiskRefusesGrowth", "disk_full: a write that grows the disk past its capacity gets ENOSPC and changes nothing",
       full_disk_refuses_growth},
      {"FullDiskAllowsOverwrites", "disk_full: a write inside a file's size succeeds on a full disk",
       full_disk_allows_overwrites},
      {"BitFlipIsOneDurableBit", "bit_flip: exactly one bit changes, for reads and in what survives a crash",
       bit_flip_is_one_durable_bit},
      {"LyingSyncPersistsNothing", "lying_sync: a sync of a matching file returns success and makes nothing durable",
       lying_sync_persists_nothing},
      {"IoErrorHitsTheNthOp", "io_error: exactly the Nth matching operation gets EIO", io_error_hits_the_nth_op},
      {"StickyErrorLastsUntilAPowerCycle", "io_error sticky: every matching operation from the Nth on fails until a power cycle",
       sticky_error_lasts_until_a_power_cycle},
      {"MisdirectedWriteLandsFurtherOn", "misdirected_write: the write lands misdirect_bytes further on; its own place keeps the old bytes",
       misdirected_write_lands_further_on},
      {"CrashComesBeforeItsOp", "crash at disk op N: the crash comes before the Nth mutating operation reaches the disk",
       crash_comes_before_its_op},
      {"LatencyMultipliesInItsWindow", "latency: inside its window, and only there, disk costs are multiplied by the factor",
       latency_multiplies_in_its_window},
  };
  return promises;
}

}  // namespace wtsim::tests
