#include "properties/padded_properties.h"

#include "models/extent_layout.h"

namespace wtsim::properties {
namespace {

// MongoDB's own figures, not the allocator's constants (engine/mmap_allocator.h), so that a wrong
// constant there is caught rather than agreed with: an MMAPv1 extent starts with a 176-byte header
// (mongo/db/storage/mmap_v1/extent.h), and paddingFactor stays within [1.0, 2.0] (2.6's
// namespace_details.h; an adjustment that would leave the range is not applied).
constexpr uint32_t kExtentHeaderBytes = 176;
constexpr double kPaddingFactorMin = 1.0, kPaddingFactorMax = 2.0;

std::vector<models::Span> spans(const std::vector<engine::Region>& regions) {
  std::vector<models::Span> out;
  for (const engine::Region& r : regions) out.push_back({r.loc.extent, r.loc.offset, r.length});
  return out;
}

bool same(const std::vector<engine::Region>& a, const std::vector<engine::Region>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!(a[i].loc == b[i].loc) || a[i].length != b[i].length) return false;
  }
  return true;
}

}  // namespace

std::vector<Finding> check_padded_layout(const std::string& ns,
                                                                     const engine::PaddedLayout& layout) {
  std::vector<Finding> out;
  const models::LayoutCheck c = models::check_extent_layout(
      layout.extents, kExtentHeaderBytes, spans(layout.records), spans(layout.free));
  for (const std::string& p : c.problems) out.emplace_back(Property::kRecordLayout, ns + ": " + p);
  if (layout.memory_extents != layout.extents || !same(layout.memory_free, layout.free) ||
      layout.memory_padding_factor != layout.padding_factor) {
    out.emplace_back(Property::kRecordLayout, ns + ": the allocator's memory differs from its tables (" +
                                          std::to_string(layout.memory_free.size()) + " vs " +
                                          std::to_string(layout.free.size()) + " free regions)");
  }
  if (layout.padding_factor < kPaddingFactorMin || layout.padding_factor > kPaddingFactorMax) {
    out.emplace_back(Property::kPaddingFactorInRange, ns + ": paddingFactor " + std::to_string(layout.padding_factor));
  }
  return out;
}

}  // namespace wtsim::properties
