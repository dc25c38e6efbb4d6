#include "world/ttl_monitor.h"

#include <cassert>
#include <cmath>

#include "properties/ttl_index_scan.h"
#include "sim/planted.h"
#include "world/doc_system.h"
#include "world/node_context.h"
#include "world/run_context.h"

namespace wtsim::world {

void TtlMonitor::run(const std::unique_ptr<engine::DocumentEngine>& engine, const FindingFn& finding) {
  assert(spec_.mode == TtlMode::kIndex && spec_.monitor_sleep_ns > 0);
  sim::Simulator& sim = run_.sim();
  engine::OperationContext op(host_.node().conn());
  std::optional<bool> first_role;
  while (true) {
    sim.sleep_until(std::min(sim.now_ns() + spec_.monitor_sleep_ns, run_.end_ns()));
    if (sim.now_ns() >= run_.end_ns()) break;
    // A script's runTtlPass may be running one: this wake-up then has nothing to do.
    if (spec_.monitor_enabled && !in_pass_) pass(*engine, op, role(first_role), finding);
  }
  assert(!in_pass_);
}

bool TtlMonitor::role(std::optional<bool>& first) const {
  const bool now = primary_now();
  if (!first) first = now;
  return planted::active(planted::Bug::kTtlRoleReadOnce) ? *first : now;
}

TtlMonitor::PassReport TtlMonitor::pass_now(engine::DocumentEngine& engine, engine::OperationContext& op, const FindingFn& finding) {
  constexpr sim::Nanos kPollNs = 10 * sim::kNsPerMs;
  while (in_pass_) run_.sim().sleep_for(kPollNs);
  return pass(engine, op, primary_now(), finding);
}

TtlMonitor::PassReport TtlMonitor::pass(engine::DocumentEngine& engine, engine::OperationContext& op, bool primary, const FindingFn& finding) {
  sim::Simulator& sim = run_.sim();
  const sim::Nanos start_ns = sim.now_ns();
  const int64_t start_ms = engine.now_ms();
  const uint64_t number = ++passes_;
  pass_start_event_ = event(start_ns, "ttl_pass_start", {{"pass", number}, {"now_ms", start_ms}});
  NodeContext::NodeCallOptions options;
  options.busy = &in_pass_;
  const engine::TtlPassResult r = host_.node_call("ttl_pass", [&] { return engine.ttl_pass(op, primary); }, options);
  assert(!in_pass_);
  event(sim.now_ns(), "ttl_pass",
        {{"pass", number}, {"indexes", r.indexes}, {"deleted", r.deleted}, {"ok", r.status.ok()}, {"took_us", (sim.now_ns() - start_ns) / sim::kNsPerUs}});
  if (primary && r.status.ok()) check_bounded_age(engine, op, start_ms, finding);
  if (r.status.ok()) last_pass_start_ns_ = start_ns;
  assert(!r.status.ok() || last_pass_start_ns_ == start_ns);
  return {r.status, start_ms, r.deleted};
}

uint64_t TtlMonitor::event(sim::Nanos at_ns, const char* kind, nlohmann::json details) {
  if (host_.member() > 0) details["member"] = host_.member();
  return run_.trace().event(at_ns, run_.sim().current().name, kind, std::move(details));
}

// Absent faults, nothing older than the bound of a finished pass may remain: counted on the
// index's raw entries (properties/ttl_index_scan.h), in one snapshot.
void TtlMonitor::check_bounded_age(engine::DocumentEngine& engine, engine::OperationContext& op, int64_t pass_start_ms,
                                   const FindingFn& finding) {
  for (const auto& [ns, coll] : engine.catalog().collections()) {
    for (const engine::IndexSpec& index : coll.indexes) {
      if (!index.expire_after_seconds || !index.expire_after_seconds->is_number() || index.fields.size() != 1) continue;
      if (coll.capped_max_docs > 0) continue;  // the monitor deletes nothing there
      // MongoDB's monitor reads expireAfterSeconds as a whole number (1.9 s is 1 s).
      const int64_t bound = pass_start_ms - static_cast<int64_t>(std::trunc(index.expire_after_seconds->get<double>())) * 1000;
      uint64_t left = 0;
      // A failed count is no finding, and the pass's own calls report the node's failures.
      const int ret = host_.node_call("ttl_count", [&] {
        const int begun = op.begin();
        if (begun != 0) return begun;
        const int r = properties::count_dates_below(op.session(), index.table, index.fields.front().second < 0, bound, &left);
        op.rollback();
        return r;
      }, {.handle_failure = false});
      if (ret == 0 && left > 0) {
        finding(properties::Property::kTtlBoundedAge,
                ns + ": " + std::to_string(left) + " index entries of " + index.name + " older than the bound of the pass that just finished");
      }
    }
  }
}

}  // namespace wtsim::world
