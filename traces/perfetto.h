#pragma once
// A trace as Chrome trace-event JSON ({"traceEvents": [...]}), which Perfetto (ui.perfetto.dev)
// and chrome://tracing open. Timestamps are microseconds of virtual time. One process (the run),
// one track (tid) per actor, named by "M" metadata events; every event but the metrics samples is
// an instant ("i") on its actor's track with its details as args; phases (traces/phases.h) are
// complete ("X") spans; each metrics sample becomes one counter ("C") event per panel
// (traces/metric_series.h). Events are written in time order, so ts never decreases on a track.
#include <nlohmann/json.hpp>

#include <ostream>

namespace wtsim::traces {

// Writes the export of a validated trace to `out`, streaming (memory stays bounded by the trace's
// own size). Returns the number of trace events written.
size_t write_perfetto(const nlohmann::json& trace, std::ostream& out);

}  // namespace wtsim::traces
