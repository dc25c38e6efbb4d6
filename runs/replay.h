#pragma once
// Replay: re-run a trace from its header (scenario, seed, the fault plan it ran) and compare every
// event with the recorded ones, "measured" values aside (see traces/trace.h).
#include <nlohmann/json.hpp>

#include <optional>
#include <string>

#include "traces/trace.h"
#include "world/world.h"

namespace wtsim::runs {

using traces::Divergence;

struct ReplayResult {
  world::RunResult run;
  std::optional<Divergence> divergence;
};

// `trace` is a validated trace document; throws std::invalid_argument on a bad header.
ReplayResult replay(const nlohmann::json& trace, const std::string& origin);
// A trace file of either form (traces::read_trace). A JSON Lines trace is compared on the fly as
// the re-run streams its events, and read to its end record (count and hash checked), so neither
// side is held in memory. Throws std::invalid_argument on a bad or unreadable trace.
ReplayResult replay_file(const std::string& path);

}  // namespace wtsim::runs
