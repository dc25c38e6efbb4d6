#pragma once
// Properties of the key/value store against its model.
#include <optional>
#include <vector>

#include "models/kv_model.h"
#include "properties/violation.h"

namespace wtsim::properties {

// After a recovery: recovered_state_is_prefix and no_phantom_values.
std::vector<Violation> check_recovered_state(const models::KvModel& model,
                                             const models::KvState& recovered, sim::Nanos now_ns,
                                             models::RecoveryCheck* details = nullptr);

// At the end of a run that did not crash last: every acked commit is there and nothing else.
std::optional<Violation> check_final_state(const models::KvModel& model,
                                           const models::KvState& state, sim::Nanos now_ns);

}  // namespace wtsim::properties
