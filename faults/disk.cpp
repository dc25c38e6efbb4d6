#include "faults/disk.h"

#include <algorithm>
#include <cassert>
#include <cerrno>
#include <cstring>
#include <set>

namespace wtsim::faults {
namespace {

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

}  // namespace

Inode& Disk::inode(InodeId id) {
  auto it = inodes_.find(id);
  assert(it != inodes_.end());
  return *it->second;
}

const Inode& Disk::inode(InodeId id) const {
  auto it = inodes_.find(id);
  assert(it != inodes_.end());
  return *it->second;
}

bool Disk::exists(const std::string& name) const {
  std::lock_guard lock(mu_);
  return names_.count(name) != 0;
}

InodeId Disk::open(const std::string& name, bool create, bool durable_entry) {
  std::lock_guard lock(mu_);
  auto it = names_.find(name);
  if (it != names_.end()) return it->second;
  if (!create) return 0;
  const InodeId id = next_id_++;
  auto node = std::make_unique<Inode>();
  node->id = id;
  inodes_.emplace(id, std::move(node));
  names_[name] = id;
  if (durable_entry) durable_names_[name] = id;
  return id;
}

int Disk::remove(const std::string& name, bool durable) {
  std::lock_guard lock(mu_);
  if (names_.erase(name) == 0) return ENOENT;
  if (durable) durable_names_.erase(name);
  return 0;
}

int Disk::rename(const std::string& from, const std::string& to, bool durable) {
  std::lock_guard lock(mu_);
  auto it = names_.find(from);
  if (it == names_.end()) return ENOENT;
  const InodeId id = it->second;
  names_.erase(it);
  names_[to] = id;
  if (durable) {
    auto d = durable_names_.find(from);
    if (d != durable_names_.end() && d->second == id) durable_names_.erase(d);
    durable_names_[to] = id;
  }
  return 0;
}

std::vector<std::string> Disk::list(const std::string& prefix) const {
  std::lock_guard lock(mu_);
  std::vector<std::string> out;
  for (const auto& [name, id] : names_) {
    if (name.compare(0, prefix.size(), prefix) == 0) out.push_back(name);
  }
  return out;
}

void Disk::sync_directory() {
  std::lock_guard lock(mu_);
  if (sync_lies_ && sync_lies_->empty()) return;
  durable_names_ = names_;
}

int Disk::read(InodeId id, uint64_t offset, size_t len, void* buf) const {
  std::lock_guard lock(mu_);
  const Inode& node = inode(id);
  if (offset + len > node.current.size()) return EIO;  // a short read is an error to WiredTiger
  node.current.read(offset, len, buf);
  return 0;
}

int Disk::write(InodeId id, uint64_t offset, const void* buf, size_t len) {
  std::lock_guard lock(mu_);
  Inode& node = inode(id);
  if (!room_to_grow(node, offset + len)) return ENOSPC;
  const auto* bytes = static_cast<const uint8_t*>(buf);
  apply_write(node.current, offset, bytes, len);
  if (ghost_) return 0;
  node.pending.push_back(PendingOp{false, offset, std::vector<uint8_t>(bytes, bytes + len)});
  return 0;
}

bool Disk::room_to_grow(const Inode& node, uint64_t end) {
  if (capacity_ == kUnlimited || end <= node.current.size()) return true;
  uint64_t used = 0;
  std::set<InodeId> seen;
  for (const auto& [name, nid] : names_) {
    if (seen.insert(nid).second) used += inode(nid).current.size();
  }
  if (used + (end - node.current.size()) <= capacity_) return true;
  ++enospc_returned_;
  return false;
}

int Disk::allocate(InodeId id, uint64_t size) {
  std::lock_guard lock(mu_);
  Inode& node = inode(id);
  if (size <= node.current.size()) return 0;  // fallocate never shrinks
  if (!room_to_grow(node, size)) return ENOSPC;
  node.current.resize(size);
  assert(node.current.size() == size);
  if (ghost_) return 0;
  node.pending.push_back(PendingOp{true, size, {}});
  return 0;
}

int Disk::truncate(InodeId id, uint64_t size) {
  std::lock_guard lock(mu_);
  Inode& node = inode(id);
  node.current.resize(size);
  if (ghost_) return 0;
  node.pending.push_back(PendingOp{true, size, {}});
  return 0;
}

uint64_t Disk::size(InodeId id) const {
  std::lock_guard lock(mu_);
  return inode(id).current.size();
}

void Disk::sync(InodeId id) {
  std::lock_guard lock(mu_);
  Inode& node = inode(id);
  ++syncs_;
  if (ghost_ || (sync_lies_ && lies_about(id))) return;
  if (node.diverged) {
    for (const PendingOp& op : node.pending) apply_op(node.durable, op);
  } else {
    node.durable.sync_from(node.current);  // durable + pending == current
  }
  node.pending.clear();
}

void Disk::set_sync_lies(const std::string& file_substring) {
  std::lock_guard lock(mu_);
  sync_lies_ = file_substring;
}

bool Disk::lies_about(InodeId id) const {
  for (const auto& [name, nid] : names_) {
    if (nid == id && name.find(*sync_lies_) != std::string::npos) return true;
  }
  return false;
}

void Disk::drop_dirty(InodeId id) {
  std::lock_guard lock(mu_);
  Inode& node = inode(id);
  node.pending.clear();
  node.diverged = true;
}

std::unique_ptr<Disk> Disk::clone_visible() const {
  std::lock_guard lock(mu_);
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
  return copy;
}

void Disk::apply_kept(Inode& node, CrashMode mode, sim::Rng& rng, CrashFileReport& report) {
  const size_t n = node.pending.size();
  report.pending_ops = n;
  switch (mode) {
    case CrashMode::kDropUnsynced:
      break;
    case CrashMode::kTornPrefix: {
      const size_t keep = static_cast<size_t>(rng.below(n + 1));
      for (size_t i = 0; i < keep; ++i) apply_op(node.durable, node.pending[i]);
      report.kept_ops = keep;
      if (keep < n && !node.pending[keep].truncate) {
        const PendingOp& torn = node.pending[keep];
        const uint64_t sectors = torn.data.size() / kSectorBytes;
        const uint64_t kept_bytes = rng.below(sectors + 1) * kSectorBytes;
        apply_write(node.durable, torn.offset, torn.data.data(), kept_bytes);
        report.torn_bytes = kept_bytes;
      }
      break;
    }
    case CrashMode::kSectorDamage:
      for (const PendingOp& op : node.pending) {
        if (op.truncate) {
          if (rng.chance(0.5)) apply_op(node.durable, op), ++report.kept_ops;
          continue;
        }
        uint64_t pos = 0;
        while (pos < op.data.size()) {
          // Sectors are aligned to absolute file offsets.
          const uint64_t abs = op.offset + pos;
          const uint64_t chunk = std::min<uint64_t>(kSectorBytes - abs % kSectorBytes,
                                                    op.data.size() - pos);
          if (rng.chance(0.5)) {
            apply_write(node.durable, abs, op.data.data() + pos, chunk);
            report.torn_bytes += chunk;
          }
          pos += chunk;
        }
      }
      break;
  }
  node.pending.clear();
  node.current = node.durable;
  node.current.forget_written();
  node.durable.forget_written();
  node.diverged = false;
  report.durable_bytes = node.durable.size();
}

std::vector<CrashFileReport> Disk::crash(CrashMode mode, uint64_t seed) {
  std::lock_guard lock(mu_);
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
  return reports;
}

bool Disk::flip_bit(const std::string& name, uint64_t offset, int bit) {
  std::lock_guard lock(mu_);
  auto it = names_.find(name);
  if (it == names_.end()) return false;
  Inode& node = inode(it->second);
  if (node.durable.empty()) return false;
  offset %= node.durable.size();
  const auto mask = static_cast<uint8_t>(1u << (bit & 7));
  node.durable.flip_bit(offset, mask);
  if (offset < node.current.size()) node.current.flip_bit(offset, mask);
  if (!node.pending.empty()) node.diverged = true;  // a pending write may cover the flipped bit
  return true;
}

uint64_t Disk::used_bytes() const {
  std::lock_guard lock(mu_);
  uint64_t used = 0;
  std::set<InodeId> seen;
  for (const auto& [name, id] : names_) {
    if (seen.insert(id).second) used += inode(id).current.size();
  }
  return used;
}

void Disk::set_capacity(uint64_t bytes) {
  std::lock_guard lock(mu_);
  capacity_ = bytes;
}

uint64_t Disk::capacity() const {
  std::lock_guard lock(mu_);
  return capacity_;
}

std::vector<FileInfo> Disk::files() const {
  std::lock_guard lock(mu_);
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
  std::lock_guard lock(mu_);
  auto it = durable_names_.find(name);
  return it == durable_names_.end() ? std::vector<uint8_t>{} : inode(it->second).durable.bytes();
}

std::vector<uint8_t> Disk::visible_image(const std::string& name) const {
  std::lock_guard lock(mu_);
  auto it = names_.find(name);
  return it == names_.end() ? std::vector<uint8_t>{} : inode(it->second).current.bytes();
}

}  // namespace wtsim::faults
