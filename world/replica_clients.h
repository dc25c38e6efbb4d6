#pragma once
// The clients of a replica set with elections: each a fiber of the run (group "clients"), not
// of a node, on the network's client endpoint (member count as its index). As a driver does,
// a client finds the primary (asks each member whether it is a writable primary and takes the
// newest term's), sends each operation of the "documents" workload to it, and on an answer that
// it is no longer primary, or none at all, finds the primary again and retries the operation
// once. A write asks w:1 or, with replica_set.majority_fraction, w:"majority".
//
// Every attempt is in the trace: `client_invoke` (client, seq, op, member, w, j) and
// `client_complete` (fate ok, failed, not_primary or unknown; for a write, the oplog entry it
// ended with). An acknowledged w:"majority" write is recorded for majority_writes_survive
// (world/replica_set.h).
#include <cstdint>
#include <optional>
#include <string>

#include "world/replica_set.h"
#include "world/run_context.h"

namespace wtsim::world {

class ReplicaClients {
 public:
  static constexpr sim::Nanos kRequestTimeoutNs = 10 * sim::kNsPerSec;  // beyond any wtimeout's wait

  ReplicaClients(RunContext& run, ReplicaSet& set) : run_(run), set_(set) {}
  void spawn();

 private:
  struct Attempt {
    ClientReply reply;
    bool answered = false;
    std::string why;  // not answered: why
  };
  void client(int index);
  // One operation: its attempt, and the retry an answer allows.
  void operation(int index, const ClientRequest& request);
  Attempt attempt(size_t member, const ClientRequest& request);
  size_t endpoint() const { return set_.members(); }
  uint64_t event(const char* kind, nlohmann::json details);

  RunContext& run_;
  ReplicaSet& set_;
  std::optional<size_t> primary_;  // the clients' shared view, as a driver's topology
  uint64_t seq_ = 0;               // names each attempt
};

}  // namespace wtsim::world
