#include "world/verdict.h"

#include <cassert>

namespace wtsim::world {

void Verdict::violation(properties::Property property, const std::string& detail, std::optional<uint64_t> subject) {
  assert(static_cast<size_t>(property) < properties::kPropertyCount);
  nlohmann::json details = {{"property", properties::name_of(property)}, {"detail", detail}};
  if (subject) details["subject"] = *subject;
  const uint64_t index = trace_.event(sim_.now_ns(), "checker", "violation", std::move(details));
  violations_.push_back({property, sim_.now_ns(), detail, index});
  assert(!ok());
}

void Verdict::classify(const std::string& reason, const std::string& detail) {
  assert(!reason.empty() && !detail.empty());
  trace_.event(sim_.now_ns(), "checker", "unsurvivable", {{"reason", reason}, {"detail", detail}});
  if (unsurvivable_.size() < kUnsurvivableMax) unsurvivable_.push_back({sim_.now_ns(), reason, detail});
}

void Verdict::reached(properties::Marker marker, uint64_t times) {
  assert(static_cast<size_t>(marker) < properties::kMarkerCount);
  if (times > 0) coverage_[properties::name_of(marker)] += times;
}

nlohmann::json Verdict::to_json(const char* outcome, const nlohmann::json& buggify, const RunStats& stats) const {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& v : violations_) list.push_back(properties::to_json(v));
  nlohmann::json verdict = {{"ok", ok()},
                            {"outcome", outcome},
                            {"violations", list},
                            {"coverage", coverage_},
                            {"buggify", buggify},
                            {"stats",
                             {{"commits_acked", stats.commits_acked},
                              {"commits_failed", stats.commits_failed},
                              {"crashes", stats.crashes},
                              {"recoveries", stats.recoveries},
                              {"checkpoints", stats.checkpoints},
                              {"virtual_ms", stats.virtual_ns / sim::kNsPerMs},
                              {"workload_done_ms", stats.workload_done_ns / sim::kNsPerMs}}}};
  // Only when there is one, so the verdicts (and hashes) of runs without stay as they were.
  for (const auto& u : unsurvivable_) {
    verdict["unsurvivable"].push_back({{"at_ms", u.at_ns / sim::kNsPerMs}, {"reason", u.reason}, {"detail", u.detail}});
  }
  return verdict;
}

}  // namespace wtsim::world
