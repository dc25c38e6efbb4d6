#pragma once
// An executable model of WiredTiger 3.2.1's block manager extent lists (block_ext.c, block_ckpt.c)
// under MongoDB's checkpoint pattern, for the hot-backup issue (semantics.md section 4):
//   - each file has the live lists alloc, avail, discard and ckpt_avail;
//   - MongoDB keeps one WiredTigerCheckpoint.N per file and deletes the older one at each checkpoint;
//   - a backup pin blocks every deletion, so checkpoints accumulate and rewritten pages must extend
//     the file; unpinning (or the seed's per-table release) lets the next checkpoint reclaim.
// Besides WiredTiger's own lists the model keeps what WiredTiger does not need but an oracle does:
// the blocks in use now, and for each kept checkpoint the blocks it references. check() then proves
// that the lists describe exactly those sets: no block a checkpoint still needs is reusable, and no
// byte of the file is leaked.
// Deterministic: ordered containers only, no clock, no randomness.
#include <cstdint>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace wtsim::models {

inline constexpr uint64_t kAllocsizeBytes = 4096;  // WiredTiger's default allocation_size

struct Extent {
  uint64_t offset_bytes = 0;
  uint64_t size_bytes = 0;
  uint64_t end_bytes() const { return offset_bytes + size_bytes; }
  bool operator==(const Extent&) const = default;
};
std::ostream& operator<<(std::ostream& os, const Extent& e);

// A sorted set of non-overlapping [offset, offset + size) ranges; adjacent ranges coalesce, as in
// WiredTiger's __block_merge. Misuse (inserting an overlap, removing what is not there) throws
// std::invalid_argument: in WiredTiger those are corruption panics, in the model they are bugs.
class ExtentList {
 public:
  void insert(uint64_t offset_bytes, uint64_t size_bytes);  // must not overlap what is present
  void remove(uint64_t offset_bytes, uint64_t size_bytes);  // must be wholly contained
  bool contains(uint64_t offset_bytes, uint64_t size_bytes) const;
  bool contains(const ExtentList& other) const;
  bool overlaps(uint64_t offset_bytes, uint64_t size_bytes) const;
  bool overlaps(const ExtentList& other) const;
  ExtentList intersection(const ExtentList& other) const;
  void merge(const ExtentList& other);                        // disjoint union: throws on overlap
  void unite(const ExtentList& other);                        // set union: overlap allowed
  void subtract(const ExtentList& other);                     // other must be wholly contained
  std::optional<Extent> best_fit(uint64_t size_bytes) const;  // smallest range that fits, lowest offset
  std::optional<Extent> last() const;
  uint64_t total_bytes() const { return total_bytes_; }
  size_t range_count() const { return end_by_offset_.size(); }
  bool empty() const { return end_by_offset_.empty(); }
  std::vector<Extent> ranges() const;
  void clear();
  bool operator==(const ExtentList&) const = default;

 private:
  // For assertions: every range is non-empty, ranges neither touch nor overlap (they coalesce),
  // and total_bytes_ is their sum. O(ranges).
  bool well_formed() const;

  std::map<uint64_t, uint64_t> end_by_offset_;  // offset -> end, both in bytes
  uint64_t total_bytes_ = 0;
};
std::ostream& operator<<(std::ostream& os, const ExtentList& list);

// One kept checkpoint: its alloc and discard lists as WiredTiger stores them, plus (model only) the
// blocks it references, i.e. what a reader of it (a hot backup restore) needs intact.
struct CheckpointBlocks {
  uint64_t number = 0;  // N in WiredTigerCheckpoint.N
  ExtentList alloc;
  ExtentList discard;
  ExtentList referenced;
  std::string name() const { return "WiredTigerCheckpoint." + std::to_string(number); }
};

enum class ListKind { kAlloc, kAvail, kDiscard, kCkptAvail };

struct ListTotals {
  uint64_t alloc_bytes = 0;
  uint64_t avail_bytes = 0;
  uint64_t discard_bytes = 0;
  uint64_t ckpt_avail_bytes = 0;
  uint64_t in_use_bytes = 0;
};

// One file's block manager (WT_BLOCK and its live WT_BLOCK_CKPT). The first allocsize bytes hold
// the file description block and belong to no list, as in WiredTiger.
class FileBlocks {
 public:
  explicit FileBlocks(uint64_t allocsize_bytes = kAllocsizeBytes);

  // Rounds up to allocsize; best fit from avail, else extends the file. Returns the offset.
  uint64_t allocate(uint64_t size_bytes);
  // Frees a range in use (rounded up to allocsize); not a page's block (those belong to rewrite()).
  void free(uint64_t offset_bytes, uint64_t size_bytes);
  // Takes WiredTigerCheckpoint.N+1, deleting the older ones unless pinned. Throws std::logic_error
  // if the previous checkpoint is not resolved yet (WiredTiger panics on that).
  void checkpoint();
  // The checkpoint's metadata is durable: ckpt_avail becomes allocatable.
  void resolve();
  void checkpoint_and_resolve();
  // Hot backup: pin waits for an in-flight checkpoint (the backup cursor takes the checkpoint lock),
  // so it resolves a pending one first. Unpin is also the seed's per-table release.
  void pin();
  void unpin();
  // Copy-on-write rewrite of pages 0..n_pages-1 (reconciliation): new block first, then the old one
  // is freed. Pages not yet present are created.
  void rewrite(uint64_t n_pages, uint64_t page_bytes);

  std::vector<std::string> check() const;  // empty: every invariant holds

  uint64_t allocsize_bytes() const { return allocsize_bytes_; }
  uint64_t file_bytes() const { return file_bytes_; }          // block->size
  uint64_t physical_bytes() const { return physical_bytes_; }  // no ftruncate while pinned
  uint64_t extending_allocations() const { return extending_allocations_; }
  size_t checkpoint_count() const { return checkpoints_.size(); }
  const std::vector<CheckpointBlocks>& checkpoints() const { return checkpoints_; }
  bool pinned() const { return pinned_; }
  bool resolve_pending() const { return resolve_pending_; }
  const ExtentList& alloc() const { return alloc_; }
  const ExtentList& avail() const { return avail_; }
  const ExtentList& discard() const { return discard_; }
  const ExtentList& ckpt_avail() const { return ckpt_avail_; }
  const ExtentList& in_use() const { return in_use_; }
  const std::map<uint64_t, Extent>& pages() const { return block_by_page_; }
  ListTotals totals() const;

  // Test only: inserts a range into one live list without touching the others, so tests can
  // prove check() notices corruption.
  void inject_for_test(ListKind list, uint64_t offset_bytes, uint64_t size_bytes);

 private:
  uint64_t round_up(uint64_t size_bytes) const;
  uint64_t extend(uint64_t size_bytes);
  void release_block(uint64_t offset_bytes, uint64_t size_bytes);
  void delete_checkpoints_into(CheckpointBlocks& next);
  void truncate_avail_at_eof();
  std::vector<std::pair<std::string, const ExtentList*>> live_lists() const;
  void check_bounds(std::vector<std::string>& problems) const;
  void check_live_lists(std::vector<std::string>& problems) const;
  void check_checkpoints(std::vector<std::string>& problems) const;
  void check_live_against_newest(std::vector<std::string>& problems) const;
  void check_conservation(std::vector<std::string>& problems) const;
  void check_unresolved(std::vector<std::string>& problems) const;
  void check_pages(std::vector<std::string>& problems) const;

  uint64_t allocsize_bytes_;
  uint64_t file_bytes_;
  uint64_t physical_bytes_;
  uint64_t extending_allocations_ = 0;  // stat 'allocations requiring file extension'
  ExtentList alloc_, avail_, discard_, ckpt_avail_;
  ExtentList in_use_;                          // model only: allocated and not yet freed
  std::vector<CheckpointBlocks> checkpoints_;  // oldest first
  // Model only: until resolve() the metadata still names the checkpoints the pending one deleted,
  // so a crash would reopen them; the blocks they reference must stay intact until then.
  ExtentList deleted_unresolved_referenced_;
  uint64_t next_checkpoint_number_ = 1;
  bool pinned_ = false;
  bool resolve_pending_ = false;
  std::map<uint64_t, Extent> block_by_page_;  // page id -> its current block
};

// Several named files of one connection, and the backup cursor that pins them.
class BlockManagerModel {
 public:
  explicit BlockManagerModel(uint64_t allocsize_bytes = kAllocsizeBytes);

  // Files added while a backup is open are pinned too: WiredTiger's hot-backup flag is per connection.
  FileBlocks& add_file(const std::string& name);
  FileBlocks& file(const std::string& name);  // throws std::out_of_range
  const FileBlocks& file(const std::string& name) const;
  std::vector<std::string> file_names() const;

  // Opens the backup cursor: throws std::logic_error if one is open (WiredTiger: EINVAL).
  void pin_all();
  // The seed's backup_release_checkpoint(ident): unpins one file; no-op if it is not pinned.
  void release(const std::string& name);
  // Closes the backup cursor; no-op if none is open.
  void unpin_all();
  bool backup_open() const { return backup_open_; }

  void checkpoint_all();  // every file, then resolve_all() once the metadata is durable
  void resolve_all();     // files with a pending checkpoint
  void checkpoint_and_resolve_all();
  void rewrite(const std::string& name, uint64_t n_pages, uint64_t page_bytes);

  size_t checkpoint_count(const std::string& name) const { return file(name).checkpoint_count(); }
  uint64_t file_bytes(const std::string& name) const { return file(name).file_bytes(); }
  ListTotals totals(const std::string& name) const { return file(name).totals(); }

  std::vector<std::string> check() const;  // each problem prefixed with its file's name

 private:
  uint64_t allocsize_bytes_;
  std::map<std::string, FileBlocks> files_;
  bool backup_open_ = false;
};

}  // namespace wtsim::models
