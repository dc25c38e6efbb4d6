#include "properties/padded_properties.h"

#include <cassert>

#include "models/extent_layout.h"

namespace wtsim::properties {
namespace {

// MongoDB's own figures, not the allocator's constants (engine/mmap_allocator.h), so that a wrong
// constant there is caught rather than agreed with: an MMAPv1 extent starts with a 176-byte header
// (mongo/db/storage/mmap_v1/extent.h), and paddingFactor stays within [1.0, 2.0] (2.6's
// namespace_details.h; an adjustment that would leave the range is not applied).
constexpr uint32_t kExtentHeaderBytes = 176;
// A record starts with a 16-byte header (lengthWithHeaders, extentOfs, nextOfs, prevOfs:
// mongo/db/storage/mmap_v1/record.h); the document follows it, within lengthWithHeaders.
constexpr uint32_t kRecordHeaderBytes = 16;
constexpr size_t kShortRecordsReported = 3;
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

// record_holds_document: a record shorter than its header and document would overwrite the next
// record's first bytes in MMAPv1's extent file.
void check_records_hold_documents(const std::string& ns, const engine::PaddedLayout& layout, std::vector<Finding>* out) {
  assert(layout.record_stored_bytes.size() == layout.records.size());
  size_t short_records = 0;
  for (size_t i = 0; i < layout.records.size(); ++i) {
    const engine::Region& r = layout.records[i];
    const uint64_t needed = uint64_t{kRecordHeaderBytes} + layout.record_stored_bytes[i];
    if (r.length >= needed) continue;
    if (++short_records > kShortRecordsReported) continue;
    out->emplace_back(Property::kRecordHoldsDocument,
                      ns + ": the record at extent " + std::to_string(r.loc.extent) + " offset " +
                          std::to_string(r.loc.offset) + " is " + std::to_string(r.length) + " bytes, its header and document " +
                          std::to_string(needed));
  }
  if (short_records > kShortRecordsReported) {
    out->emplace_back(Property::kRecordHoldsDocument, ns + ": " + std::to_string(short_records) + " records in all are too short");
  }
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
  check_records_hold_documents(ns, layout, &out);
  return out;
}

}  // namespace wtsim::properties
