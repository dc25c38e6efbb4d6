#include "world/member_rpc.h"

#include <cassert>
#include <memory>

namespace wtsim::world {

std::string MemberRpc::call(size_t from, size_t to, const std::string& fiber, sim::Nanos timeout_ns, Serve serve, bool drop_on_crash,
                            const GiveUp& give_up) {
  assert(to < targets_.size() && from != to && from < network_.nodes());
  const Target& target = targets_[to];
  const sim::Nanos start_ns = sim_.now_ns();
  const std::optional<sim::Nanos> there = network_.delay(from, to);
  if (!there) {
    sim_.sleep_for(timeout_ns);
    return "the link to " + target.name + " is cut";
  }
  sim_.sleep_for(*there);
  auto done = std::make_shared<bool>(false);  // shared: the sender may give up first
  if (target.ready()) {
    const Target* t = &target;  // the MemberRpc outlives every fiber of the run
    sim_.spawn(fiber + t->host->generation_suffix() + "." + std::to_string(++requests_), t->host->fiber_group(),
               [done, serve = std::move(serve), t] {
                 if (!t->ready()) return;  // it crashed before this fiber ran: no answer
                 serve(done.get());
               });
  }
  const std::string generation = target.host->generation_suffix();
  while (!*done && sim_.now_ns() - start_ns < timeout_ns) {
    const bool crashed = !target.ready() || target.host->generation_suffix() != generation;
    if (drop_on_crash && crashed) return "the connection to " + target.name + " dropped (it crashed)";
    if (give_up && give_up()) return "given up";
    sim_.sleep_for(kPollNs);
  }
  if (!*done) return target.ready() ? "no answer in time" : target.name + " is down";
  const std::optional<sim::Nanos> back = network_.delay(to, from);
  if (!back) {
    sim_.sleep_for(timeout_ns);
    return "the link from " + target.name + " is cut";
  }
  sim_.sleep_for(*back);
  return "";
}

}  // namespace wtsim::world
