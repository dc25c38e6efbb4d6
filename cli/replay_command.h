#pragma once
// `wtsim replay TRACE`: re-runs a trace from its header (scenario, seed, the fault plan it ran)
// and compares every event with the recorded ones (file-system measurements aside); the first
// divergence is reported with the event index, expected and got, and exits 3.
#include <string>

namespace wtsim::cli {

int replay_command(const std::string& trace_path, bool quiet);

}  // namespace wtsim::cli
