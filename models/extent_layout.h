#pragma once
// The MMAPv1 layout oracle: given extents, records and free regions (as persisted), every byte of
// every extent after its header belongs to exactly one record or free region; nothing overlaps,
// crosses an extent's end or touches its header.
#include <cstdint>
#include <string>
#include <vector>

namespace wtsim::models {

struct Span {
  uint32_t extent = 0;
  uint32_t offset = 0;
  uint32_t length = 0;
};

struct LayoutCheck {
  bool ok = true;
  uint64_t record_bytes = 0, free_bytes = 0, extent_bytes = 0;
  std::vector<std::string> problems;  // the first few
};

LayoutCheck check_extent_layout(const std::vector<uint64_t>& extent_lengths, uint32_t extent_header_bytes,
                                const std::vector<Span>& records, const std::vector<Span>& free);

}  // namespace wtsim::models
