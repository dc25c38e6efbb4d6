#pragma once
// The simulated network between a replica set's members: each message's one-way delay is drawn
// from its link's own seeded stream ("network.<from>-<to>"), uniform in the scenario's
// [latency_min, latency_max]; a cut link loses what is sent on it (the sender sees a timeout, as
// at a dropped connection). Links are directed, so a partition may be one-way.
#include <cstddef>
#include <optional>
#include <map>
#include <utility>
#include <vector>

#include "sim/random.h"
#include "sim/virtual_clock.h"

namespace wtsim::faults {

class Network {
 public:
  static constexpr size_t kNodesMax = 50;

  Network(uint64_t seed, size_t nodes, sim::Nanos latency_min_ns, sim::Nanos latency_max_ns);

  // The delay of one message from `from` to `to`, or nullopt when the link is cut.
  std::optional<sim::Nanos> delay(size_t from, size_t to);
  // Cuts are counted: a link cut by two overlapping faults is whole again when both uncut it.
  void cut(size_t from, size_t to);
  void uncut(size_t from, size_t to);
  // Both directions between `node` and every other node.
  void isolate(size_t node);
  void heal();
  bool is_cut(size_t from, size_t to) const { return cut_.count({from, to}) != 0; }
  size_t nodes() const { return nodes_; }

 private:
  size_t nodes_;
  sim::Nanos latency_min_ns_, latency_max_ns_;
  std::vector<sim::Rng> links_;             // from * nodes + to
  std::map<std::pair<size_t, size_t>, int> cut_;  // link -> cuts in force (ordered: deterministic)
};

}  // namespace wtsim::faults
