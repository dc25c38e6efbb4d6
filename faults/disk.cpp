#include "faults/disk.h"

#include <algorithm>
#include <cassert>
#include <cerrno>
#include <cstring>
#include <set>

#include "faults/weakening.h"

namespace wtsim::faults {
namespace {

using weakening::Weakening;

void apply_write(FileImage& image, uint64_t offset, const uint8_t* data, size_t len) {
  image.write(offset, data, len);
}

void apply_op(FileImage& image, const PendingOp& op) {
  if (op.truncate) {
    image.resize(op.offset);
  } else {
    apply_write(image, op.offset, op.data.data(), op.data.size());
  }
}

// Every name refers to an inode that exists, by an id the disk handed out.
bool names_resolve(const std::map<std::string, InodeId>& names,
                   const std::unordered_map<InodeId, std::unique_ptr<Inode>>& inodes,
                   InodeId next_id) {
  for (const auto& [name, id] : names) {
    if (id == 0 || id >= next_id || inodes.count(id) == 0) return false;
  }
  return true;
}

// The size the durable image reaches once the pending ops are replayed onto it.
uint64_t size_after_pending(const Inode& node) {
  uint64_t size = node.durable.size();
  for (const PendingOp& op : node.pending) {
    size = op.truncate ? op.offset : std::max<uint64_t>(size, op.offset + op.data.size());
  }
  return size;
}

// Unless dirty pages were dropped or a bit flipped under pending writes, what reads see is the
// durable image with the pending ops replayed (checked on sizes: O(pending), not O(bytes)).
bool visible_is_durable_plus_pending(const Inode& node) {
  return node.diverged || size_after_pending(node) == node.current.size();
}

// What a crash leaves of a file: nothing pending, and reads see exactly the durable image.
bool settled_after_crash(const Inode& node) {
  return node.pending.empty() && !node.diverged && node.current.same_content(node.durable);
}

// A ghost holds the same visible bytes, under the same ids, as the disk it was cloned from.
bool same_visible_files(const std::unordered_map<InodeId, std::unique_ptr<Inode>>& a,
                        const std::unordered_map<InodeId, std::unique_ptr<Inode>>& b) {
  if (a.size() != b.size()) return false;
  for (const auto& [id, node] : a) {
    auto it = b.find(id);
    if (it == b.end() || !it->second->current.same_content(node->current)) return false;
  }
  return true;
}

}  // namespace

Inode& Disk::inode(InodeId id) {
  auto it = inodes_.find(id);
  assert(it != inodes_.end());
  assert(it->second != nullptr && it->second->id == id);
  return *it->second;
}

const Inode& Disk::inode(InodeId id) const {
  auto it = inodes_.find(id);
  assert(it != inodes_.end());
  assert(it->second != nullptr && it->second->id == id);
  return *it->second;
}

bool Disk::exists(const std::string& name) const {
  assert(on_owner_thread());
  return names_.count(name) != 0;
}

InodeId Disk::open(const std::string& name, bool create, bool durable_entry) {
  assert(on_owner_thread());
  auto it = names_.find(name);
  if (it != names_.end()) return it->second;
  if (!create) return 0;
  assert(!name.empty());  // the empty name is the directory itself
  const InodeId id = next_id_++;
  assert(id != 0 && inodes_.count(id) == 0);  // ids are never reused
  auto node = std::make_unique<Inode>();
  node->id = id;
  inodes_.emplace(id, std::move(node));
  names_[name] = id;
  if (weakening::active(Weakening::kDirectoryAlwaysDurable)) durable_entry = true;
  if (durable_entry) durable_names_[name] = id;
  assert(names_.at(name) == id && (!durable_entry || durable_names_.at(name) == id));
  assert(names_resolve(names_, inodes_, next_id_));
  return id;
}

int Disk::remove(const std::string& name, bool durable) {
  assert(on_owner_thread());
  [[maybe_unused]] const size_t names_before = names_.size();
  if (names_.erase(name) == 0) return ENOENT;
  if (durable) durable_names_.erase(name);
  assert(names_.size() + 1 == names_before);  // the inode stays: open handles still read it
  assert(names_.count(name) == 0 && (!durable || durable_names_.count(name) == 0));
  return 0;
}

int Disk::rename(const std::string& from, const std::string& to, bool durable) {
  assert(on_owner_thread());
  auto it = names_.find(from);
  if (it == names_.end()) return ENOENT;
  const InodeId id = it->second;
  [[maybe_unused]] const size_t names_before = names_.size();
  [[maybe_unused]] const bool replaces = from != to && names_.count(to) != 0;
  names_.erase(it);
  names_[to] = id;
  if (durable) {
    auto d = durable_names_.find(from);
    if (d != durable_names_.end() && d->second == id) durable_names_.erase(d);
    durable_names_[to] = id;
  }
  assert(names_.at(to) == id && (from == to || names_.count(from) == 0));
  assert(names_.size() == names_before - (replaces ? 1 : 0));  // a rename replaces its target
  assert(!durable || durable_names_.at(to) == id);
  assert(names_resolve(names_, inodes_, next_id_));
  assert(names_resolve(durable_names_, inodes_, next_id_));
  return 0;
}

std::vector<std::string> Disk::list(const std::string& prefix) const {
  assert(on_owner_thread());
  std::vector<std::string> out;
  for (const auto& [name, id] : names_) {
    if (name.compare(0, prefix.size(), prefix) == 0) out.push_back(name);
  }
  return out;
}

void Disk::sync_directory() {
  assert(on_owner_thread());
  if (sync_lies_ && sync_lies_->empty() && !weakening::active(Weakening::kLyingSyncTellsTruth)) return;
  if (weakening::active(Weakening::kSyncPersistsNothing)) return;
  assert(names_resolve(names_, inodes_, next_id_));
  durable_names_ = names_;
}

int Disk::read(InodeId id, uint64_t offset, size_t len, void* buf) const {
  assert(on_owner_thread());
  assert(buf != nullptr || len == 0);
  assert(offset + len >= offset);  // no wrap-around past the range check below
  const Inode& node = inode(id);
  if (offset + len > node.current.size()) return EIO;  // a short read is an error to WiredTiger
  node.current.read(offset, len, buf);
  return 0;
}

int Disk::write(InodeId id, uint64_t offset, const void* buf, size_t len) {
  assert(on_owner_thread());
  assert(buf != nullptr || len == 0);
  assert(offset + len >= offset);  // no wrap-around
  if (len == 0) return 0;  // as pwrite(2): nothing written, the size unchanged, nothing pending
  Inode& node = inode(id);
  assert(!ghost_ || node.pending.empty());  // a ghost keeps no pending writes
  if (!room_to_grow(node, offset + len)) return ENOSPC;
  const auto* bytes = static_cast<const uint8_t*>(buf);
  apply_write(node.current, offset, bytes, len);
  assert(node.current.size() >= offset + len);
  if (ghost_) return 0;
  [[maybe_unused]] const size_t pending_before = node.pending.size();
  node.pending.push_back(PendingOp{false, offset, std::vector<uint8_t>(bytes, bytes + len)});
  assert(node.pending.size() == pending_before + 1 && node.pending.back().data.size() == len);
  return 0;
}

bool Disk::room_to_grow(const Inode& node, uint64_t end) {
  assert(&inode(node.id) == &node);  // one of this disk's files
  if (capacity_ == kUnlimited || weakening::active(Weakening::kFullDiskIgnored)) return true;
  const bool grows = end > node.current.size();
  if (!grows && !weakening::active(Weakening::kFullDiskRefusesOverwrites)) return true;
  uint64_t used = 0;
  std::set<InodeId> seen;
  for (const auto& [name, nid] : names_) {
    if (seen.insert(nid).second) used += inode(nid).current.size();
  }
  const uint64_t growth = grows ? end - node.current.size() : 0;
  assert(growth <= UINT64_MAX - used);  // the sum below does not wrap
  if (used + growth <= capacity_ && (grows || used < capacity_)) return true;
  ++enospc_returned_;
  return false;
}

int Disk::allocate(InodeId id, uint64_t size) {
  assert(on_owner_thread());
  Inode& node = inode(id);
  if (size <= node.current.size()) return 0;  // fallocate never shrinks
  if (!room_to_grow(node, size)) return ENOSPC;
  node.current.resize(size);
  assert(node.current.size() == size);
  if (ghost_) return 0;
  node.pending.push_back(PendingOp{true, size, {}});
  assert(node.pending.back().truncate && node.pending.back().offset == node.current.size());
  return 0;
}

int Disk::truncate(InodeId id, uint64_t size) {
  assert(on_owner_thread());
  Inode& node = inode(id);
  assert(!ghost_ || node.pending.empty());  // a ghost keeps no pending writes
  node.current.resize(size);
  assert(node.current.size() == size);
  if (ghost_) return 0;
  node.pending.push_back(PendingOp{true, size, {}});
  assert(node.pending.back().truncate && node.pending.back().offset == size);
  return 0;
}

uint64_t Disk::size(InodeId id) const {
  assert(on_owner_thread());
  return inode(id).current.size();
}

void Disk::sync(InodeId id) {
  assert(on_owner_thread());
  Inode& node = inode(id);
  assert(ghost_ ? node.pending.empty() : visible_is_durable_plus_pending(node));
  ++syncs_;
  const bool lies = sync_lies_ && lies_about(id) && !weakening::active(Weakening::kLyingSyncTellsTruth);
  if (ghost_ || lies || weakening::active(Weakening::kSyncPersistsNothing)) return;
  [[maybe_unused]] const uint64_t synced_size = size_after_pending(node);
  if (node.diverged) {
    for (const PendingOp& op : node.pending) apply_op(node.durable, op);
  } else {
    node.durable.sync_from(node.current);  // durable + pending == current
  }
  node.pending.clear();
  assert(node.durable.size() == synced_size);  // either way, the pending ops reached the image
  assert(node.diverged || node.durable.size() == node.current.size());
}

void Disk::set_sync_lies(const std::string& file_substring) {
  assert(on_owner_thread());
  sync_lies_ = file_substring;
}

bool Disk::lies_about(InodeId id) const {
  assert(sync_lies_.has_value());
  for (const auto& [name, nid] : names_) {
    if (nid == id && name.find(*sync_lies_) != std::string::npos) return true;
  }
  return false;
}

void Disk::drop_dirty(InodeId id) {
  assert(on_owner_thread());
  Inode& node = inode(id);
  assert(!ghost_ || node.pending.empty());  // a ghost keeps no pending writes
  if (weakening::active(Weakening::kFailedSyncKeepsDirty)) return;
  node.pending.clear();
  node.diverged = true;
}

std::unique_ptr<Disk> Disk::clone_visible() const {
  assert(on_owner_thread());
  auto copy = std::make_unique<Disk>();
  copy->ghost_ = true;
  copy->names_ = names_;
  copy->durable_names_ = names_;
  copy->next_id_ = next_id_;
  for (const auto& [name, id] : names_) {
    if (copy->inodes_.count(id) != 0) continue;
    auto node = std::make_unique<Inode>();
    node->id = id;
    node->current = inode(id).current;
    copy->inodes_.emplace(id, std::move(node));
  }
  // Removed-but-open files stay readable to their handles, as on POSIX.
  for (const auto& [id, node] : inodes_) {
    if (copy->inodes_.count(id) != 0) continue;
    auto orphan = std::make_unique<Inode>();
    orphan->id = id;
    orphan->current = node->current;
    copy->inodes_.emplace(id, std::move(orphan));
  }
  assert(copy->names_ == names_ && names_resolve(copy->names_, copy->inodes_, copy->next_id_));
  assert(same_visible_files(inodes_, copy->inodes_));  // O(chunks): the copy shares every chunk
  return copy;
}

namespace {

// torn_prefix: the first `keep` writes whole, then a whole-sector prefix of the next one.
void keep_torn_prefix(Inode& node, sim::Rng& rng, CrashFileReport& report) {
  const size_t n = node.pending.size();
  const size_t keep = static_cast<size_t>(rng.below(n + 1));
  assert(keep <= n);
  for (size_t i = 0; i < keep; ++i) apply_op(node.durable, node.pending[i]);
  report.kept_ops = keep;
  if (keep == n || node.pending[keep].truncate || weakening::active(Weakening::kTornNeverTears)) return;
  const PendingOp& torn = node.pending[keep];
  const uint64_t sectors = torn.data.size() / kSectorBytes;
  const uint64_t kept_bytes = rng.below(sectors + 1) * kSectorBytes;
  assert(kept_bytes <= torn.data.size() && kept_bytes % kSectorBytes == 0);
  apply_write(node.durable, torn.offset, torn.data.data(), kept_bytes);
  report.torn_bytes = kept_bytes;
}

// A weakened torn_prefix (the fault model's self-check): any subset of the writes, in any order.
void keep_any_subset(Inode& node, sim::Rng& rng, CrashFileReport& report) {
  for (const PendingOp& op : node.pending) {
    if (rng.chance(0.5)) apply_op(node.durable, op), ++report.kept_ops;
  }
}

// sector_damage: each 512-byte sector of the write (aligned to the file) survives or not.
void keep_damaged_sectors(Inode& node, const PendingOp& op, sim::Rng& rng, CrashFileReport& report) {
  if (op.truncate || weakening::active(Weakening::kSectorDamageWholeWrites)) {
    if (rng.chance(0.5)) apply_op(node.durable, op), ++report.kept_ops;
    return;
  }
  const uint64_t unit = weakening::active(Weakening::kSectorDamageHalfSectors) ? kSectorBytes / 2 : kSectorBytes;
  uint64_t pos = 0;
  while (pos < op.data.size()) {
    const uint64_t abs = op.offset + pos;
    const uint64_t chunk = std::min<uint64_t>(unit - abs % unit, op.data.size() - pos);
    // Never more than one sector, and a piece ends at a sector boundary or the write's end.
    assert(chunk > 0 && chunk <= unit);
    assert((abs + chunk) % unit == 0 || pos + chunk == op.data.size());
    if (rng.chance(0.5)) {
      apply_write(node.durable, abs, op.data.data() + pos, chunk);
      report.torn_bytes += chunk;
    }
    pos += chunk;
  }
}

}  // namespace

void Disk::apply_kept(Inode& node, CrashMode mode, sim::Rng& rng, CrashFileReport& report) {
  assert(report.kept_ops == 0 && report.torn_bytes == 0);
  assert(visible_is_durable_plus_pending(node));
  if (weakening::active(Weakening::kCrashKeepsUnsynced)) {
    for (const PendingOp& op : node.pending) apply_op(node.durable, op);
    node.pending.clear();
  }
  [[maybe_unused]] const uint64_t durable_before = node.durable.size();
  const size_t n = node.pending.size();
  report.pending_ops = n;
  switch (mode) {
    case CrashMode::kDropUnsynced:
      break;
    case CrashMode::kTornPrefix:
      if (weakening::active(Weakening::kTornKeepsAnySubset)) {
        keep_any_subset(node, rng, report);
      } else if (!weakening::active(Weakening::kTornKeepsNothing)) {
        keep_torn_prefix(node, rng, report);
      }
      break;
    case CrashMode::kSectorDamage:
      for (const PendingOp& op : node.pending) keep_damaged_sectors(node, op, rng, report);
      break;
  }
  node.pending.clear();
  node.current = node.durable;
  node.current.forget_written();
  node.durable.forget_written();
  node.diverged = false;
  report.durable_bytes = node.durable.size();
  assert(report.kept_ops <= report.pending_ops);
  assert(mode != CrashMode::kDropUnsynced || (report.kept_ops == 0 && report.torn_bytes == 0 &&
                                                report.durable_bytes == durable_before));
}

std::vector<CrashFileReport> Disk::crash(CrashMode mode, uint64_t seed) {
  assert(on_owner_thread());
  assert(!ghost_ && "a ghost never crashes");
  std::vector<CrashFileReport> reports;
  std::unordered_map<InodeId, std::unique_ptr<Inode>> survivors;
  for (const auto& [name, id] : durable_names_) {  // sorted by name: deterministic rng draws
    CrashFileReport report;
    report.name = name;
    if (survivors.count(id) == 0) {
      auto it = inodes_.find(id);
      assert(it != inodes_.end());
      sim::Rng rng(seed ^ sim::fnv1a64(name));
      apply_kept(*it->second, mode, rng, report);
      survivors.emplace(id, std::move(it->second));
      inodes_.erase(it);
    }
    reports.push_back(std::move(report));
  }
  inodes_ = std::move(survivors);
  names_ = durable_names_;
  assert(reports.size() == durable_names_.size() && inodes_.size() <= durable_names_.size());
  assert(names_resolve(names_, inodes_, next_id_));
  // O(chunks) per file: the visible image is a copy of the durable one.
  assert(std::all_of(inodes_.begin(), inodes_.end(),
                     [](const auto& entry) { return settled_after_crash(*entry.second); }));
  return reports;
}

bool Disk::flip_bit(const std::string& name, uint64_t offset, int bit) {
  assert(on_owner_thread());
  auto it = names_.find(name);
  if (it == names_.end()) return false;
  Inode& node = inode(it->second);
  if (node.durable.empty()) return false;
  offset %= node.durable.size();
  const auto mask = static_cast<uint8_t>(1u << (bit & 7));
  const bool durable = !weakening::active(Weakening::kBitFlipVolatile);
  if (durable) node.durable.flip_bit(offset, mask);
  if (offset < node.current.size()) node.current.flip_bit(offset, mask);
  if (!node.pending.empty() || !durable) node.diverged = true;  // a pending write may cover the flipped bit
  // A synced file's visible image is its durable one: the flip reaches both.
  assert(node.diverged || offset < node.current.size());
  return true;
}

uint64_t Disk::used_bytes() const {
  assert(on_owner_thread());
  uint64_t used = 0;
  std::set<InodeId> seen;
  for (const auto& [name, id] : names_) {
    if (seen.insert(id).second) used += inode(id).current.size();
  }
  return used;
}

void Disk::set_capacity(uint64_t bytes) {
  assert(on_owner_thread());
  capacity_ = bytes;
}

uint64_t Disk::capacity() const {
  assert(on_owner_thread());
  return capacity_;
}

std::vector<FileInfo> Disk::files() const {
  assert(on_owner_thread());
  std::vector<FileInfo> out;
  for (const auto& [name, id] : names_) {
    const Inode& node = inode(id);
    auto d = durable_names_.find(name);
    out.push_back({name, node.current.size(), node.durable.size(), node.pending.size(),
                   d != durable_names_.end() && d->second == id});
  }
  return out;
}

std::vector<uint8_t> Disk::durable_image(const std::string& name) const {
  assert(on_owner_thread());
  auto it = durable_names_.find(name);
  return it == durable_names_.end() ? std::vector<uint8_t>{} : inode(it->second).durable.bytes();
}

std::vector<uint8_t> Disk::visible_image(const std::string& name) const {
  assert(on_owner_thread());
  auto it = names_.find(name);
  return it == names_.end() ? std::vector<uint8_t>{} : inode(it->second).current.bytes();
}

}  // namespace wtsim::faults
