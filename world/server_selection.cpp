#include "world/server_selection.h"

#include <memory>

#include "world/elector.h"

namespace wtsim::world {
namespace {

struct IsMaster {
  bool writable = false;
  uint64_t term = 0;
};

}  // namespace

std::optional<size_t> select_primary(RunContext& run, ReplicaSet& set, size_t endpoint) {
  sim::Simulator& sim = run.sim();
  while (sim.now_ns() < run.end_ns()) {
    std::optional<size_t> best;
    uint64_t best_term = 0;
    for (size_t m = 0; m < set.members(); ++m) {
      if (set.spec().members[m].hidden) continue;  // invisible to clients
      auto answer = std::make_shared<IsMaster>();
      const std::string why = set.rpc().call(endpoint, m, "is-master", kIsMasterTimeoutNs, [&set, m, answer](bool* done) {
        *answer = {set.elector(m).writable(), set.elector(m).term()};
        *done = true;
      }, /*drop_on_crash=*/true);
      if (why.empty() && answer->writable && (!best || answer->term > best_term)) {
        best = m;
        best_term = answer->term;
      }
    }
    if (best) return best;
    sim.sleep_for(kNoPrimaryWaitNs);
  }
  return std::nullopt;
}

}  // namespace wtsim::world
