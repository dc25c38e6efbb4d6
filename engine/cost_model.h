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
  // Stepping over one deleted index entry still in WiredTiger's memory (engine/deleted_entries.h):
  // 13.8-20.8 ns measured by BM_OldestAfterDeletes (bench/ttl_query_dip.cpp) at 10^4-10^6 entries.
  sim::Nanos deleted_entry_ns = 14;
  // How long a walked-over deleted entry stays in memory before the eviction server takes its
  // page: fitted to the wall time of the TTL account's query at 1/50 scale, which stayed slow for
  // the first pass's deletes and fast from 0.25 s after they ended (docs/design/engine.md, "Deleted index entries").
  sim::Nanos deleted_entry_evict_ns = 250 * sim::kNsPerMs;
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
            {"deleted_entry_ns", deleted_entry_ns},
            {"deleted_entry_evict_ns", deleted_entry_evict_ns},
            {"disk_per_byte_ns", disk_per_byte_ns},
            {"disk_sync_ns", disk_sync_ns},
            {"restart_ns", restart_ns}};
  }
};

}  // namespace wtsim::engine
