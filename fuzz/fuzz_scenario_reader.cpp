// libFuzzer target: bytes -> the scenario loader of `wtsim run` (with --set overrides and knobs),
// the fault plan and swarm readers, and a run's first use of them (drawing knobs and a plan).
// Input: up to kMaxOverrides leading lines "--set path=value", then the scenario file's text.
// A clean rejection is std::invalid_argument with a message naming the file; a crash, a sanitizer
// report, an assertion or any other exception escaping is a finding.
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#include "faults/fault_plan.h"
#include "faults/fault_swarm.h"
#include "fuzz/input_file.h"
#include "sim/json_reader.h"
#include "sim/random.h"
#include "world/knobs.h"
#include "world/scenario.h"

namespace {

constexpr size_t kMaxOverrides = 4;

// Splits off the leading "--set " lines; returns the rest (the file's text).
std::string split_overrides(const std::string& input, std::vector<std::string>& overrides) {
  size_t pos = 0;
  while (overrides.size() < kMaxOverrides && input.compare(pos, 6, "--set ") == 0) {
    const size_t end = input.find('\n', pos);
    if (end == std::string::npos || input.find('\0', pos) < end) break;  // argv holds no NUL
    overrides.push_back(input.substr(pos + 6, end - pos - 6));
    pos = end + 1;
  }
  return input.substr(pos);
}

// A rejection must name the file (or JSON path) and say what is wrong; a message cut short (a
// NUL from the input ends what()) typically ends in a path or a separator.
void check_message(const std::invalid_argument& e, const std::string& origin) {
  const std::string what = e.what();
  if (what.rfind(origin, 0) != 0 || what.size() <= origin.size() + 2) std::abort();
  if (std::string("/: ").find(what.back()) != std::string::npos) std::abort();
}

// What a run does first with the scenario, for a few seeds: draw its knobs, then use its plan or
// draw one from its swarm.
void use_loaded(const wtsim::world::Scenario& declared) {
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    wtsim::world::Scenario s;
    try {
      s = wtsim::world::draw_knobs(declared, seed);
    } catch (const std::invalid_argument&) {  // values that combine badly: wtsim run exits 2
      continue;
    }
    if (s.fault_plan) {
      (void)wtsim::faults::to_json(*s.fault_plan);
      continue;
    }
    wtsim::sim::Rng rng = wtsim::sim::stream(seed, "fault-plan");  // as world.cpp
    (void)wtsim::faults::to_json(wtsim::faults::draw_plan(s.swarm, rng, s.duration_ns));
  }
}

// A fault plan or a swarm spec on its own (the shape a trace header or a scenario embeds).
void read_parts(const std::string& text) {
  nlohmann::json j;
  try {
    j = wtsim::sim::parse_json(text, "part");
  } catch (const std::invalid_argument&) {
    return;
  }
  try {
    (void)wtsim::faults::plan_from_json(j, "/fault_plan");
  } catch (const std::invalid_argument& e) {
    check_message(e, "/fault_plan");
  }
  try {
    (void)wtsim::faults::swarm_from_json(j, "/swarm");
  } catch (const std::invalid_argument& e) {
    check_message(e, "/swarm");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<std::string> overrides;
  const std::string text = split_overrides(std::string(reinterpret_cast<const char*>(data), size), overrides);
  const std::string& path = wtsim::fuzz::write_input(text.data(), text.size());
  try {
    use_loaded(wtsim::world::load_scenario(path, overrides));
  } catch (const std::invalid_argument& e) {
    check_message(e, path);
  }
  if (overrides.empty()) read_parts(text);
  return 0;
}
