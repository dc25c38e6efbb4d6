// libFuzzer target: bytes -> the trace reading path of `wtsim replay`, `export` and `report`.
// A clean rejection is std::invalid_argument (sim::JsonError is one) with a message; a crash, a
// sanitizer report, an assertion or any other exception escaping is a finding.
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <stdexcept>
#include <string>

#include "faults/fault_plan.h"
#include "fuzz/input_file.h"
#include "sim/json_reader.h"
#include "world/scenario.h"
#include "traces/openmetrics.h"
#include "traces/perfetto.h"
#include "traces/report.h"
#include "traces/trace.h"
#include "traces/trace_reader.h"
#include "traces/trace_stream.h"

namespace {

using wtsim::traces::LoadedTrace;

// A rejection must name the file (or JSON path) and say what is wrong; a message cut short (a
// NUL from the input ends what()) typically ends in a path or a separator.
void check_message(const std::invalid_argument& e, const std::string& origin) {
  const std::string what = e.what();
  if (what.rfind(origin, 0) != 0 || what.size() <= origin.size() + 2) std::abort();
  if (std::string("/: ").find(what.back()) != std::string::npos) std::abort();
}

// What the commands do with an accepted trace: export (OpenMetrics, Perfetto), report; replay
// reads its header's scenario and fault plan (as runs/replay.cpp does) before running.
void use_accepted(const nlohmann::json& doc, const std::string& path) {
  (void)wtsim::traces::openmetrics_document(doc);
  try {
    std::ostringstream perfetto;
    (void)wtsim::traces::write_perfetto(doc, perfetto);
  } catch (const std::invalid_argument&) {  // wtsim export prints it and exits 2
  }
  try {
    (void)wtsim::traces::report_html(doc);
  } catch (const std::invalid_argument&) {  // wtsim report prints it and exits 2
  }
  const nlohmann::json& header = doc.at("header");
  try {
    (void)wtsim::world::scenario_from_json(header.at("scenario"), path + " (header)");
    (void)wtsim::faults::plan_from_json(header.at("fault_plan"), "/header/fault_plan");
  } catch (const std::invalid_argument&) {
  }
}

// A single-document trace whose only fault may be its hash: give it the right one, so the fuzzer
// also reaches the code behind the hash check (anyone can compute the hash of an edited trace).
void rehash_and_use(const std::string& path, const char* data, size_t size) {
  nlohmann::json doc;
  try {
    doc = wtsim::sim::parse_json(std::string(data, size), path);
  } catch (const std::invalid_argument&) {
    return;
  }
  if (!doc.is_object() || !doc.contains("header") || !doc.contains("events") || !doc.contains("verdict")) return;
  const nlohmann::json* dropped = doc.contains("dropped_events") ? &doc["dropped_events"] : nullptr;
  if (dropped == nullptr || !dropped->is_number_unsigned()) return;
  if (dropped->get<uint64_t>() != 0) return;
  doc["trace_hash"] = wtsim::traces::Trace::compute_hash(doc["header"], doc["events"], doc["verdict"]);
  try {
    wtsim::traces::validate_trace(doc);
  } catch (const std::invalid_argument&) {
    return;
  }
  use_accepted(doc, path);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const char* bytes = reinterpret_cast<const char*>(data);
  const std::string& path = wtsim::fuzz::write_input(bytes, size);
  LoadedTrace trace;
  try {
    trace = wtsim::traces::read_trace(path);
  } catch (const std::invalid_argument& e) {
    check_message(e, path);
    if (!wtsim::traces::is_jsonl_trace(path)) rehash_and_use(path, bytes, size);
    return 0;
  }
  use_accepted(trace.doc, path);
  return 0;
}
