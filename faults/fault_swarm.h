#pragma once
// Swarm testing: a scenario declares which fault types may occur and how often; each seed draws
// its own mix and an explicit plan from it, so different seeds stress different combinations.
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "faults/fault_plan.h"
#include "sim/random.h"

namespace wtsim::faults {

struct SwarmSpec {
  uint64_t crashes_max = 2;                 // 0..crashes_max crashes per run
  double crash_by_disk_op_chance = 0.5;     // otherwise at a virtual time
  uint64_t crash_disk_op_max = 3000;        // disk-op triggers are drawn in [1, this]
  // Of the crashes, the share anchored to where storage engines break (Fault::after): a
  // checkpoint's start, a log switch or an eviction pass, each as likely, its nth occurrence in
  // [1, anchor_nth_max], then [0, anchor_disk_ops_max) operations on.
  double crash_anchor_chance = 0.0;
  uint64_t anchor_nth_max = 3;
  uint64_t anchor_disk_ops_max = 8;
  std::vector<CrashMode> crash_modes = {CrashMode::kDropUnsynced, CrashMode::kTornPrefix,
                                        CrashMode::kSectorDamage};
  double io_error_chance = 0.0;             // chance a run gets one I/O error
  double latency_chance = 0.0;              // chance a run gets a latency window
  double disk_full_chance = 0.0;            // chance a run gets a disk-full window
  double bit_flip_chance = 0.0;             // chance a run gets a bit flip (corruption)
  double misdirected_write_chance = 0.0;    // chance a run gets a misdirected write (corruption)
};

// Throws sim::JsonError naming the path.
SwarmSpec swarm_from_json(const nlohmann::json& j, const std::string& path);
nlohmann::json to_json(const SwarmSpec& spec);

// Draws a plan for a run of `duration_ns` from the "faults" stream.
FaultPlan draw_plan(const SwarmSpec& spec, sim::Rng& rng, sim::Nanos duration_ns);

}  // namespace wtsim::faults
