// The node's checks: the recovered state against the model after every restart, validation, the
// final checks after a clean close; and the classification of faults no node could survive.
//
// A device that refuses an operation for good (a sticky I/O error) makes every open fail:
// refusing to open is the right answer, so the failure is classified, not reported as a
// violation. Likewise damaged durable data (a bit flip, a misdirected write) that WiredTiger
// refuses to open, read or verify: that is the detection corruption_detected_or_harmless asks
// for; only damage that reads back as data is a violation. Then an administrator power-cycles the
// device (the sticky errors clear, unsynced writes are lost, as at any power loss) and restarts
// the node, so the run goes on testing recovery.
#include <wiredtiger.h>

#include <cassert>

#include "properties/kv_properties.h"
#include "world/node_host.h"

namespace wtsim::world {

void NodeHost::check_recovered(const char* when) {
  models::KvState state;
  int ret = system_->read_state(node_->conn(), &state);
  drain_wt_messages();
  if (node_->fenced()) return;
  if (ret != 0) {
    refused_or_violated(properties::Property::kRecoverySucceeds, std::string("reading after recovery: ") + wiredtiger_strerror(ret));
    return;
  }
  models::RecoveryCheck details;
  auto found = properties::check_recovered_state(model_, state, sim_.now_ns(), &details);
  ++run_.stats().recoveries;
  nlohmann::json check = {{"when", when}, {"keys", state.size()}, {"cut", details.cut},
                          {"durable_point", details.durable_point}, {"lost_acked", details.lost_acked},
                          {"ok", details.ok}, {"state_digest", History::state_digest(state)},
                          {"in_doubt_applied", details.in_doubt_applied}};
  for (const auto& m : details.mismatches) {
    check["mismatches"].push_back({{"key", m.key}, {"expected", m.expected}, {"found", m.found}});
  }
  history_.close_fenced();
  const uint64_t check_index = event("checker", "recovery_check", check);
  if (details.ok && details.lost_acked > 0) {
    run_.reached(properties::Marker::kUnsyncedCommitsLost);
    if (last_crash_mode_ == faults::CrashMode::kTornPrefix) run_.reached(properties::Marker::kTornLogTailRecovered);
  }
  for (auto& v : found) {
    run_.violation(corruption_injected() ? properties::Property::kCorruptionDetectedOrHarmless : v.property, v.detail, check_index);
  }
  history_.rebased(std::move(state));
  report_validation(when);
}

void NodeHost::report_validation(const char* when) {
  auto problems = system_->validate(node_->conn());
  drain_wt_messages();
  if (node_->fenced()) return;
  // An injected transient I/O error that hit the validation itself (verify reading a page:
  // swarm_documents seed 265) says nothing about the data: validate once more, the error spent.
  const bool fired = drain_fired_faults();
  if (!problems.empty() && !injector_.active_sticky_errors().empty()) {  // nothing can be read back
    run_.classify("device_refuses_io", std::string(when) + ": validation failed (" + problems.front().second +
                                           ") while the device refuses I/O (" + injector_.active_sticky_errors().front() + ")");
    problems.clear();  // the engine's own findings below still count
  }
  if (fired && !problems.empty()) {
    event("checker", "validation_retried", {{"when", when}, {"problems", problems.size()}});
    problems = system_->validate(node_->conn());
    drain_wt_messages();
    drain_fired_faults();
    if (node_->fenced()) return;
  }
  for (const auto& [property, detail] : problems) {
    // WiredTiger's verify failing on damaged data is detection; anything else is damage let through.
    if (property == properties::Property::kTablesVerify) {
      refused_or_violated(property, std::string(when) + ": " + detail);
    } else {
      run_.violation(corruption_injected() ? properties::Property::kCorruptionDetectedOrHarmless : property, std::string(when) + ": " + detail);
    }
  }
  for (const auto& [property, detail] : system_->take_findings()) run_.violation(property, detail);
}

void NodeHost::final_checks() {
  end_fault_phase();
  if (dead_ || !node_->up()) return;
  if (!system_->catch_up()) event("checker", "catch_up_failed", nlohmann::json::object());
  drain_wt_messages();
  if (!node_->up()) return;
  models::KvState state;
  if (system_->read_state(node_->conn(), &state) != 0) {
    run_.violation(properties::Property::kFinalStateMatches, "reading the final state failed");
    return;
  }
  const auto v = properties::check_final_state(model_, state, sim_.now_ns());
  history_.close_fenced();
  const uint64_t check_index =
      event("checker", "final_check", {{"keys", state.size()}, {"state_digest", History::state_digest(state)}});
  if (v) run_.violation(v->property, v->detail, check_index);
  final_state_ = state;
  if (scenario_.replica_set.replicated() && system_->read_oplog_ids(node_->conn(), &final_oplog_) != 0) {
    run_.violation(properties::Property::kFinalStateMatches, "reading the final oplog failed");
  }
  report_validation("final");
  system_->close();
  const int closed = node_->close_clean();
  drain_wt_messages();
  if (closed != 0) run_.violation(properties::Property::kFinalStateMatches, std::string("clean close: ") + wiredtiger_strerror(closed));
  // A clean shutdown must reopen to exactly the same state.
  history_.rebased(std::move(state));
  if (node_->open() != 0) {
    refused_or_violated(properties::Property::kRecoverySucceeds, "reopen after clean shutdown failed");
    return;
  }
  if (system_->open(node_->conn()) == 0) check_recovered("clean_reopen");
  system_->close();
  node_->close_clean();
  drain_wt_messages();
}

bool NodeHost::classify_failed_start(int code, const std::string& stage) {
  assert(code != 0);
  const std::vector<std::string> refused = injector_.active_sticky_errors();
  if (refused.empty()) return false;
  run_.classify("device_refuses_io", stage + ": " + wiredtiger_strerror(code) + " while the device refuses I/O (" + refused.front() + ")");
  power_cycle_pending_ = true;
  return true;
}

void NodeHost::refused_or_violated(properties::Property property, const std::string& detail) {
  if (corruption_injected()) return run_.classify("corruption_detected", detail);
  run_.violation(property, detail);
}

bool NodeHost::corruption_injected() const {
  for (const auto& f : injector_.plan().faults) {
    if (f.kind == faults::FaultKind::kBitFlip || f.kind == faults::FaultKind::kMisdirectedWrite) return true;
  }
  return false;
}

void NodeHost::after_failed_start() {
  close_crashed_node();
  if (!power_cycle_pending_) return;
  power_cycle_pending_ = false;
  power_cycle_device("the device refused a restart");
}

void NodeHost::power_cycle_device(const std::string& reason) {
  assert(node_->conn() == nullptr && "the device is power-cycled with the node down");
  nlohmann::json files = nlohmann::json::array();
  for (const auto& r : disk_.crash(faults::CrashMode::kDropUnsynced, fault_rng_.next())) {
    if (r.pending_ops > 0) files.push_back({{"file", r.name}, {"pending_ops", r.pending_ops}});
  }
  injector_.power_cycled();
  assert(injector_.active_sticky_errors().empty());
  event("faults", "power_cycle", {{"reason", reason}, {"unsynced", files}});
}

}  // namespace wtsim::world
