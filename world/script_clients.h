#pragma once
// A script (world/script.h) on a replica set with elections: its clients are fibers of the run
// (group "clients") on the network's client endpoint, as a shell connected to the set is. A
// document command goes to the primary the client found (server selection:
// world/server_selection.h); an answer that the member is not primary, or none at all, makes it
// find the primary again and send the command once more, as a driver retries. A find that names
// a member reads there whatever its role. `stepDown` runs replSetStepDown on the primary
// (world/elector.h) and drops the client's connections (it finds the primary again);
// `replSetGetStatus` and `awaitReplication` default to the primary of now. Writes may ask
// w:"majority" (and wtimeout_ms): an acknowledged one is recorded for majority_writes_survive.
// Node commands (crash, checkpoint, flush, setParameter, waitTtlPass, runTtlPass) have no member to run on
// here: the scenario's parser refuses them with elections.
#include <cstddef>
#include <optional>
#include <string>

#include "world/replica_set.h"
#include "world/run_context.h"
#include "world/script_driver.h"

namespace wtsim::world {

class ScriptClients final : private ScriptDriver {
 public:
  static constexpr sim::Nanos kRequestTimeoutNs = 10 * sim::kNsPerSec;  // beyond any wtimeout's wait
  static constexpr uint64_t kCatchUpSecsDefault = 10;     // replSetStepDown's secondaryCatchUpPeriodSecs
  static constexpr uint64_t kStepDownSecsDefault = 60;    // its stepDownSecs

  ScriptClients(RunContext& run, ReplicaSet& set) : ScriptDriver(run, *run.scenario().script), set_(set) {}
  void spawn();

 private:
  void client(size_t c);
  ScriptReply run(const ScriptStep& step, const nlohmann::json& args);
  // On the primary, found again and sent once more if the first answer says it is not one.
  ScriptReply on_primary(const ScriptStep& step, const nlohmann::json& args);
  ScriptReply send(size_t member, const ScriptRequest& request);
  ScriptReply step_down(const nlohmann::json& args);
  ScriptReply member_status(const nlohmann::json& args);
  // The primary the clients know, found again if they know none.
  std::optional<size_t> primary();
  // The set's own view (the writable member of the newest term): for status, not for routing.
  std::optional<size_t> primary_now();

  bool expectations_void() override;
  void report(const std::string& detail) override;
  void checked(const ScriptStep& step, const ScriptReply& reply, uint64_t event) override;
  size_t endpoint() const { return set_.members(); }

  ReplicaSet& set_;
  std::optional<size_t> primary_;  // the clients' shared view, as a driver's topology
};

}  // namespace wtsim::world
