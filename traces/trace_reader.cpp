#include "traces/trace_reader.h"

#include <fstream>
#include <sstream>

#include "sim/json_reader.h"
#include "traces/trace.h"
#include "traces/trace_stream.h"

namespace wtsim::traces {

void validate_event(const nlohmann::json& e, uint64_t position, const std::string& path) {
  sim::ObjectReader r(e, path);
  if (sim::as_u64(r.required("i"), r.path_of("i")) < position) throw sim::JsonError(r.path_of("i"), "indexes must ascend");
  sim::as_u64(r.required("t_us"), r.path_of("t_us"));
  r.string("actor");
  r.string("kind");
  r.optional("details");
  r.reject_unknown();
}

void validate_trace(const nlohmann::json& doc) {
  sim::ObjectReader r(doc, "");
  const std::string format = r.string("format");
  if (format != kFormatName) throw sim::JsonError("/format", "not a wtsim trace (\"" + format + "\")");
  check_format_version(sim::as_u64(r.required("version"), "/version"));
  sim::ObjectReader header(r.required("header"), "/header");
  sim::as_u64(header.required("seed"), "/header/seed");
  header.required("scenario");
  header.required("fault_plan");  // replay reads it (the run's plan, as run)
  const nlohmann::json& events = r.required("events");
  if (!events.is_array()) throw sim::JsonError("/events", "expected an array, found " + sim::describe(events));
  for (size_t i = 0; i < events.size(); ++i) validate_event(events[i], i, "/events/" + std::to_string(i));
  sim::as_u64(r.required("dropped_events"), "/dropped_events");
  sim::ObjectReader verdict(r.required("verdict"), "/verdict");
  verdict.required("ok");
  const std::string hash = r.string("trace_hash");
  r.reject_unknown();

  // A trace that dropped events carries the hash of all of them; the file cannot recheck it.
  if (doc["dropped_events"].get<uint64_t>() > 0) {
    const bool hex = hash.size() == 16 && hash.find_first_not_of("0123456789abcdef") == std::string::npos;
    if (!hex) throw sim::JsonError("/trace_hash", "expected 16 lowercase hex digits, found \"" + hash + "\"");
    return;
  }
  const std::string computed = Trace::compute_hash(doc["header"], events, doc["verdict"]);
  if (computed != hash) {
    throw sim::JsonError("/trace_hash", "recorded " + hash + " but the content hashes to " +
                                            computed + " (edited or corrupt)");
  }
}

LoadedTrace read_trace(const std::string& path) {
  if (is_jsonl_trace(path)) return LoadedTrace{load_jsonl(path), path};
  LoadedTrace t{nlohmann::json(), path};
  t.doc = sim::parse_json(sim::read_input_file(path, "trace"), path, " (truncated or corrupt?)");
  try {
    validate_trace(t.doc);
  } catch (const sim::JsonError& e) {
    throw std::invalid_argument(path + ": " + e.what());
  }
  return t;
}

}  // namespace wtsim::traces
