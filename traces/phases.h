#pragma once
// Phases: stretches of virtual time a trace implies but records as separate events or as a
// duration on the event that ends them. The node is down from a crash to the next start; a
// backup runs from backup_start to backup_done or backup_failed (or the crash that ends it); a
// TTL pass, a delete job, an index build and a query end at their event, took_ms (took_us)
// after they began; a disk-full or latency window lasts from its start to its end.
// Checkpoints carry no duration in the trace, so they are not phases.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace wtsim::traces {

struct Phase {
  std::string actor;   // the actor whose timeline holds the phase ("node" for down times)
  std::string name;    // "node down", "backup", "ttl_pass", "latency window #2", ...
  uint64_t start_us = 0;
  uint64_t end_us = 0;  // >= start_us
  uint64_t event = 0;   // index i of the event that defines it (the crash, the backup_start, ...)
  bool overlaps = false;  // may overlap others on its actor (fault windows): give it its own track
  nlohmann::json args = nlohmann::json::object();
};

// The virtual time the trace covers: its last event or the verdict's virtual_ms, whichever later.
uint64_t trace_end_us(const nlohmann::json& trace);

// The phases of a validated trace, ordered by start time (then by defining event). Bounded by the
// number of events.
std::vector<Phase> derive_phases(const nlohmann::json& trace);

}  // namespace wtsim::traces
