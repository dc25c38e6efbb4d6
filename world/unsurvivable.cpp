// Faults no node could survive. A device that refuses an operation for good (a sticky I/O error)
// makes every open fail: refusing to open is the right answer, so the failure is classified, not
// reported as a violation. Likewise damaged durable data (a bit flip, a misdirected write) that
// WiredTiger refuses to open, read or verify: that is the detection corruption_detected_or_harmless
// asks for; only damage that reads back as data is a violation. Then an administrator power-cycles the device (the sticky errors clear,
// unsynced writes are lost, as at any power loss) and restarts the node, so the run goes on
// testing recovery.
#include <cassert>

#include <wiredtiger.h>

#include "world/world.h"

namespace wtsim::world {


bool World::classify_failed_start(int code, const std::string& stage) {
  assert(code != 0);
  const std::vector<std::string> refused = injector_.active_sticky_errors();
  if (refused.empty()) return false;
  verdict_->classify("device_refuses_io", stage + ": " + wiredtiger_strerror(code) + " while the device refuses I/O (" + refused.front() + ")");
  power_cycle_pending_ = true;
  return true;
}

void World::refused_or_violated(properties::Property property, const std::string& detail) {
  if (corruption_injected()) return verdict_->classify("corruption_detected", detail);
  violation(property, detail);
}


void World::power_cycle_device(const std::string& reason) {
  assert(node_->conn() == nullptr && "the device is power-cycled with the node down");
  nlohmann::json files = nlohmann::json::array();
  for (const auto& r : disk_.crash(faults::CrashMode::kDropUnsynced, fault_rng_.next())) {
    if (r.pending_ops > 0) files.push_back({{"file", r.name}, {"pending_ops", r.pending_ops}});
  }
  injector_.power_cycled();
  assert(injector_.active_sticky_errors().empty());
  trace_->event(sim_.now_ns(), "faults", "power_cycle", {{"reason", reason}, {"unsynced", files}});
}

void World::after_failed_start() {
  close_crashed_node();
  if (!power_cycle_pending_) return;
  power_cycle_pending_ = false;
  power_cycle_device("the device refused a restart");
}

}  // namespace wtsim::world
