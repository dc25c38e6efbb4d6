#pragma once
// The virtual cost of engine work, in one place (printed in every trace header). CPU costs are
// computed from logical quantities (operations, bytes, documents); disk costs from the file-system
// calls WiredTiger makes (deterministic: its threads are fibers of the seeded scheduler).
#include <nlohmann/json.hpp>

#include "sim/virtual_clock.h"

namespace wtsim::engine {

struct CostModel {
  int cpu_cores = 2;
  sim::Nanos cpu_per_op_ns = 20 * sim::kNsPerUs;     // one engine operation (a write, a read)
  sim::Nanos cpu_per_byte_ns = 2;                    // encoding, copying
  sim::Nanos cpu_per_key_ns = 1 * sim::kNsPerUs;     // one index key examined
  sim::Nanos cpu_per_doc_ns = 5 * sim::kNsPerUs;     // one document fetched and matched
  // An MMAPv1 record move (copy to a new place, free-list work, page faults on both places);
  // calibrated so the padding account's "grow" run is about 25 % slower than "preset".
  sim::Nanos move_ns = 25 * sim::kNsPerUs;
  // Paid inside WiredTiger's file-system calls, by whichever fiber makes them, on the one disk queue.
  sim::Nanos disk_per_byte_ns = 2;                   // a read or write, ~500 MB/s sequential
  sim::Nanos disk_sync_ns = 1 * sim::kNsPerMs;       // one fsync
  sim::Nanos restart_ns = 500 * sim::kNsPerMs;       // process start before recovery

  nlohmann::json to_json() const {
    return {{"cpu_cores", cpu_cores},
            {"cpu_per_op_ns", cpu_per_op_ns},
            {"cpu_per_byte_ns", cpu_per_byte_ns},
            {"cpu_per_key_ns", cpu_per_key_ns},
            {"cpu_per_doc_ns", cpu_per_doc_ns},
            {"move_ns", move_ns},
            {"disk_per_byte_ns", disk_per_byte_ns},
            {"disk_sync_ns", disk_sync_ns},
            {"restart_ns", restart_ns}};
  }
};

}  // namespace wtsim::engine
