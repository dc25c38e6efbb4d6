#include "cli/save_regression_command.h"

#include <sys/stat.h>

#include <cstdio>
#include <ctime>
#include <exception>
#include <fstream>
#include <regex>

#include "cli/run_command.h"
#include "runs/replay.h"
#include "world/scenario.h"
#include "traces/trace_reader.h"

namespace wtsim::cli {
namespace {

constexpr size_t kMaxNameChars = 80;

bool valid_name(const std::string& name) {
  return name.size() <= kMaxNameChars && std::regex_match(name, std::regex("[A-Za-z0-9][A-Za-z0-9_-]*"));
}

// The trace file's date (UTC), not today's: the same trace always gives the same case.
std::string trace_date(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) return "unknown date";
  std::tm tm{};
  gmtime_r(&st.st_mtime, &tm);
  char buf[16];
  std::strftime(buf, sizeof buf, "%Y-%m-%d", &tm);
  return buf;
}

std::string describe(const nlohmann::json& verdict, const std::string& trace_path, uint64_t seed) {
  const std::string origin = "Regression saved from " + trace_path + " (trace of " + trace_date(trace_path) +
                             ", seed " + std::to_string(seed) + ")";
  const nlohmann::json violations = verdict.value("violations", nlohmann::json::array());
  if (!violations.is_array() || violations.empty()) return origin + "; its verdict was OK.";
  const nlohmann::json& v = violations[0];
  std::string text = origin + ": " + v.value("property", "?") + " failed at " +
                     std::to_string(v.value("at_ms", uint64_t{0})) + " ms: " + v.value("detail", "");
  if (violations.size() > 1) text += " (and " + std::to_string(violations.size() - 1) + " more violations)";
  return text;
}

// The trace's scenario named `name`, with its fault plan explicit, name and description first.
nlohmann::ordered_json make_case(const nlohmann::json& header, const std::string& name, const std::string& description) {
  const nlohmann::json& s = header["scenario"];
  nlohmann::ordered_json c;
  c["name"] = name;
  c["description"] = description;
  for (const auto& [key, value] : s.items()) {
    if (key != "name" && key != "description" && key != "swarm" && key != "fault_plan") c[key] = value;
  }
  c["fault_plan"] = header["fault_plan"];
  return c;
}

void write_text(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!(out << text) || !out.flush()) throw std::runtime_error(path + ": cannot write");
}

// `wtsim run FILE --seed N` must give the trace's events: load the file as a scenario and replay
// the trace with it. Throws std::invalid_argument if the file does not load.
runs::ReplayResult reproduce(const traces::LoadedTrace& trace, const std::string& file) {
  const world::Scenario s = world::load_scenario(file);
  nlohmann::json doc = trace.doc;
  doc["header"]["scenario"] = s.source;
  return runs::replay(doc, file);
}

}  // namespace

int save_regression_command(const SaveRegressionOptions& o) {
  traces::LoadedTrace trace;
  if (!load_trace_or_complain(o.trace_path, &trace)) return kBadInput;
  if (!valid_name(o.name)) {
    std::fprintf(stderr, "wtsim: --name %s: expected letters, digits, '_' or '-' (at most %zu)\n", o.name.c_str(), kMaxNameChars);
    return kBadInput;
  }
  struct stat st {};
  if (stat(o.dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    std::fprintf(stderr, "wtsim: --dir %s: not a directory\n", o.dir.c_str());
    return kBadInput;
  }
  const uint64_t seed = trace.doc["header"]["seed"].get<uint64_t>();
  const std::string file = o.dir + "/" + o.name + "_seed" + std::to_string(seed) + ".json";
  if (!o.force && stat(file.c_str(), &st) == 0) {
    std::fprintf(stderr, "wtsim: %s exists; --force overwrites it\n", file.c_str());
    return kBadInput;
  }
  // Written under a temporary name and checked before it replaces anything.
  const std::string tmp = file + ".tmp";
  runs::ReplayResult r;
  try {
    write_text(tmp, make_case(trace.doc["header"], o.name, describe(trace.doc["verdict"], o.trace_path, seed)).dump(2) + "\n");
    r = reproduce(trace, tmp);
  } catch (const std::exception& e) {
    std::remove(tmp.c_str());
    std::fprintf(stderr, "wtsim: %s\n", e.what());
    return kBadInput;
  }
  if (r.divergence) {
    std::remove(tmp.c_str());
    std::fprintf(stderr, "wtsim: %s did not reproduce %s (diverged at event %zu); not saved\n", file.c_str(),
                 o.trace_path.c_str(), r.divergence->event_index);
    return kNondeterministic;
  }
  if (std::rename(tmp.c_str(), file.c_str()) != 0) {
    std::remove(tmp.c_str());
    std::fprintf(stderr, "wtsim: %s: cannot move the case into place\n", file.c_str());
    return kBadInput;
  }
  std::printf("wrote %s: `wtsim run %s --seed %llu` reproduces the trace's %llu events (verdict %s)\n", file.c_str(),
              file.c_str(), static_cast<unsigned long long>(seed),
              static_cast<unsigned long long>(r.run.trace->event_count()), r.run.ok ? "OK" : "VIOLATED");
  if (!r.run.ok) {
    std::fprintf(stderr,
                 "WARNING: %s FAILS TODAY (%s): ctest runs every regression case expecting it to pass, so "
                 "regression.%s_seed%llu will fail until the bug is fixed. Commit it with the fix.\n",
                 file.c_str(), r.run.violations[0].name(), o.name.c_str(), static_cast<unsigned long long>(seed));
  }
  return kHeld;
}

}  // namespace wtsim::cli
