#include "properties/kv_properties.h"

namespace wtsim::properties {

std::vector<Violation> check_recovered_state(const models::KvModel& model,
                                             const models::KvState& recovered, sim::Nanos now_ns,
                                             models::RecoveryCheck* details) {
  models::RecoveryCheck check = model.check(recovered);
  std::vector<Violation> out;
  if (!check.ok) {
    bool phantom = false;
    for (const auto& m : check.mismatches) phantom |= m.found.find("never written") != std::string::npos;
    out.push_back({phantom ? Property::kNoPhantomValues : Property::kRecoveredStateIsPrefix, now_ns, check.summary});
  }
  if (details != nullptr) *details = std::move(check);
  return out;
}

std::optional<Violation> check_final_state(const models::KvModel& model,
                                           const models::KvState& state, sim::Nanos now_ns) {
  // Without a crash nothing is in doubt except failed commits; the prefix check with the cut at
  // the newest commit covers them.
  models::RecoveryCheck check = model.check(state);
  if (check.ok && check.lost_acked == 0) return std::nullopt;
  for (const auto& m : check.mismatches) {  // a value no commit wrote is a phantom, crash or not
    if (m.found.find("never written") != std::string::npos) return Violation{Property::kNoPhantomValues, now_ns, check.summary};
  }
  std::string detail = check.ok ? std::to_string(check.lost_acked) + " acknowledged commits missing"
                                : check.summary;
  return Violation{Property::kFinalStateMatches, now_ns, detail};
}

}  // namespace wtsim::properties
