#pragma once
// The simulated storage device with one flat directory, modelled like a POSIX file system over a
// volatile page cache:
// - each file (inode) has a durable image and the writes since its last sync, kept as a list so a
//   crash can keep any prefix or subset of them;
// - directory entries (create, rename, remove) become durable only at a directory sync, or at once
//   when the caller asks for a durable operation.
// Thread-safe (WiredTiger's own threads may call in); holds no fiber state.
#include <cstdint>
#include <map>
#include <memory>
#include <pthread.h>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "faults/crash_mode.h"
#include "faults/file_image.h"
#include "sim/random.h"

namespace wtsim::faults {

using InodeId = uint64_t;

struct PendingOp {
  bool truncate = false;
  uint64_t offset = 0;         // write: where; truncate: the new size
  std::vector<uint8_t> data;   // write only
};

struct Inode {
  InodeId id = 0;
  FileImage durable;  // what survives a crash
  FileImage current;  // what reads see
  std::vector<PendingOp> pending;
  // current != durable + pending: dirty pages were dropped (a failed fsync) or a bit flipped
  // under pending writes. Until the next crash, a sync must replay pending onto durable instead
  // of sharing current's chunks.
  bool diverged = false;
};

// What a crash kept of one file's unsynced writes.
struct CrashFileReport {
  std::string name;
  size_t pending_ops = 0;
  size_t kept_ops = 0;       // whole ops kept
  uint64_t torn_bytes = 0;   // bytes kept of a partly kept op
  uint64_t durable_bytes = 0;
};

struct FileInfo {
  std::string name;
  uint64_t current_bytes = 0;
  uint64_t durable_bytes = 0;
  size_t pending_ops = 0;
  bool durable_entry = false;  // the name survives a crash
};

class Disk {
 public:
  static constexpr uint64_t kUnlimited = UINT64_MAX;

  Disk() = default;
  Disk(const Disk&) = delete;
  Disk& operator=(const Disk&) = delete;

  // --- Namespace. Names are relative to the single directory. ---
  bool exists(const std::string& name) const;
  // Returns the inode, creating the file if `create`; 0 if absent and not created.
  InodeId open(const std::string& name, bool create, bool durable_entry);
  int remove(const std::string& name, bool durable);
  int rename(const std::string& from, const std::string& to, bool durable);
  std::vector<std::string> list(const std::string& prefix) const;  // sorted
  void sync_directory();

  // --- File data. Return 0 or an errno. ---
  int read(InodeId id, uint64_t offset, size_t len, void* buf) const;
  int write(InodeId id, uint64_t offset, const void* buf, size_t len);
  int truncate(InodeId id, uint64_t size);
  // fallocate: grows the file to `size` with zeros (never shrinks), ENOSPC if the device is full.
  // Like a truncate, the new size is durable only at the next sync.
  int allocate(InodeId id, uint64_t size);
  uint64_t size(InodeId id) const;
  void sync(InodeId id);
  // After a failed fsync on Linux the dirty pages are marked clean: reads still see the data but
  // it will never reach the durable image.
  void drop_dirty(InodeId id);

  // --- Whole device. ---
  // A private copy of everything as now visible: the "ghost" an old connection keeps after a
  // crash so that nothing it does reaches this disk. A ghost never crashes, so it keeps one image
  // per file and no pending writes (fencing costs one copy of the data).
  std::unique_ptr<Disk> clone_visible() const;
  // Replaces the state with what survives a crash in `mode`; returns what it kept, by file name.
  // Each file draws from its own stream (`seed` and its name), so that one file's unsynced
  // writes (WiredTiger's eviction may add some) never shift what another file keeps.
  std::vector<CrashFileReport> crash(CrashMode mode, uint64_t seed);
  // Latent corruption: flips one bit of a file's data (durable and visible).
  bool flip_bit(const std::string& name, uint64_t offset, int bit);

  uint64_t used_bytes() const;
  void set_capacity(uint64_t bytes);
  uint64_t capacity() const;
  uint64_t enospc_returned() const { return enospc_returned_; }  // writes refused for space
  std::vector<FileInfo> files() const;  // sorted by name
  // The durable image of a named file (tests, restore checks).
  std::vector<uint8_t> durable_image(const std::string& name) const;
  std::vector<uint8_t> visible_image(const std::string& name) const;
  uint64_t syncs() const { return syncs_; }
  // A device whose sync lies for files whose name contains `file_substring` (empty: all): it
  // returns success and makes nothing durable (a negative control).
  void set_sync_lies(const std::string& file_substring);

 private:
  Inode& inode(InodeId id);
  const Inode& inode(InodeId id) const;
  bool lies_about(InodeId id) const;
  // Whether `node` may grow to `end` bytes on this device; counts a refusal.
  bool room_to_grow(const Inode& node, uint64_t end);
  void apply_kept(Inode& node, CrashMode mode, sim::Rng& rng, CrashFileReport& report);

  // No lock: one OS thread runs every fiber, WiredTiger's included (sim/wt_threads.h). Every
  // entry point asserts it is that thread.
  bool on_owner_thread() const { return pthread_equal(pthread_self(), owner_thread_) != 0; }
  pthread_t owner_thread_ = pthread_self();
  std::map<std::string, InodeId> names_;          // visible directory
  std::map<std::string, InodeId> durable_names_;  // directory as of its last sync
  std::unordered_map<InodeId, std::unique_ptr<Inode>> inodes_;  // lookup only, never iterated
  InodeId next_id_ = 1;
  uint64_t capacity_ = kUnlimited;
  uint64_t enospc_returned_ = 0;
  uint64_t syncs_ = 0;
  std::optional<std::string> sync_lies_;  // file-name substring
  bool ghost_ = false;
};

}  // namespace wtsim::faults
