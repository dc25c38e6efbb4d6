#include "runs/single_run.h"

#include <cassert>
#include <cstdio>
#include <exception>

#include "runs/summary.h"
#include "traces/trace_stream.h"

namespace wtsim::runs {
namespace {

std::string nondeterminism(uint64_t seed, const std::string& first, const std::string& second) {
  return "NONDETERMINISM: seed " + std::to_string(seed) + " gave trace hash " + first + ", then " + second;
}

// Writes or drops the trace as the options ask; false (with `out->error`) if it cannot be written.
bool keep_trace(const SingleRunOptions& o, traces::JsonlTraceWriter* stream, bool keep, SingleRunOutcome* out) {
  if (o.trace_path.empty()) return true;
  try {
    if (stream != nullptr) {
      stream->finish(out->result.trace->verdict(), out->hash);
      if (!keep) std::remove(o.trace_path.c_str());  // streamed already: finished, then dropped
    } else if (keep) {
      out->result.trace->write(o.trace_path);
    }
  } catch (const std::exception& e) {
    out->error = e.what();
    return false;
  }
  out->trace_written = keep;
  return true;
}

// Records a failure in `out` and hands it back (moved: a RunResult owns its trace).
SingleRunOutcome set_failure(SingleRunOutcome* out, ExitCode code, std::string error) {
  out->code = code;
  out->error = std::move(error);
  return std::move(*out);
}

}  // namespace

SingleRunOutcome run_single(const world::Scenario& scenario, const SingleRunOptions& o) {
  assert(scenario.knobs.empty() && "knobs are drawn once, before the run");
  SingleRunOutcome out;
  // A .jsonl trace streams as the run goes (nothing kept in memory); opened first, so a bad path
  // fails before the run.
  std::unique_ptr<traces::JsonlTraceWriter> stream;
  try {
    if (traces::has_jsonl_extension(o.trace_path)) stream = std::make_unique<traces::JsonlTraceWriter>(o.trace_path);
  } catch (const std::exception& e) {
    return set_failure(&out, kBadInput, e.what());
  }
  // Without a trace file nothing is kept: every event is hashed as it goes. --trace-if-failed:
  // most runs hold, so the first run only hashes; one that fails runs again keeping its events
  // (one seed is one run: the same trace, its hash checked).
  traces::HashOnlySink hash_only;
  traces::EventSink* sink = stream.get();
  const bool hash_first = o.trace_path.empty() || (o.trace_if_failed && !stream);
  if (hash_first) sink = &hash_only;
  out.result = world::run_scenario(scenario, o.seed, nullptr, o.progress, sink);
  out.hash = out.result.trace->hash();
  if (!o.facts_path.empty() && !write_facts(o.facts_path, out.result.trace->verdict(), out.hash)) {
    return set_failure(&out, kBadInput, "");  // write_facts said why
  }
  const bool keep = !o.trace_if_failed || !out.result.ok || !out.result.unsurvivable.empty();
  if (hash_first && keep && !o.trace_path.empty()) {
    out.result = world::run_scenario(scenario, o.seed);
    if (out.result.trace->hash() != out.hash) {
      return set_failure(&out, kNondeterministic, nondeterminism(o.seed, out.hash, out.result.trace->hash()));
    }
  }
  if (!keep_trace(o, stream.get(), keep, &out)) return set_failure(&out, kBadInput, out.error);
  if (o.check_determinism) {
    traces::HashOnlySink again_sink;  // the second run hashes in the first run's form
    const world::RunResult again = world::run_scenario(scenario, o.seed, nullptr, nullptr, sink != nullptr ? &again_sink : nullptr);
    out.second_hash = again.trace->hash();
    if (*out.second_hash != out.hash) return set_failure(&out, kNondeterministic, nondeterminism(o.seed, out.hash, *out.second_hash));
  }
  out.code = out.result.ok ? kHeld : kViolated;
  return out;
}

}  // namespace wtsim::runs
