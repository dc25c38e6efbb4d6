#pragma once
// A request over the simulated network (faults/network.h) to one replica set member, and its
// answer: the request waits its link's delay, the member serves it in a fiber of its own node
// (it dies with the node: a crash loses the answer), and the answer waits the way back. A cut
// link loses the message and the sender waits out its timeout, as at a dropped connection.
// Replication's sync source (world/sync_source.h), elections (world/elector.h) and the
// replica set's clients (world/replica_clients.h) all ask this way.
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "faults/network.h"
#include "sim/scheduler.h"
#include "world/node_context.h"

namespace wtsim::world {

class MemberRpc {
 public:
  static constexpr sim::Nanos kPollNs = sim::kNsPerMs;  // how often a waiting sender looks

  // Whether member `to` can serve now (its node up and ready); checked again in the serving fiber.
  using Ready = std::function<bool()>;
  struct Target {
    NodeContext* host = nullptr;
    Ready ready;
    std::string name;  // in the reasons: "the primary", "member 2"
  };

  MemberRpc(sim::Simulator& sim, faults::Network& network) : sim_(sim), network_(network) {}

  // Members in order: member m is the m-th added; its network endpoint is m.
  void add_member(Target target) { targets_.push_back(std::move(target)); }
  NodeContext& host(size_t member) { return *targets_.at(member).host; }
  size_t members() const { return targets_.size(); }

  // From a fiber of endpoint `from` to member `to`: "" once `serve` ran there and its answer came
  // back, else why not. `serve` runs in a fiber named `<fiber><member's generation>.<n>`; it must
  // set `*done` when its answer is complete (a crash inside it leaves the sender waiting out
  // `timeout_ns`).
  // With `drop_on_crash` the sender stops waiting as soon as the member crashes (its connection
  // drops, as a client's does); without it, it waits out the timeout. A `give_up` that turns
  // true while the sender waits for the answer ends the wait too (the sender cancels it).
  using Serve = std::function<void(bool* done)>;
  using GiveUp = std::function<bool()>;
  std::string call(size_t from, size_t to, const std::string& fiber, sim::Nanos timeout_ns, Serve serve, bool drop_on_crash = false,
                   const GiveUp& give_up = nullptr);

 private:
  sim::Simulator& sim_;
  faults::Network& network_;
  std::vector<Target> targets_;
  uint64_t requests_ = 0;  // names the serving fibers
};

}  // namespace wtsim::world
