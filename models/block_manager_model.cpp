#include "models/block_manager_model.h"

#include <algorithm>
#include <cassert>
#include <iterator>
#include <sstream>
#include <stdexcept>

namespace wtsim::models {
namespace {

std::string describe(uint64_t offset_bytes, uint64_t size_bytes) {
  std::ostringstream os;
  os << Extent{offset_bytes, size_bytes};
  return os.str();
}

std::string describe(const ExtentList& list) {
  std::ostringstream os;
  os << list;
  return os.str();
}

// The first few ranges are enough to locate a problem; a whole list would drown the message.
std::string head(const ExtentList& list) {
  constexpr size_t kShownRanges = 4;
  ExtentList shown;
  for (const Extent& e : list.ranges()) {
    if (shown.range_count() == kShownRanges) break;
    shown.insert(e.offset_bytes, e.size_bytes);
  }
  return describe(shown) + (list.range_count() > kShownRanges ? "..." : "");
}

void expect_disjoint(std::vector<std::string>& problems, const std::string& name_a, const ExtentList& a,
                     const std::string& name_b, const ExtentList& b) {
  const ExtentList both = a.intersection(b);
  if (!both.empty()) problems.push_back(name_a + " and " + name_b + " overlap at " + head(both));
}

void expect_aligned_inside(std::vector<std::string>& problems, const std::string& name, const ExtentList& list,
                           uint64_t allocsize_bytes, uint64_t low_bytes, uint64_t high_bytes) {
  for (const Extent& e : list.ranges()) {
    if (e.offset_bytes % allocsize_bytes != 0 || e.size_bytes % allocsize_bytes != 0) {
      problems.push_back(name + " range " + describe(e.offset_bytes, e.size_bytes) + " is not allocsize-aligned");
    }
    if (e.offset_bytes < low_bytes || e.end_bytes() > high_bytes) {
      problems.push_back(name + " range " + describe(e.offset_bytes, e.size_bytes) + " is outside [" +
                         std::to_string(low_bytes) + ", " + std::to_string(high_bytes) + ")");
    }
  }
}

// A disjoint merge that reports instead of throwing, for the checker.
bool try_merge(ExtentList& into, const ExtentList& from) {
  if (into.overlaps(from)) return false;
  into.merge(from);
  return true;
}

bool every_file(const std::map<std::string, FileBlocks>& files,
                bool (FileBlocks::*property)() const, bool value) {
  for (const auto& [name, blocks] : files) {
    if ((blocks.*property)() != value) return false;
  }
  return true;
}

}  // namespace

std::ostream& operator<<(std::ostream& os, const Extent& e) {
  return os << "[" << e.offset_bytes << ", " << e.end_bytes() << ")";
}

std::ostream& operator<<(std::ostream& os, const ExtentList& list) {
  os << "{";
  const char* separator = "";
  for (const Extent& e : list.ranges()) os << separator << e, separator = " ";
  return os << "}";
}

// ---------------------------------------------------------------------------------------------
// ExtentList

void ExtentList::insert(uint64_t offset_bytes, uint64_t size_bytes) {
  if (size_bytes == 0) throw std::invalid_argument("ExtentList::insert: empty range");
  if (overlaps(offset_bytes, size_bytes)) {
    throw std::invalid_argument("ExtentList::insert: " + describe(offset_bytes, size_bytes) + " overlaps " +
                                describe(*this));
  }
  uint64_t start = offset_bytes, end = offset_bytes + size_bytes;
  auto after = end_by_offset_.upper_bound(start);
  if (after != end_by_offset_.begin()) {
    auto before = std::prev(after);
    if (before->second == start) start = before->first, end_by_offset_.erase(before);  // coalesce left
  }
  if (auto next = end_by_offset_.find(end); next != end_by_offset_.end()) {
    end = next->second, end_by_offset_.erase(next);  // coalesce right
  }
  [[maybe_unused]] const auto [at, inserted] = end_by_offset_.emplace(start, end);
  total_bytes_ += size_bytes;
  // The new range absorbed its neighbours: it touches neither the one before nor the one after.
  assert(inserted && start <= offset_bytes && end >= offset_bytes + size_bytes);
  assert(at == end_by_offset_.begin() || std::prev(at)->second < start);
  assert(std::next(at) == end_by_offset_.end() || std::next(at)->first > end);
}

void ExtentList::remove(uint64_t offset_bytes, uint64_t size_bytes) {
  if (size_bytes == 0 || !contains(offset_bytes, size_bytes)) {
    throw std::invalid_argument("ExtentList::remove: " + describe(offset_bytes, size_bytes) + " is not in " +
                                describe(*this));
  }
  auto holder = std::prev(end_by_offset_.upper_bound(offset_bytes));
  const uint64_t start = holder->first, end = holder->second, cut_end = offset_bytes + size_bytes;
  assert(start <= offset_bytes && cut_end <= end);  // one stored range holds the whole cut
  end_by_offset_.erase(holder);
  if (start < offset_bytes) end_by_offset_.emplace(start, offset_bytes);
  if (cut_end < end) end_by_offset_.emplace(cut_end, end);
  total_bytes_ -= size_bytes;
  assert(!overlaps(offset_bytes, size_bytes));
}

bool ExtentList::contains(uint64_t offset_bytes, uint64_t size_bytes) const {
  assert(offset_bytes + size_bytes >= offset_bytes);  // no wrap-around
  auto after = end_by_offset_.upper_bound(offset_bytes);
  if (after == end_by_offset_.begin()) return false;
  // Coalescing means a contained range lies within a single stored range.
  const bool contained = std::prev(after)->second >= offset_bytes + size_bytes;
  assert(!contained || size_bytes == 0 || overlaps(offset_bytes, size_bytes));
  return contained;
}

bool ExtentList::contains(const ExtentList& other) const {
  for (const auto& [start, end] : other.end_by_offset_) {
    if (!contains(start, end - start)) return false;
  }
  return true;
}

bool ExtentList::overlaps(uint64_t offset_bytes, uint64_t size_bytes) const {
  if (size_bytes == 0) return false;
  auto after = end_by_offset_.upper_bound(offset_bytes);
  if (after != end_by_offset_.end() && after->first < offset_bytes + size_bytes) return true;
  return after != end_by_offset_.begin() && std::prev(after)->second > offset_bytes;
}

bool ExtentList::overlaps(const ExtentList& other) const { return !intersection(other).empty(); }

ExtentList ExtentList::intersection(const ExtentList& other) const {
  ExtentList both;
  auto a = end_by_offset_.begin(), b = other.end_by_offset_.begin();
  while (a != end_by_offset_.end() && b != other.end_by_offset_.end()) {
    const uint64_t start = std::max(a->first, b->first), end = std::min(a->second, b->second);
    if (start < end) both.insert(start, end - start);
    // Advance whichever range ends first; the other may still overlap the next one.
    if (a->second < b->second)
      ++a;
    else
      ++b;
  }
  assert(both.total_bytes() <= std::min(total_bytes_, other.total_bytes_));
  assert(both.well_formed());
  return both;
}

void ExtentList::merge(const ExtentList& other) {
  if (overlaps(other)) {
    throw std::invalid_argument("ExtentList::merge: " + describe(other) + " overlaps " + describe(*this));
  }
  [[maybe_unused]] const uint64_t total_before = total_bytes_;
  for (const auto& [start, end] : other.end_by_offset_) insert(start, end - start);
  assert(total_bytes_ == total_before + other.total_bytes_);
  assert(well_formed());
}

void ExtentList::unite(const ExtentList& other) {
  [[maybe_unused]] const uint64_t total_before = total_bytes_;
  ExtentList missing = other;
  missing.subtract(other.intersection(*this));
  merge(missing);
  assert(contains(other) && total_bytes_ >= std::max(total_before, other.total_bytes_));
}

void ExtentList::subtract(const ExtentList& other) {
  [[maybe_unused]] const uint64_t total_before = total_bytes_;
  for (const auto& [start, end] : other.end_by_offset_) remove(start, end - start);
  assert(total_bytes_ + other.total_bytes_ == total_before);
  assert(well_formed());
}

std::optional<Extent> ExtentList::best_fit(uint64_t size_bytes) const {
  std::optional<Extent> best;
  for (const auto& [start, end] : end_by_offset_) {
    // Strictly smaller only: among equal sizes the lowest offset wins, like the by-size skiplist.
    if (end - start >= size_bytes && (!best || end - start < best->size_bytes)) best = Extent{start, end - start};
  }
  assert(!best ||
         (best->size_bytes >= size_bytes && contains(best->offset_bytes, best->size_bytes)));
  return best;
}

std::optional<Extent> ExtentList::last() const {
  if (end_by_offset_.empty()) return std::nullopt;
  const auto& [start, end] = *end_by_offset_.rbegin();
  return Extent{start, end - start};
}

std::vector<Extent> ExtentList::ranges() const {
  std::vector<Extent> out;
  out.reserve(end_by_offset_.size());
  for (const auto& [start, end] : end_by_offset_) out.push_back({start, end - start});
  return out;
}

void ExtentList::clear() {
  end_by_offset_.clear();
  total_bytes_ = 0;
}

bool ExtentList::well_formed() const {
  uint64_t sum = 0, previous_end = 0;
  for (const auto& [start, end] : end_by_offset_) {
    if (start >= end || (sum > 0 && start <= previous_end)) return false;
    sum += end - start;
    previous_end = end;
  }
  return sum == total_bytes_;
}

// ---------------------------------------------------------------------------------------------
// FileBlocks: operations

FileBlocks::FileBlocks(uint64_t allocsize_bytes)
    : allocsize_bytes_(allocsize_bytes), file_bytes_(allocsize_bytes), physical_bytes_(allocsize_bytes) {
  if (allocsize_bytes == 0) throw std::invalid_argument("FileBlocks: allocsize must be positive");
}

uint64_t FileBlocks::round_up(uint64_t size_bytes) const {
  assert(size_bytes <= UINT64_MAX - (allocsize_bytes_ - 1));  // no wrap-around
  const uint64_t rounded_bytes =
      (size_bytes + allocsize_bytes_ - 1) / allocsize_bytes_ * allocsize_bytes_;
  assert(rounded_bytes % allocsize_bytes_ == 0 && rounded_bytes >= size_bytes &&
         rounded_bytes - size_bytes < allocsize_bytes_);
  return rounded_bytes;
}

uint64_t FileBlocks::extend(uint64_t size_bytes) {
  assert(size_bytes > 0 && size_bytes % allocsize_bytes_ == 0);
  const uint64_t offset_bytes = file_bytes_;
  file_bytes_ += size_bytes;
  // After a truncation that skipped ftruncate (pinned), the physical file is already longer.
  physical_bytes_ = std::max(physical_bytes_, file_bytes_);
  ++extending_allocations_;
  assert(offset_bytes % allocsize_bytes_ == 0 && offset_bytes >= allocsize_bytes_);
  assert(physical_bytes_ >= file_bytes_);
  return offset_bytes;
}

uint64_t FileBlocks::allocate(uint64_t size_bytes) {
  const uint64_t rounded_bytes = round_up(size_bytes);
  if (rounded_bytes == 0) throw std::invalid_argument("FileBlocks::allocate: zero bytes");
  [[maybe_unused]] const uint64_t in_use_before = in_use_.total_bytes();
  uint64_t offset_bytes = 0;
  if (auto fit = avail_.best_fit(rounded_bytes)) {
    offset_bytes = fit->offset_bytes;  // take from the start of the range
    avail_.remove(offset_bytes, rounded_bytes);
  } else {
    offset_bytes = extend(rounded_bytes);
  }
  alloc_.insert(offset_bytes, rounded_bytes);
  in_use_.insert(offset_bytes, rounded_bytes);
  // Past the description block, inside the file, and no longer allocatable.
  assert(offset_bytes % allocsize_bytes_ == 0 && offset_bytes >= allocsize_bytes_);
  assert(offset_bytes + rounded_bytes <= file_bytes_);
  assert(!avail_.overlaps(offset_bytes, rounded_bytes));
  assert(in_use_.total_bytes() == in_use_before + rounded_bytes);
  return offset_bytes;
}

void FileBlocks::free(uint64_t offset_bytes, uint64_t size_bytes) {
  const uint64_t rounded_bytes = round_up(size_bytes);
  for (const auto& [page, block] : block_by_page_) {
    if (block.offset_bytes < offset_bytes + rounded_bytes && offset_bytes < block.end_bytes()) {
      throw std::invalid_argument("FileBlocks::free: " + describe(offset_bytes, rounded_bytes) + " holds page " +
                                  std::to_string(page) + "; pages are freed by rewrite()");
    }
  }
  release_block(offset_bytes, rounded_bytes);
  assert(!in_use_.overlaps(offset_bytes, rounded_bytes));
}

// __wt_block_off_free: what was allocated since the last checkpoint is referenced by no checkpoint,
// so it is free at once; anything older is still needed by the last checkpoint and waits in discard.
// A range straddling both (the model allows freeing adjacent blocks together) is split.
void FileBlocks::release_block(uint64_t offset_bytes, uint64_t size_bytes) {
  if (size_bytes == 0 || !in_use_.contains(offset_bytes, size_bytes)) {
    throw std::invalid_argument("FileBlocks::free: " + describe(offset_bytes, size_bytes) + " is not in use");
  }
  [[maybe_unused]] const uint64_t alloc_before = alloc_.total_bytes();
  [[maybe_unused]] const uint64_t avail_before = avail_.total_bytes();
  [[maybe_unused]] const uint64_t discard_before = discard_.total_bytes();
  in_use_.remove(offset_bytes, size_bytes);
  ExtentList freed;
  freed.insert(offset_bytes, size_bytes);
  const ExtentList fresh = freed.intersection(alloc_);
  alloc_.subtract(fresh);
  avail_.merge(fresh);
  freed.subtract(fresh);
  discard_.merge(freed);
  // Every freed byte went to exactly one place: avail if this checkpoint allocated it (leaving
  // alloc), discard otherwise.
  assert(avail_.total_bytes() - avail_before == alloc_before - alloc_.total_bytes());
  assert((avail_.total_bytes() - avail_before) + (discard_.total_bytes() - discard_before) ==
         size_bytes);
}

void FileBlocks::checkpoint() {
  if (resolve_pending_) throw std::logic_error("FileBlocks::checkpoint: previous checkpoint not resolved");
  // Nothing is left over from the previous checkpoint's deletions (resolve() took them).
  assert(ckpt_avail_.empty() && deleted_unresolved_referenced_.empty());
  [[maybe_unused]] const size_t count_before = checkpoints_.size();
  CheckpointBlocks next{next_checkpoint_number_++, alloc_, discard_, in_use_};
  alloc_.clear();
  discard_.clear();
  if (!pinned_) delete_checkpoints_into(next);
  checkpoints_.push_back(std::move(next));
  truncate_avail_at_eof();
  resolve_pending_ = true;
  // Pinned, every checkpoint stays; unpinned, the new one replaces them all.
  assert(checkpoints_.size() == (pinned_ ? count_before + 1 : 1));
  assert(checkpoints_.size() < 2 ||
         checkpoints_[checkpoints_.size() - 2].number < checkpoints_.back().number);
}

// __ckpt_process with MongoDB's pattern: every older checkpoint is deleted, oldest first, each rolled
// into the one after it, the last into the new one. Only then do the merged alloc and discard lists
// meet: a range on both was written by a deleted checkpoint and freed since, so no kept checkpoint
// needs it. It becomes allocatable only at resolve(), once the new checkpoint is durable.
void FileBlocks::delete_checkpoints_into(CheckpointBlocks& next) {
  assert(!pinned_);  // a backup pin blocks every deletion
  ExtentList merged_alloc, merged_discard;
  for (const CheckpointBlocks& deleted : checkpoints_) {
    merged_alloc.merge(deleted.alloc);  // disjoint: a block is reused only after leaving every list
    merged_discard.merge(deleted.discard);
    deleted_unresolved_referenced_.unite(deleted.referenced);
  }
  checkpoints_.clear();
  next.alloc.merge(merged_alloc);
  next.discard.merge(merged_discard);
  const ExtentList reusable = next.alloc.intersection(next.discard);
  next.alloc.subtract(reusable);
  next.discard.subtract(reusable);
  ckpt_avail_.merge(reusable);
  assert(!next.alloc.overlaps(next.discard));  // what both listed is now ckpt_avail's
}

// __wt_block_extlist_truncate: free space at the end of the file is given back. The block size
// always shrinks; the physical ftruncate is skipped while a backup may be copying the file.
void FileBlocks::truncate_avail_at_eof() {
  const std::optional<Extent> tail = avail_.last();
  if (!tail || tail->end_bytes() != file_bytes_) return;
  avail_.remove(tail->offset_bytes, tail->size_bytes);
  file_bytes_ = tail->offset_bytes;
  if (!pinned_) physical_bytes_ = file_bytes_;
  // The description block stays, and ranges coalesce: no free range is left at the new end.
  assert(file_bytes_ >= allocsize_bytes_ && physical_bytes_ >= file_bytes_);
  assert(!avail_.last() || avail_.last()->end_bytes() < file_bytes_);
}

void FileBlocks::resolve() {
  if (!resolve_pending_) throw std::logic_error("FileBlocks::resolve: no checkpoint in progress");
  [[maybe_unused]] const uint64_t reclaimable_bytes =
      avail_.total_bytes() + ckpt_avail_.total_bytes();
  avail_.merge(ckpt_avail_);
  ckpt_avail_.clear();
  deleted_unresolved_referenced_.clear();
  resolve_pending_ = false;
  assert(avail_.total_bytes() == reclaimable_bytes);  // ckpt_avail moved to avail, whole
}

void FileBlocks::checkpoint_and_resolve() {
  checkpoint();
  resolve();
}

void FileBlocks::pin() {
  if (resolve_pending_) resolve();
  pinned_ = true;
  // Pinned with nothing pending: nothing a deleted checkpoint held is waiting to become free.
  assert(ckpt_avail_.empty() && deleted_unresolved_referenced_.empty());
}

void FileBlocks::unpin() { pinned_ = false; }

void FileBlocks::rewrite(uint64_t n_pages, uint64_t page_bytes) {
  for (uint64_t page = 0; page < n_pages; ++page) {
    const uint64_t size_bytes = round_up(page_bytes);
    const uint64_t offset_bytes = allocate(size_bytes);  // the new image is written first
    auto [it, created] = block_by_page_.try_emplace(page, Extent{offset_bytes, size_bytes});
    if (created) continue;
    const Extent old = it->second;
    it->second = Extent{offset_bytes, size_bytes};
    release_block(old.offset_bytes, old.size_bytes);
    // Copy-on-write: the new block was taken while the old one was in use, so they are apart.
    assert(in_use_.contains(offset_bytes, size_bytes));
    assert(!in_use_.overlaps(old.offset_bytes, old.size_bytes));
  }
  assert(block_by_page_.size() >= n_pages);
  assert(n_pages == 0 || block_by_page_.count(n_pages - 1) == 1);
}

ListTotals FileBlocks::totals() const {
  return {alloc_.total_bytes(), avail_.total_bytes(), discard_.total_bytes(), ckpt_avail_.total_bytes(),
          in_use_.total_bytes()};
}

void FileBlocks::inject_for_test(ListKind list, uint64_t offset_bytes, uint64_t size_bytes) {
  switch (list) {
    case ListKind::kAlloc:
      alloc_.insert(offset_bytes, size_bytes);
      break;
    case ListKind::kAvail:
      avail_.insert(offset_bytes, size_bytes);
      break;
    case ListKind::kDiscard:
      discard_.insert(offset_bytes, size_bytes);
      break;
    case ListKind::kCkptAvail:
      ckpt_avail_.insert(offset_bytes, size_bytes);
      break;
  }
}

// ---------------------------------------------------------------------------------------------
// FileBlocks: invariants

std::vector<std::string> FileBlocks::check() const {
  std::vector<std::string> problems;
  check_bounds(problems);
  check_live_lists(problems);
  check_checkpoints(problems);
  check_live_against_newest(problems);
  check_conservation(problems);
  check_unresolved(problems);
  check_pages(problems);
  return problems;
}

std::vector<std::pair<std::string, const ExtentList*>> FileBlocks::live_lists() const {
  return {{"alloc", &alloc_}, {"avail", &avail_}, {"discard", &discard_}, {"ckpt_avail", &ckpt_avail_}};
}

// Sizes are allocsize multiples and every list lies after the description block, inside the file.
void FileBlocks::check_bounds(std::vector<std::string>& problems) const {
  if (file_bytes_ % allocsize_bytes_ != 0)
    problems.push_back("file size " + std::to_string(file_bytes_) + " is not allocsize-aligned");
  if (file_bytes_ < allocsize_bytes_) problems.push_back("file is smaller than its description block");
  if (physical_bytes_ < file_bytes_) problems.push_back("physical size is below the block manager's size");
  const auto inside = [&](const std::string& name, const ExtentList& list) {
    expect_aligned_inside(problems, name, list, allocsize_bytes_, allocsize_bytes_, file_bytes_);
  };
  for (const auto& [name, list] : live_lists()) inside(name, *list);
  inside("in-use", in_use_);
  for (const CheckpointBlocks& c : checkpoints_) {
    inside(c.name() + " alloc", c.alloc);
    inside(c.name() + " discard", c.discard);
    inside(c.name() + " referenced", c.referenced);
  }
}

void FileBlocks::check_live_lists(std::vector<std::string>& problems) const {
  const auto lists = live_lists();
  for (size_t i = 0; i < lists.size(); ++i) {
    for (size_t j = i + 1; j < lists.size(); ++j) {
      expect_disjoint(problems, lists[i].first, *lists[i].second, lists[j].first, *lists[j].second);
    }
  }
  // A block in use is never free, whatever list would hand it out.
  expect_disjoint(problems, "in-use", in_use_, "avail", avail_);
  expect_disjoint(problems, "in-use", in_use_, "ckpt_avail", ckpt_avail_);
  expect_disjoint(problems, "in-use", in_use_, "discard", discard_);
  if (!alloc_.empty() && !in_use_.contains(alloc_)) problems.push_back("alloc holds blocks not in use");
  if (!ckpt_avail_.empty() && !resolve_pending_)
    problems.push_back("ckpt_avail is not empty with no checkpoint pending");
  if (!ckpt_avail_.empty() && pinned_) problems.push_back("ckpt_avail is not empty while pinned: " + head(ckpt_avail_));
}

// Each kept checkpoint's lists must describe exactly the blocks it references: the blocks written
// up to it (the union of the alloc lists so far) minus those freed before it (the discard lists).
// The oldest kept checkpoint then has an empty discard list, as WiredTiger's diagnostic build checks.
void FileBlocks::check_checkpoints(std::vector<std::string>& problems) const {
  ExtentList written, freed;
  uint64_t previous_number = 0;
  for (const CheckpointBlocks& c : checkpoints_) {
    const std::string name = c.name();
    if (c.number <= previous_number) problems.push_back(name + " is out of order");
    previous_number = c.number;
    expect_disjoint(problems, name + " alloc", c.alloc, "avail", avail_);
    expect_disjoint(problems, name + " discard", c.discard, "avail", avail_);
    expect_disjoint(problems, name + " alloc", c.alloc, "ckpt_avail", ckpt_avail_);
    expect_disjoint(problems, name + " discard", c.discard, "ckpt_avail", ckpt_avail_);
    expect_disjoint(problems, name + " alloc", c.alloc, name + " discard", c.discard);
    if (!try_merge(written, c.alloc)) problems.push_back(name + " alloc overlaps an older checkpoint's alloc");
    if (!try_merge(freed, c.discard)) problems.push_back(name + " discard overlaps an older checkpoint's discard");
    if (!written.contains(freed)) {
      problems.push_back(name + ": discarded blocks that no checkpoint up to it allocated");
      continue;
    }
    ExtentList described = written;
    described.subtract(freed);
    if (!(described == c.referenced)) {
      problems.push_back(name + " lists describe " + head(described) + " but it references " + head(c.referenced));
    }
  }
}

// The live lists continue the newest checkpoint the same way: in use = its blocks - discard + alloc.
void FileBlocks::check_live_against_newest(std::vector<std::string>& problems) const {
  const ExtentList none;
  const ExtentList& newest = checkpoints_.empty() ? none : checkpoints_.back().referenced;
  if (!newest.contains(discard_)) {
    problems.push_back("discard holds blocks the newest checkpoint does not reference");
    return;
  }
  ExtentList expected_in_use = newest;
  expected_in_use.subtract(discard_);
  if (!try_merge(expected_in_use, alloc_) || !(expected_in_use == in_use_)) {
    problems.push_back("live lists describe in-use " + head(expected_in_use) + " but " + head(in_use_) + " is in use");
  }
}

// Every byte after the description block is exactly one of: needed (in use or referenced by a kept
// checkpoint), avail, or ckpt_avail. Overlap would be reuse of a needed block; a gap would be a leak.
void FileBlocks::check_conservation(std::vector<std::string>& problems) const {
  ExtentList needed = in_use_;
  for (const CheckpointBlocks& c : checkpoints_) needed.unite(c.referenced);
  expect_disjoint(problems, "needed blocks", needed, "avail", avail_);
  expect_disjoint(problems, "needed blocks", needed, "ckpt_avail", ckpt_avail_);
  const uint64_t accounted_bytes = needed.total_bytes() + avail_.total_bytes() + ckpt_avail_.total_bytes();
  if (accounted_bytes != file_bytes_ - std::min(file_bytes_, allocsize_bytes_)) {
    problems.push_back("lists account for " + std::to_string(accounted_bytes) + " bytes but the file has " +
                       std::to_string(file_bytes_ - std::min(file_bytes_, allocsize_bytes_)) +
                       " after its description block");
  }
}

// Between checkpoint() and resolve() a crash would reopen a deleted checkpoint: nothing it references
// may be handed out yet, and ckpt_avail holds only its blocks.
void FileBlocks::check_unresolved(std::vector<std::string>& problems) const {
  const ExtentList& deleted = deleted_unresolved_referenced_;
  if (!deleted.empty() && !resolve_pending_) problems.push_back("deleted checkpoints remembered with nothing pending");
  expect_aligned_inside(problems, "unresolved deleted checkpoints' blocks", deleted, allocsize_bytes_, allocsize_bytes_,
                        file_bytes_);
  expect_disjoint(problems, "unresolved deleted checkpoints' blocks", deleted, "avail", avail_);
  if (!deleted.contains(ckpt_avail_)) problems.push_back("ckpt_avail holds blocks no deleted checkpoint referenced");
}

void FileBlocks::check_pages(std::vector<std::string>& problems) const {
  ExtentList page_blocks;
  for (const auto& [page, block] : block_by_page_) {
    const std::string where =
        "page " + std::to_string(page) + " block " + describe(block.offset_bytes, block.size_bytes);
    if (block.size_bytes == 0 || page_blocks.overlaps(block.offset_bytes, block.size_bytes)) {
      problems.push_back(where + " is empty or shared with another page");
      continue;
    }
    page_blocks.insert(block.offset_bytes, block.size_bytes);
    if (!in_use_.contains(block.offset_bytes, block.size_bytes)) problems.push_back(where + " is not in use");
  }
}

// ---------------------------------------------------------------------------------------------
// BlockManagerModel

BlockManagerModel::BlockManagerModel(uint64_t allocsize_bytes) : allocsize_bytes_(allocsize_bytes) {}

FileBlocks& BlockManagerModel::add_file(const std::string& name) {
  auto [it, created] = files_.try_emplace(name, allocsize_bytes_);
  if (!created) throw std::invalid_argument("BlockManagerModel::add_file: " + name + " exists");
  if (backup_open_) it->second.pin();
  assert(it->second.pinned() == backup_open_ && it->second.checkpoint_count() == 0);
  return it->second;
}

FileBlocks& BlockManagerModel::file(const std::string& name) {
  auto it = files_.find(name);
  if (it == files_.end()) throw std::out_of_range("BlockManagerModel: no file " + name);
  return it->second;
}

const FileBlocks& BlockManagerModel::file(const std::string& name) const {
  auto it = files_.find(name);
  if (it == files_.end()) throw std::out_of_range("BlockManagerModel: no file " + name);
  return it->second;
}

std::vector<std::string> BlockManagerModel::file_names() const {
  std::vector<std::string> names;
  for (const auto& [name, blocks] : files_) names.push_back(name);
  return names;
}

void BlockManagerModel::pin_all() {
  if (backup_open_) throw std::logic_error("BlockManagerModel::pin_all: a backup cursor is already open");
  backup_open_ = true;
  for (auto& [name, blocks] : files_) blocks.pin();
  assert(every_file(files_, &FileBlocks::pinned, true));
  assert(every_file(files_, &FileBlocks::resolve_pending, false));  // pin waits for a checkpoint
}

void BlockManagerModel::release(const std::string& name) { file(name).unpin(); }

void BlockManagerModel::unpin_all() {
  backup_open_ = false;
  for (auto& [name, blocks] : files_) blocks.unpin();
  assert(every_file(files_, &FileBlocks::pinned, false));
}

void BlockManagerModel::checkpoint_all() {
  for (auto& [name, blocks] : files_) blocks.checkpoint();
  assert(every_file(files_, &FileBlocks::resolve_pending, true));
}

void BlockManagerModel::resolve_all() {
  for (auto& [name, blocks] : files_) {
    if (blocks.resolve_pending()) blocks.resolve();
  }
  assert(every_file(files_, &FileBlocks::resolve_pending, false));
}

void BlockManagerModel::checkpoint_and_resolve_all() {
  checkpoint_all();
  resolve_all();
}

void BlockManagerModel::rewrite(const std::string& name, uint64_t n_pages, uint64_t page_bytes) {
  file(name).rewrite(n_pages, page_bytes);
}

std::vector<std::string> BlockManagerModel::check() const {
  std::vector<std::string> problems;
  for (const auto& [name, blocks] : files_) {
    for (const std::string& p : blocks.check()) problems.push_back(name + ": " + p);
    if (blocks.pinned() && !backup_open_) problems.push_back(name + ": pinned with no backup open");
  }
  return problems;
}

}  // namespace wtsim::models
