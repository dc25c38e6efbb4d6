#include "models/extent_layout.h"

#include <algorithm>
#include <cassert>

namespace wtsim::models {
namespace {

constexpr size_t kMaxProblems = 8;

void problem(LayoutCheck& c, std::string text) {
  c.ok = false;
  if (c.problems.size() < kMaxProblems) c.problems.push_back(std::move(text));
}

std::string where(const Span& s) {
  return "extent " + std::to_string(s.extent) + " offset " + std::to_string(s.offset) + " length " + std::to_string(s.length);
}

}  // namespace

LayoutCheck check_extent_layout(const std::vector<uint64_t>& extents, uint32_t header, const std::vector<Span>& records,
                                const std::vector<Span>& free) {
  LayoutCheck c;
  struct Piece {
    Span span;
    bool is_record;
  };
  std::vector<Piece> pieces;
  for (const Span& r : records) pieces.push_back({r, true}), c.record_bytes += r.length;
  for (const Span& f : free) pieces.push_back({f, false}), c.free_bytes += f.length;
  std::sort(pieces.begin(), pieces.end(), [](const Piece& a, const Piece& b) {
    return a.span.extent != b.span.extent ? a.span.extent < b.span.extent : a.span.offset < b.span.offset;
  });
  std::vector<uint64_t> covered(extents.size(), 0);
  std::vector<uint64_t> cursor(extents.size(), header);  // next byte expected in each extent
  for (const Piece& p : pieces) {
    const Span& s = p.span;
    if (s.extent >= extents.size()) {
      problem(c, (p.is_record ? "record at " : "free region at ") + where(s) + ": no such extent");
      continue;
    }
    if (s.offset < cursor[s.extent]) {
      problem(c, (p.is_record ? "record at " : "free region at ") + where(s) +
                     (s.offset < header ? ": overlaps the extent header" : ": overlaps the previous piece"));
    } else if (s.offset > cursor[s.extent]) {
      problem(c, "extent " + std::to_string(s.extent) + ": bytes " + std::to_string(cursor[s.extent]) + ".." +
                     std::to_string(s.offset) + " belong to nothing");
    }
    if (uint64_t{s.offset} + s.length > extents[s.extent]) problem(c, where(s) + ": runs past the extent's end");
    cursor[s.extent] = std::max<uint64_t>(cursor[s.extent], uint64_t{s.offset} + s.length);
    covered[s.extent] += s.length;
  }
  for (size_t e = 0; e < extents.size(); ++e) {
    c.extent_bytes += extents[e];
    if (cursor[e] != extents[e]) {
      problem(c, "extent " + std::to_string(e) + ": bytes " + std::to_string(cursor[e]) + ".." + std::to_string(extents[e]) +
                     " belong to nothing");
    }
    if (covered[e] + header != extents[e] && c.problems.size() < kMaxProblems) {
      problem(c, "extent " + std::to_string(e) + ": pieces cover " + std::to_string(covered[e]) + " of " +
                     std::to_string(extents[e] - header) + " bytes");
    }
  }
  // The verdict and its list agree, and a layout found sound accounts for every byte: each
  // extent is its header plus the records and free regions in it.
  assert(c.ok == c.problems.empty() && c.problems.size() <= kMaxProblems);
  assert(!c.ok ||
         c.record_bytes + c.free_bytes + uint64_t{header} * extents.size() == c.extent_bytes);
  return c;
}

}  // namespace wtsim::models
