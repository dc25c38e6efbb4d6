#pragma once
// A WiredTiger WT_FILE_SYSTEM over a simulated Disk, one per connection generation.
//
// Faults: each operation the simulation thread makes is shown to the FaultInjector first. A crash
// it orders is carried out at once through the crash handler (which fences this file system and
// crashes the disk) and the operation then goes to the ghost: WiredTiger never notices.
//
// Fencing ("ghost" mode): the file system switches to a private copy of the disk as it was, so
// the old connection stays self-consistent while nothing it does reaches storage.
//
// Never yields: WiredTiger calls in holding its own mutexes.
#include <wiredtiger.h>

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "faults/disk.h"
#include "faults/fault_injector.h"

namespace wtsim::faults {

struct FsStats {
  std::atomic<uint64_t> reads{0}, writes{0}, syncs{0}, bytes_read{0}, bytes_written{0};
  std::atomic<uint64_t> foreign_thread_ops{0};  // ops by WiredTiger's own threads
};

class SimFileSystem {
 public:
  using CrashHandler = std::function<void(CrashMode)>;

  // `home` is the path prefix WiredTiger uses for this connection (a distinct alias per
  // generation, since WiredTiger refuses to open one home twice in a process).
  SimFileSystem(Disk& disk, FaultInjector* faults, std::string home);
  ~SimFileSystem();
  SimFileSystem(const SimFileSystem&) = delete;
  SimFileSystem& operator=(const SimFileSystem&) = delete;

  WT_FILE_SYSTEM* wt_file_system() { return &iface_.fs; }
  const std::string& home() const { return home_; }
  // The extensions= entry for wiredtiger_open's config that installs this file system.
  std::string extension_config() const;

  void set_crash_handler(CrashHandler handler) { crash_handler_ = std::move(handler); }
  void fence();
  bool fenced() const { return fenced_.load(); }
  const FsStats& stats() const { return stats_; }

  // --- For the C callbacks. ---
  std::string relative(const char* name) const;
  // Shows the op to the fault plan (simulation thread only); may crash-and-fence first.
  FaultDecision check(FsOp op, const std::string& file);
  Disk& disk() { return *disk_; }  // the live disk, or the ghost after fence()
  std::mutex& mutex() { return mu_; }
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
  std::thread::id sim_thread_;  // tells WiredTiger's own threads apart (the project starts none)
  std::atomic<bool> fenced_{false};
  std::mutex mu_;
  CrashHandler crash_handler_;
  FsStats stats_;
};

}  // namespace wtsim::faults
