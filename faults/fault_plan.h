#pragma once
// The fault plan: an explicit, recorded list of faults for one run. A scenario either spells it
// out or declares ranges from which a seed draws it (swarm testing); either way the trace records
// the plan itself, so replay and shrinking can edit it.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "faults/crash_mode.h"
#include "sim/virtual_clock.h"

namespace wtsim::faults {

enum class FaultKind {
  kCrash,             // at a virtual time or at the Nth mutating disk operation
  kIoError,           // EIO on the Nth read/write/sync of matching files (transient or sticky)
  kDiskFull,          // ENOSPC: the disk's capacity is `capacity_bytes` from at_ns to until_ns
  kBitFlip,           // one bit of a file's durable data flips at a virtual time
  kMisdirectedWrite,  // the Nth write of matching files lands `misdirect_bytes` further on
  kLatency,           // disk costs multiplied by `factor` from at_ns to until_ns
  kLyingSync,         // from at_ns on, syncs report success and persist nothing (a negative
                      // control: the durability properties must catch it)
};

enum class DiskOp { kRead, kWrite, kSync };

// Where storage engines break: an anchored crash comes a few mutating disk operations after the
// nth time one of these begins (a checkpoint, a new log file, a pass of page eviction), or where a
// replica set member's recovery breaks (a rollback's first step, the write of its minValid).
enum class CrashAnchor { kCheckpointStart, kLogSwitch, kEvictionPass, kRollback };
inline constexpr size_t kCrashAnchorCount = 4;
struct Anchor {
  CrashAnchor event = CrashAnchor::kCheckpointStart;
  uint64_t nth = 1;       // counts from 1, over the whole run (every node generation)
  // The crash comes before the mutating disk operation this many after the event's first one
  // (0: that one itself). A checkpoint's first is the first after it begins; a log switch's is the
  // new log file's creation; an eviction pass's is its first write; a rollback's is the first
  // after it begins.
  uint64_t disk_ops = 0;
};

struct Fault {
  FaultKind kind = FaultKind::kCrash;
  std::optional<sim::Nanos> at_ns;        // time trigger
  std::optional<uint64_t> at_disk_op;     // count trigger (1-based)
  std::optional<Anchor> after;            // anchored trigger (crash only)
  sim::Nanos until_ns = 0;                // end of a window (disk full, latency)
  CrashMode crash_mode = CrashMode::kDropUnsynced;
  DiskOp op = DiskOp::kWrite;             // I/O error: which operation
  std::string file;                       // substring of the file name; empty matches all
  bool sticky = false;                    // I/O error: every matching op from the Nth on fails
  bool drop_dirty = false;                // sync error: the dirty data is lost (Linux behaviour)
  uint64_t capacity_bytes = 0;            // disk full
  uint64_t offset = 0;                    // bit flip: byte offset (modulo the file size)
  int bit = 0;                            // bit flip: which bit
  uint64_t misdirect_bytes = 4096;        // misdirected write
  double factor = 1.0;                    // latency
};

struct FaultPlan {
  std::vector<Fault> faults;
};

const char* to_string(FaultKind kind);
const char* to_string(DiskOp op);
const char* to_string(CrashAnchor anchor);

nlohmann::json to_json(const Fault& fault);
nlohmann::json to_json(const FaultPlan& plan);
// Throws std::invalid_argument naming the JSON path and the problem.
Fault fault_from_json(const nlohmann::json& j, const std::string& path);
FaultPlan plan_from_json(const nlohmann::json& j, const std::string& path);

}  // namespace wtsim::faults
