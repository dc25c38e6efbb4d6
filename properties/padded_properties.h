#pragma once
// Properties of an MMAPv1-style padded collection's layout (models::check_extent_layout is the
// oracle), checked after every recovery and at the end of a run.
#include <string>
#include <utility>
#include <vector>

#include "properties/violation.h"

#include "engine/engine.h"

namespace wtsim::properties {

// (property, detail) pairs: record_layout (every byte of every extent in exactly one record or
// free region; the allocator's memory equals what its tables hold), padding_factor_in_range and
// record_holds_document (each record's length holds its header and its document).
std::vector<Finding> check_padded_layout(const std::string& ns,
                                                                     const engine::PaddedLayout& layout);

}  // namespace wtsim::properties
