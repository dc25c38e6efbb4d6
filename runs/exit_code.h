#pragma once
// The tool's exit codes: what a run, a replay, an explore or a self-test ends with. The drivers
// here and the verbs in cli/ return them; scripts and CI read them.
namespace wtsim::runs {

enum ExitCode { kHeld = 0, kViolated = 1, kBadInput = 2, kNondeterministic = 3 };

}  // namespace wtsim::runs
