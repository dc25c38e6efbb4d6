#pragma once
// A WiredTiger WT_FILE_SYSTEM over a simulated Disk, one per connection generation.
//
// Faults: each operation, whichever fiber makes it (WiredTiger's own threads are fibers too), is
// shown to the FaultInjector first. A crash it orders is carried out at once through the crash
// handler (which fences this file system and crashes the disk) and the operation then goes to
// the ghost: WiredTiger never notices.
//
// Time: a read, write or sync that reaches the live disk pays its virtual disk time inside the
// call, through the disk timer (the world's shared disk queue): the calling fiber waits there,
// possibly holding WiredTiger's own mutexes, which other fibers then wait for (that is the
// point: a checkpoint competing with commits shows in their latency). The wait is never
// cancelled (sim::NoCancelScope). The operation takes effect when its time is paid: if the node
// crashed meanwhile, it goes to the ghost.
//
// Fencing ("ghost" mode): the file system switches to a private copy of the disk as it was, so
// the old connection stays self-consistent while nothing it does reaches storage. Ghost
// operations cost no time and see no faults.
#include <wiredtiger.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "faults/disk.h"
#include "faults/fault_injector.h"

namespace wtsim::faults {

struct FsStats {
  uint64_t reads = 0, writes = 0, syncs = 0, bytes_read = 0, bytes_written = 0;
};

class SimFileSystem {
 public:
  // Called when the plan crashes the node before `op` on `file` reaches the disk.
  using CrashHandler = std::function<void(CrashMode mode, FsOp op, const std::string& file)>;
  // Pays the virtual time of one operation on the live disk (called inside the callback).
  using DiskTimer = std::function<void(FsOp op, uint64_t bytes)>;

  // `home` is the path prefix WiredTiger uses for this connection (a distinct alias per
  // generation, since WiredTiger refuses to open one home twice in a process).
  SimFileSystem(Disk& disk, FaultInjector* faults, std::string home);
  ~SimFileSystem();
  SimFileSystem(const SimFileSystem&) = delete;
  SimFileSystem& operator=(const SimFileSystem&) = delete;

  WT_FILE_SYSTEM* wt_file_system() { return &iface_.fs; }
  const std::string& home() const { return home_; }
  // The extensions= entry for wiredtiger_open's config that installs this file system; call it
  // right before that wiredtiger_open (the entry point takes this file system then).
  std::string extension_config();

  void set_crash_handler(CrashHandler handler) { crash_handler_ = std::move(handler); }
  void set_disk_timer(DiskTimer timer) { disk_timer_ = std::move(timer); }
  void fence();
  bool fenced() const { return fenced_; }
  const FsStats& stats() const { return stats_; }

  // --- For the C callbacks. ---
  std::string relative(const char* name) const;
  // Shows the op to the fault plan; may crash-and-fence first.
  FaultDecision check(FsOp op, const std::string& file);
  // Pays the op's disk time if it goes to the live disk and a fiber made it (main-context calls,
  // in tests and benchmarks, cost nothing).
  void pay(FsOp op, uint64_t bytes);
  Disk& disk() { return *disk_; }  // the live disk, or the ghost after fence()
  FsStats& mutable_stats() { return stats_; }

  struct Iface {
    WT_FILE_SYSTEM fs;  // first member: the C callbacks cast the WT_FILE_SYSTEM back to Iface
    SimFileSystem* owner;
  };

 private:
  Iface iface_{};
  Disk* disk_;
  std::unique_ptr<Disk> ghost_;
  FaultInjector* faults_;
  std::string home_;
  bool fenced_ = false;
  CrashHandler crash_handler_;
  DiskTimer disk_timer_;
  FsStats stats_;
};

// For the extension entry point: the file system extension_config() named last, once.
SimFileSystem* take_file_system_to_install();

}  // namespace wtsim::faults
