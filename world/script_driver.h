#pragma once
// What running a script (world/script.h) is wherever its commands go: each client's steps in
// order, across restarts, each `repeat` times, with its expectations checked after the last
// (the property script_expectations); and the steps that need no engine: sleep, barrier,
// partition, pause and heal. Two drivers build on it: ScriptSystem (world/script_system.cpp),
// the script on the first member's own node, and ScriptClients (world/script_clients.h),
// clients on the network that find the primary of a replica set with elections.
#include <cstddef>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "sim/sync.h"
#include "world/run_context.h"
#include "world/script.h"
#include "world/script_command.h"

namespace wtsim::world {

class ScriptDriver {
 protected:
  ScriptDriver(RunContext& run, const Script& script);
  ~ScriptDriver() = default;
  ScriptDriver(const ScriptDriver&) = delete;
  ScriptDriver& operator=(const ScriptDriver&) = delete;

  // One run of a step with its arguments resolved ({"$now": ...} at the time it runs).
  using RunStep = std::function<ScriptReply(const ScriptStep& step, const nlohmann::json& args)>;
  // After a step's last run, before its check: adds what only the driver can read (its node's
  // metrics, its disk).
  using Complete = std::function<void(const ScriptStep& step, ScriptReply& reply)>;

  // Client `c`'s steps from the one after the last it began (a crash ends the step in progress).
  void run_client(size_t c, const RunStep& run, const Complete& complete);
  bool has_steps(size_t c) const { return next_[c] < script_.clients[c].size(); }
  size_t clients() const { return script_.clients.size(); }
  // sleep, barrier, partition, pause, heal: whether `step` is one of them (then it is done).
  bool common_step(const ScriptStep& step, const nlohmann::json& args);
  // awaitReplication: until every member holds entry `target_ts` (the primary's newest), "OK",
  // or "WriteConcernFailed" once timeout_ms (default 10 s) passed first.
  ScriptReply await_members(uint64_t target_ts, const nlohmann::json& args);
  // The virtual now as a Date's milliseconds (the engine's clock).
  int64_t now_ms() const;

  // Whether later expectations no longer follow from the script (a crash it did not ask for).
  virtual bool expectations_void() = 0;
  // An unmet expectation, as the driver reports it.
  virtual void report(const std::string& detail) = 0;
  // After a step's check, with its script_step event.
  virtual void checked(const ScriptStep&, const ScriptReply&, uint64_t /*event*/) {}

  RunContext& run_;
  const Script& script_;

 private:
  void check(const ScriptStep& step, const ScriptReply& r);
  void barrier(const ScriptStep& step);
  // Gives back every link the script's partitions cut and resumes its paused members.
  void heal();

  std::vector<size_t> next_;              // per client: the next step, across restarts
  std::vector<size_t> arrivals_;          // per barrier: clients that reached it
  std::vector<size_t> barriers_passed_;   // per client: barriers reached
  sim::WaitQueue barrier_;                // clients waiting at a barrier
  size_t clients_done_ = 0;               // clients past their last step
};

}  // namespace wtsim::world
