// The liveness phase: after the fault phase, faults stop and the node must converge within the
// scenario's liveness_ms: up and running, every live client acknowledging operations again, and
// the system's own work done (a TTL pass after the faults, a backup finished or abandoned).
// Failing that is a "liveness" violation naming what did not converge.
#include <algorithm>
#include <cassert>

#include "world/elector.h"
#include "world/world.h"

namespace wtsim::world {
namespace {

constexpr sim::Nanos kLivenessPollNs = 100 * sim::kNsPerMs;
// How long past the deadline the phase waits for a recovery under way: its part inside the phase
// then moves the end (NodeHost::extend_for_recovery). One that takes longer is a liveness failure.
constexpr sim::Nanos kRecoveryWaitMaxNs = 60 * sim::kNsPerSec;

}  // namespace

void World::client_started() { clients_[sim_.current().name] = ClientProgress{}; }

void World::client_finished() {
  auto it = clients_.find(sim_.current().name);
  assert(it != clients_.end());
  it->second.finished = true;
}

void World::note_progress() {
  auto it = clients_.find(sim_.current().name);
  if (it != clients_.end()) it->second.last_ns = sim_.now_ns();
}

void World::client_abandoned(const std::string& fiber_name) {
  if (auto it = clients_.find(fiber_name); it != clients_.end()) it->second.finished = true;  // as a cancelled client
}

std::string World::liveness_pending() const {
  for (const auto& host : hosts_) {
    if (host->dead() || host->restarting() || !host->up()) return host->liveness_pending(fault_end_ns_);
  }
  if (std::string pending = primary_pending(); !pending.empty()) return pending;
  for (const auto& [name, c] : clients_) {
    if (!c.finished && c.last_ns < fault_end_ns_) return "client " + name + " has acknowledged nothing since the faults stopped";
  }
  for (const auto& host : hosts_) {
    if (std::string pending = host->liveness_pending(fault_end_ns_); !pending.empty()) return pending;
  }
  return "";
}

std::string World::primary_pending() const {
  if (!set_) return "";
  std::vector<size_t> writable;
  for (size_t m = 0; m < hosts_.size(); ++m) {
    if (set_->elector(m).writable()) writable.push_back(m);
  }
  if (writable.empty()) return "no member is a writable primary";
  if (writable.size() > 1) return "members " + std::to_string(writable[0]) + " and " + std::to_string(writable[1]) + " are both writable primaries";
  return "";
}

sim::Nanos World::liveness_deadline_ns() const {
  const bool recovering = std::any_of(hosts_.begin(), hosts_.end(), [](const auto& host) { return host->opening(); });
  return recovering ? end_ns_ + kRecoveryWaitMaxNs : end_ns_;
}

void World::liveness_phase() {
  for (auto& host : hosts_) {
    host->end_fault_phase();
    host->lift_disk_full();
  }
  end_script_faults();
  trace_->event(sim_.now_ns(), "checker", "liveness_phase", {{"deadline_ms", end_ns_ / sim::kNsPerMs}});
  std::string pending = liveness_pending();
  while (!pending.empty() && sim_.now_ns() < liveness_deadline_ns()) {
    sim_.sleep_until(std::min(sim_.now_ns() + kLivenessPollNs, liveness_deadline_ns()));
    if (progress_) progress_(sim_.now_ns(), end_ns_);
    pending = liveness_pending();
  }
  if (!pending.empty()) {
    violation(properties::Property::kLiveness, "not converged " + std::to_string((end_ns_ - fault_end_ns_) / sim::kNsPerMs) +
                              " ms after the faults stopped: " + pending);
    return;
  }
  trace_->event(sim_.now_ns(), "checker", "converged", {{"after_ms", (sim_.now_ns() - fault_end_ns_) / sim::kNsPerMs}});
  // The workload runs on to the end: the final checks see a node that has been live for a while.
  while (sim_.now_ns() < end_ns_) {
    sim_.sleep_until(std::min(sim_.now_ns() + sim::kNsPerSec, end_ns_));
    if (progress_) progress_(sim_.now_ns(), end_ns_);
  }
}

}  // namespace wtsim::world
