#pragma once
// MMAPv1's record allocation: extents sized by the extent manager's rules, records with 16-byte
// headers placed from size-bucketed free lists (best fit, split or take whole), the allocation
// size from paddingFactor or usePowerOf2Sizes, and the paddingFactor heuristic of MongoDB 2.6
// (with its one-in-four sampling) or of 1.x (1.6-1.8, which the padding account ran). Pure
// in-memory logic; PaddedStore persists its decisions.
#include <cstdint>
#include <map>
#include <set>
#include <vector>

namespace wtsim::engine {

// A record's place: extent number and offset within it (MMAPv1's DiskLoc).
struct RecordLoc {
  uint32_t extent = 0;
  uint32_t offset = 0;
  uint64_t packed() const { return (static_cast<uint64_t>(extent) << 32) | offset; }
  static RecordLoc unpack(uint64_t v) { return {static_cast<uint32_t>(v >> 32), static_cast<uint32_t>(v)}; }
  bool operator<(const RecordLoc& o) const { return packed() < o.packed(); }
  bool operator==(const RecordLoc& o) const { return packed() == o.packed(); }
};

struct Region {
  RecordLoc loc;
  uint32_t length = 0;  // bytes, header included
};

class MmapAllocator {
 public:
  static constexpr uint32_t kRecordHeaderBytes = 16;
  static constexpr uint32_t kExtentHeaderBytes = 176;
  static constexpr double kPaddingMin = 1.0, kPaddingMax = 2.0;

  // Whose rules. 1.x (namespace.h and pdfile.cpp of 1.6-1.8): paddingFits -0.01 and
  // paddingTooSmall +0.6 on every call, neither leaving [1.0, 2.0]; every insert, a move's
  // included, calls paddingFits before it sizes the record; extents grow 4x, then 1.2x from
  // 4,000,000 bytes, rounded down to 256 bytes. 2.6: see padding_fits().
  enum class PaddingRules { kV1x, kV26 };
  struct Options {
    bool power_of_2_sizes = false;
    bool no_padding = false;  // userFlags 2: allocate exactly
    PaddingRules rules = PaddingRules::kV26;
  };

  MmapAllocator() = default;
  explicit MmapAllocator(Options options) : options_(options) {}

  // Bytes to allocate for a document of `bson_bytes`.
  uint32_t allocation_size(uint32_t bson_bytes) const;
  // Places `length` bytes; new extents are appended to `new_extents`, consumed or split free
  // regions reported in `taken`/`added` so that the caller can persist the change.
  Region allocate(uint32_t length, std::vector<uint64_t>* new_extents, std::vector<Region>* taken,
                  std::vector<Region>* added);
  void release(const Region& record);
  // Each extent's record list (MMAPv1's Extent::firstRecord..lastRecord, which a collection scan
  // walks): a newly placed record goes to the end of its extent's list, whatever its offset, so a
  // document in a reused slot comes after its extent's older records. Returns its place in that
  // list; places only grow (gaps, from a rolled-back unit of work, do not change the order).
  uint32_t append_to_record_list(uint32_t extent);
  void restore_record_list(uint32_t extent, uint32_t next_place);

  // The 2.6 heuristic: successful inserts and in-place updates call padding_fits() (-0.001),
  // moves call padding_too_small() (+0.001 * (min(indexes, 7) + 3)); each acts on one call in four
  // (MONGO_SOMETIMES(4)). 1.x: Options::PaddingRules.
  bool fits_before_sizing() const { return options_.rules == PaddingRules::kV1x; }
  void padding_fits();
  void padding_too_small(int indexes);
  double padding_factor() const { return padding_factor_; }

  // --- State, for persistence, collStats and the layout checker. ---
  const std::vector<uint64_t>& extents() const { return extents_; }  // lengths, by number
  std::vector<Region> free_regions() const;                           // sorted by location
  uint64_t storage_bytes() const;
  void restore(std::vector<uint64_t> extents, const std::vector<Region>& free, double padding_factor);
  Options options() const { return options_; }
  void set_options(Options options) { options_ = options; }  // collMod's flags: from the next allocation on

  // Undo journal for a unit of work: every change after begin() is undone by rollback() (the
  // WiredTiger transaction that persists them was rolled back) or kept by commit().
  void begin();
  void commit();
  void rollback();

 private:
  static int bucket_of(uint32_t length);
  uint64_t next_extent_size(uint32_t length) const;
  Region carve(const Region& region, uint32_t length, std::vector<Region>* added);

  struct Undo {
    enum Kind { kReinsertFree, kEraseFree, kPopExtent } kind;
    Region region;
  };
  void insert_free(const Region& r);
  void erase_free(const Region& r);
  void journal(Undo::Kind kind, const Region& r);

  Options options_;
  bool in_unit_ = false;
  std::vector<Undo> undo_;
  double saved_padding_factor_ = 1.0;
  uint64_t saved_fits_calls_ = 0, saved_too_small_calls_ = 0;
  std::vector<uint64_t> extents_;
  // Free regions by bucket, each ordered by (length, location) for best fit.
  std::map<int, std::set<std::pair<uint32_t, uint64_t>>> free_;
  double padding_factor_ = 1.0;
  std::vector<uint32_t> record_list_next_;  // by extent number
  uint64_t fits_calls_ = 0, too_small_calls_ = 0;
};

}  // namespace wtsim::engine
