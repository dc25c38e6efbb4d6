#pragma once
// How many client operations a trace holds: the measure of a shrunk failure ("shrunk to N
// operations"). Background actors' commits (the director's schema, a TTL monitor's deletes, a
// secondary applying the oplog, a restart's catalog repair) are not client operations.
//
// A replica set's clients record each operation as a `client_invoke` event (the primary's commits
// for it are then not counted again); a single node's clients as the `commit` or `read` event of
// the operation itself.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>

namespace wtsim::traces {

class ClientOperationCounter {
 public:
  void add(const nlohmann::json& event);
  uint64_t count() const { return invocations_ > 0 ? invocations_ : commits_and_reads_; }

 private:
  uint64_t invocations_ = 0;
  uint64_t commits_and_reads_ = 0;
};

// True for the fiber name of a workload's or a script's client ("writer-2.g1", "client3.g2",
// "toucher.g1"); false for a node's or the world's background actors ("ttl-monitor.g2",
// "oplog-fetcher.m1.g1", "director", "index-builder.g1").
bool is_client_actor(const std::string& actor);

}  // namespace wtsim::traces
