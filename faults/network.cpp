#include "faults/network.h"

#include <cassert>
#include <string>

namespace wtsim::faults {

Network::Network(uint64_t seed, size_t nodes, sim::Nanos latency_min_ns, sim::Nanos latency_max_ns)
    : nodes_(nodes), latency_min_ns_(latency_min_ns), latency_max_ns_(latency_max_ns) {
  assert(nodes >= 1 && nodes <= kNodesMax);
  assert(latency_min_ns >= 0 && latency_min_ns <= latency_max_ns);
  links_.reserve(nodes * nodes);
  for (size_t from = 0; from < nodes; ++from) {
    for (size_t to = 0; to < nodes; ++to) {
      links_.push_back(sim::stream(seed, "network." + std::to_string(from) + "-" + std::to_string(to)));
    }
  }
}

std::optional<sim::Nanos> Network::delay(size_t from, size_t to) {
  assert(from < nodes_ && to < nodes_ && from != to);
  if (is_cut(from, to)) return std::nullopt;
  const sim::Nanos d = links_[from * nodes_ + to].between(latency_min_ns_, latency_max_ns_);
  assert(d >= latency_min_ns_ && d <= latency_max_ns_);
  return d;
}

void Network::cut(size_t from, size_t to) {
  assert(from < nodes_ && to < nodes_ && from != to);
  ++cut_[{from, to}];
}

void Network::uncut(size_t from, size_t to) {
  auto it = cut_.find({from, to});
  if (it == cut_.end()) return;  // healed meanwhile
  assert(it->second > 0);
  if (--it->second == 0) cut_.erase(it);
}

void Network::isolate(size_t node) {
  for (size_t other = 0; other < nodes_; ++other) {
    if (other == node) continue;
    cut(node, other);
    cut(other, node);
  }
}

void Network::heal() { cut_.clear(); }

}  // namespace wtsim::faults
