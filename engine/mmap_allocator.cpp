#include "engine/mmap_allocator.h"

#include <algorithm>

#include "sim/planted.h"
#include <cassert>

namespace wtsim::engine {
namespace {

constexpr uint64_t kExtentAlign = 4096;
constexpr uint64_t kExtentMin = 4096;
constexpr uint64_t kExtentMax = 0x7ff00000;
constexpr uint32_t kMinLeftoverBytes = 24;
constexpr uint32_t kBucketSizes[] = {32,       64,       128,      256,      512,      1024,    2048,
                                     4096,     8192,     16384,    32768,    65536,    131072,  262144,
                                     524288,   1048576,  2097152,  4194304,  8388608};

uint64_t align_up(uint64_t x, uint64_t a) { return (x + a - 1) / a * a; }

// 1.x rounds extent sizes down to 256 bytes (`& 0xffffff00`), 2.6 up to 4 KB.
uint64_t align_extent(uint64_t sz, MmapAllocator::PaddingRules rules) {
  return rules == MmapAllocator::PaddingRules::kV1x ? sz & ~uint64_t{0xff} : align_up(sz, kExtentAlign);
}

// 2.6 gives a new collection an extent of Extent::initialSize(128) bytes (128 * 64) when it makes
// it, whatever its first document needs.
constexpr uint64_t kFirstExtentBytesV26 = 8192;

// 2.6's quantizeAllocationSpace: a split record's length rounded up to a sixteenth of its bucket
// (256 KB from 4 MB): 33 -> 36, 1000 -> 1024, 10001 -> 10240, 100000 -> 106496.
uint32_t quantize_allocation_space(uint32_t n) {
  constexpr uint32_t kLargeBytes = 4u << 20;
  uint32_t bucket = 0;
  for (uint32_t size : kBucketSizes) {
    bucket = size;
    if (size > n) break;
  }
  const uint32_t unit = n >= kLargeBytes ? 256u << 10 : bucket / 16;
  assert(unit >= 2 && (unit & (unit - 1)) == 0);
  return n % unit == 0 ? n : (n | (unit - 1)) + 1;
}

uint64_t initial_extent_size(uint32_t length, MmapAllocator::PaddingRules rules) {
  const uint64_t sz = length < 1000 ? static_cast<uint64_t>(length) * 64 : static_cast<uint64_t>(length) * 16;
  return std::clamp(align_extent(sz, rules), kExtentMin, kExtentMax);
}

}  // namespace

int MmapAllocator::bucket_of(uint32_t length) {
  int b = 0;
  while (b + 1 < static_cast<int>(std::size(kBucketSizes)) && kBucketSizes[b] <= length) ++b;
  return b;
}

uint32_t MmapAllocator::allocation_size(uint32_t bson_bytes) const {
  const uint32_t len = bson_bytes + kRecordHeaderBytes;
  if (options_.no_padding) return len;
  if (options_.power_of_2_sizes) {
    for (uint32_t b = 32; b <= (4u << 20); b *= 2) {
      if (b > len) return b;
    }
    return static_cast<uint32_t>(align_up(len + 1, 1u << 20));
  }
  const auto padded = static_cast<uint32_t>(static_cast<double>(len) * padding_factor_);
  return static_cast<uint32_t>(align_up(std::max(padded, len), 4));
}

uint64_t MmapAllocator::next_extent_size(uint32_t length) const {
  const PaddingRules rules = options_.rules;
  if (extents_.empty()) return initial_extent_size(length, rules);
  const uint64_t last = extents_.back();
  const double late_growth = rules == PaddingRules::kV1x ? 1.2 : 1.35;
  const double grown = last < 4'000'000 ? static_cast<double>(last) * 4 : static_cast<double>(last) * late_growth;
  const uint64_t sz = std::max(initial_extent_size(length, rules), static_cast<uint64_t>(grown));
  const uint64_t out = std::clamp(align_extent(sz, rules), kExtentMin, kExtentMax);
  assert(out >= kExtentMin && out - kExtentHeaderBytes >= std::min<uint64_t>(length, kExtentMax - kExtentHeaderBytes));
  return out;
}

void MmapAllocator::insert_free(const Region& r) { free_[bucket_of(r.length)].insert({r.length, r.loc.packed()}); }

void MmapAllocator::erase_free(const Region& r) {
  auto it = free_.find(bucket_of(r.length));
  assert(it != free_.end());
  const size_t erased = it->second.erase({r.length, r.loc.packed()});
  assert(erased == 1);
  (void)erased;
}

void MmapAllocator::journal(Undo::Kind kind, const Region& r) {
  if (in_unit_) undo_.push_back({kind, r});
}

void MmapAllocator::begin() {
  assert(!in_unit_);
  in_unit_ = true;
  undo_.clear();
  saved_padding_factor_ = padding_factor_;
  saved_fits_calls_ = fits_calls_;
  saved_too_small_calls_ = too_small_calls_;
}

void MmapAllocator::commit() {
  assert(in_unit_);
  in_unit_ = false;
  undo_.clear();
}

void MmapAllocator::rollback() {
  assert(in_unit_);
  for (auto it = undo_.rbegin(); it != undo_.rend(); ++it) {
    switch (it->kind) {
      case Undo::kReinsertFree: insert_free(it->region); break;
      case Undo::kEraseFree: erase_free(it->region); break;
      case Undo::kPopExtent: extents_.pop_back(); break;
    }
  }
  padding_factor_ = saved_padding_factor_;
  fits_calls_ = saved_fits_calls_;
  too_small_calls_ = saved_too_small_calls_;
  in_unit_ = false;
  undo_.clear();
}

Region MmapAllocator::carve(const Region& region, uint32_t length, std::vector<Region>* added) {
  assert(region.length >= length);
  if (region.length - length < kMinLeftoverBytes || region.length - length < length / 8) return region;  // take it whole
  if (options_.rules == PaddingRules::kV26 && !options_.no_padding) {  // 2.6 splits off a quantized record
    length = std::min(region.length, quantize_allocation_space(length));
    if (region.length - length < kMinLeftoverBytes) return region;
  }
  const uint32_t leftover = region.length - length;
  Region rest{{region.loc.extent, region.loc.offset + length}, leftover};
  insert_free(rest);
  journal(Undo::kEraseFree, rest);
  if (added != nullptr) added->push_back(rest);
  return Region{region.loc, length};
}

Region MmapAllocator::allocate(uint32_t length, std::vector<uint64_t>* new_extents, std::vector<Region>* taken,
                               std::vector<Region>* added) {
  length = static_cast<uint32_t>(align_up(length, 4));
  if (extents_.empty() && options_.rules == PaddingRules::kV26) {
    // The collection's first extent, which 2.6 made with the collection: the record goes there
    // if it fits, else the extent's space waits on the free list.
    extents_.push_back(kFirstExtentBytesV26);
    journal(Undo::kPopExtent, {});
    if (new_extents != nullptr) new_extents->push_back(kFirstExtentBytesV26);
    const Region whole{{0, kExtentHeaderBytes}, static_cast<uint32_t>(kFirstExtentBytesV26 - kExtentHeaderBytes)};
    if (whole.length >= length) return carve(whole, length, added);
    insert_free(whole);
    journal(Undo::kEraseFree, whole);
    if (added != nullptr) added->push_back(whole);
  }
  for (auto it = free_.lower_bound(bucket_of(length)); it != free_.end(); ++it) {
    auto fit = it->second.lower_bound({length, 0});  // best fit within the bucket
    if (fit == it->second.end()) continue;
    const Region region{RecordLoc::unpack(fit->second), fit->first};
    it->second.erase(fit);
    journal(Undo::kReinsertFree, region);
    if (taken != nullptr) taken->push_back(region);
    return carve(region, length, added);
  }
  const uint64_t size = next_extent_size(length);
  assert(size - kExtentHeaderBytes >= length && "a record larger than an extent");
  extents_.push_back(size);
  journal(Undo::kPopExtent, {});
  if (new_extents != nullptr) new_extents->push_back(size);
  const Region whole{{static_cast<uint32_t>(extents_.size() - 1), kExtentHeaderBytes},
                     static_cast<uint32_t>(size - kExtentHeaderBytes)};
  return carve(whole, length, added);
}

void MmapAllocator::release(const Region& freed) {
  Region record = freed;
  if (planted::active(planted::Bug::kFreedRecordTooLong)) record.length += kRecordHeaderBytes;
  insert_free(record);  // MMAPv1 does not coalesce free records
  journal(Undo::kEraseFree, record);
}

void MmapAllocator::padding_fits() {
  const bool v1x = options_.rules == PaddingRules::kV1x;
  if (!v1x && ++fits_calls_ % 4 != 0) return;
  const double step = v1x ? 0.01 : 0.001;
  if (padding_factor_ - step >= kPaddingMin) padding_factor_ -= step;
  assert(padding_factor_ >= kPaddingMin);
}

void MmapAllocator::padding_too_small(int indexes) {
  assert(indexes >= 0);
  const bool v1x = options_.rules == PaddingRules::kV1x;
  if (!v1x && ++too_small_calls_ % 4 != 0) return;
  const double step = v1x ? 0.6 : 0.001 * (std::min(indexes, 7) + 3);
  if (padding_factor_ + step <= kPaddingMax || planted::active(planted::Bug::kPaddingUnclamped)) padding_factor_ += step;
}

std::vector<Region> MmapAllocator::free_regions() const {
  std::vector<Region> out;
  for (const auto& [bucket, regions] : free_) {
    for (const auto& [length, packed] : regions) out.push_back({RecordLoc::unpack(packed), length});
  }
  std::sort(out.begin(), out.end(), [](const Region& a, const Region& b) { return a.loc < b.loc; });
  return out;
}

uint64_t MmapAllocator::storage_bytes() const {
  uint64_t total = 0;
  for (uint64_t e : extents_) total += e;
  return total;
}

uint32_t MmapAllocator::append_to_record_list(uint32_t extent) {
  assert(extent < extents_.size());
  if (record_list_next_.size() <= extent) record_list_next_.resize(extent + 1, 0);
  assert(record_list_next_[extent] < UINT32_MAX);
  return record_list_next_[extent]++;
}

void MmapAllocator::restore_record_list(uint32_t extent, uint32_t next_place) {
  assert(extent < extents_.size());
  if (record_list_next_.size() <= extent) record_list_next_.resize(extent + 1, 0);
  record_list_next_[extent] = next_place;
}

void MmapAllocator::restore(std::vector<uint64_t> extents, const std::vector<Region>& free, double padding_factor) {
  extents_ = std::move(extents);
  record_list_next_.assign(extents_.size(), 0);
  free_.clear();
  for (const Region& r : free) insert_free(r);
  padding_factor_ = padding_factor;
}

}  // namespace wtsim::engine
