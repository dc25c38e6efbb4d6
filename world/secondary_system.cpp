// What runs on a replica set member other than the primary: its node actors (journal flusher,
// checkpointer: world/node_host_actors.cpp), its oplog trimmer, and a TTL monitor that, as a
// secondary's in MongoDB, passes over the TTL indexes and deletes nothing (a secondary's expired
// documents go when the primary's deletes reach it through the oplog). It takes no client writes.
#include "world/doc_system.h"
#include "world/ttl_monitor.h"

namespace wtsim::world {
namespace {

TtlSpec as_secondary(TtlSpec spec) {
  spec.primary = false;
  return spec;
}

class SecondarySystem final : public DocSystem {
 public:
  using DocSystem::DocSystem;

  void spawn_actors(const std::string& suffix) override {
    if (runs_ttl_monitor()) {
      run_.sim().spawn("ttl-monitor" + suffix, host_.fiber_group(), [this] {
        monitor_.run(engine_, [this](properties::Property p, const std::string& detail) { finding(p, detail); });
      });
    }
    spawn_oplog_trimmer(suffix);
  }

  std::vector<properties::Marker> busy_phases() const override {
    std::vector<properties::Marker> phases = DocSystem::busy_phases();
    if (monitor_.in_pass()) phases.push_back(properties::Marker::kCrashDuringTtlPass);
    return phases;
  }

 protected:
  // The collections and indexes arrive with replication; until then the member holds none.
  engine::Status create_schema(engine::OperationContext&) override { return {}; }

 private:
  bool runs_ttl_monitor() const {
    const WorkloadKind kind = run_.scenario().workload.kind;
    const TtlSpec& ttl = run_.scenario().ttl;
    return (kind == WorkloadKind::kTimeSeries || kind == WorkloadKind::kScript) && ttl.mode == TtlMode::kIndex;
  }

  TtlSpec ttl_ = as_secondary(run_.scenario().ttl);
  TtlMonitor monitor_{run_, host_, ttl_};
};

}  // namespace

std::unique_ptr<System> make_secondary_system(RunContext& run, NodeContext& host) {
  return std::make_unique<SecondarySystem>(run, host);
}

}  // namespace wtsim::world
