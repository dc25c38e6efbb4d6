#pragma once
// The virtual cost of engine work, in one place (printed in every trace header). Costs are
// computed from logical quantities (operations, bytes, syncs), never from the file-system calls
// WiredTiger happens to make, whose order WiredTiger's own threads can change.
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
  sim::Nanos disk_per_byte_ns = 2;                   // ~500 MB/s sequential
  sim::Nanos disk_sync_ns = 1 * sim::kNsPerMs;       // one fsync
  sim::Nanos checkpoint_base_ns = 20 * sim::kNsPerMs;
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
            {"checkpoint_base_ns", checkpoint_base_ns},
            {"restart_ns", restart_ns}};
  }
};

}  // namespace wtsim::engine
