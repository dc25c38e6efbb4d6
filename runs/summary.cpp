#include "runs/summary.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "properties/coverage.h"
#include "runs/explore.h"
#include "sim/json_reader.h"

namespace wtsim::runs {
namespace {

constexpr size_t kSeedsMax = 100'000'000;

bool failing(const std::string& outcome) { return outcome != "held" && outcome != "unsurvivable fault"; }

// Text for XML: the five special characters escaped, control characters dropped.
std::string xml(const std::string& s) {
  std::string out;
  for (const char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default:
        if (static_cast<unsigned char>(c) >= 0x20 || c == '\n' || c == '\t') out += c;
    }
  }
  return out;
}

std::string rerun_command(const Summary& s, uint64_t seed) {
  std::string cmd = "wtsim run " + s.scenario + " --seed " + std::to_string(seed);
  for (const std::string& o : s.overrides) cmd += " --set '" + o + "'";
  return cmd;
}

SeedRecord seed_from_json(const nlohmann::json& j, const std::string& path) {
  sim::ObjectReader r(j, path);
  SeedRecord rec;
  rec.seed = sim::as_u64(r.required("seed"), path + "/seed");
  rec.outcome = r.string("outcome");
  static const std::vector<std::string> kOutcomes = {"held", "unsurvivable fault", "violated", "bad input", "nondeterministic", "timed out", "tool crashed"};
  if (std::find(kOutcomes.begin(), kOutcomes.end(), rec.outcome) == kOutcomes.end()) {
    throw sim::JsonError(path + "/outcome", "expected held, unsurvivable fault, violated, bad input, nondeterministic, timed out or tool crashed");
  }
  rec.trace_hash = r.string_or("trace_hash", "");
  rec.property = r.string_or("property", "");
  rec.detail = r.string_or("detail", "");
  rec.trace = r.string_or("trace", "");
  r.reject_unknown();
  return rec;
}

}  // namespace

size_t Summary::failed() const {
  return static_cast<size_t>(std::count_if(seeds.begin(), seeds.end(), [](const SeedRecord& r) { return failing(r.outcome); }));
}

bool Summary::operator==(const Summary& o) const {
  nlohmann::json a = to_json(*this), b = to_json(o);
  a.erase("wall_s");
  b.erase("wall_s");
  return a == b;
}

nlohmann::json to_json(const Summary& s) {
  nlohmann::json seeds = nlohmann::json::array();
  for (const SeedRecord& r : s.seeds) {
    nlohmann::json j = {{"seed", r.seed}, {"outcome", r.outcome}};
    if (!r.trace_hash.empty()) j["trace_hash"] = r.trace_hash;
    if (!r.property.empty()) j["property"] = r.property;
    if (!r.detail.empty()) j["detail"] = r.detail;
    if (!r.trace.empty()) j["trace"] = r.trace;
    seeds.push_back(std::move(j));
  }
  return {{"wtsim_summary", Summary::kVersion}, {"scenario", s.scenario}, {"scenario_name", s.scenario_name},
          {"overrides", s.overrides}, {"seed_range", std::to_string(s.from) + ".." + std::to_string(s.to)},
          {"shard", s.shard}, {"seeds_planned", s.seeds_planned}, {"seeds_run", s.seeds.size()}, {"failed", s.failed()},
          {"wall_s", s.wall_s}, {"coverage", s.coverage}, {"seeds", seeds}};
}

Summary summary_from_json(const nlohmann::json& j, const std::string& origin) {
  try {
    sim::ObjectReader r(j, "");
    if (sim::as_u64(r.required("wtsim_summary"), "/wtsim_summary") != Summary::kVersion) {
      throw sim::JsonError("/wtsim_summary", "this tool reads version " + std::to_string(Summary::kVersion));
    }
    Summary s;
    s.scenario = r.string("scenario");
    s.scenario_name = r.string("scenario_name");
    const nlohmann::json& overrides = r.required("overrides");
    if (!overrides.is_array()) throw sim::JsonError("/overrides", "expected an array of strings");
    for (size_t i = 0; i < overrides.size(); ++i) {
      if (!overrides[i].is_string()) throw sim::JsonError("/overrides/" + std::to_string(i), "expected a string");
      s.overrides.push_back(overrides[i]);
    }
    const std::string range = r.string("seed_range");
    if (!parse_seed_range(range, &s.from, &s.to)) throw sim::JsonError("/seed_range", "expected A..B with A <= B");
    s.shard = r.string("shard");
    s.seeds_planned = r.u64("seeds_planned");
    r.u64("seeds_run");  // derived: recomputed
    r.u64("failed");
    s.wall_s = r.number_or("wall_s", 0);
    const nlohmann::json& coverage = r.required("coverage");
    if (!coverage.is_object()) throw sim::JsonError("/coverage", "expected an object of marker -> seeds");
    for (const auto& [name, n] : coverage.items()) s.coverage[name] = sim::as_u64(n, "/coverage/" + name);
    const nlohmann::json& seeds = r.required("seeds");
    if (!seeds.is_array() || seeds.size() > kSeedsMax) throw sim::JsonError("/seeds", "expected an array of seed records");
    for (size_t i = 0; i < seeds.size(); ++i) s.seeds.push_back(seed_from_json(seeds[i], "/seeds/" + std::to_string(i)));
    r.reject_unknown();
    return s;
  } catch (const sim::JsonError& e) {
    throw std::invalid_argument(origin + ": " + e.what());
  }
}

Summary read_summary(const std::string& path) {
  return summary_from_json(sim::parse_json(sim::read_input_file(path, "summary file"), path), path);
}

void write_file(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << text;
    if (!out) throw std::runtime_error(path + ": cannot write");
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) throw std::runtime_error(path + ": cannot write");
}

std::string facts_path_of(const std::string& trace_path) {
  const std::string json = ".json";
  const bool named = trace_path.size() > json.size() && trace_path.compare(trace_path.size() - json.size(), json.size(), json) == 0;
  return (named ? trace_path.substr(0, trace_path.size() - json.size()) : trace_path) + ".facts.json";
}

bool write_facts(const std::string& path, const nlohmann::json& verdict, const std::string& hash) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << nlohmann::json{{"trace_hash", hash}, {"verdict", verdict}}.dump() << "\n";
  if (out) return true;
  std::fprintf(stderr, "wtsim: %s: cannot write\n", path.c_str());
  return false;
}

RunFacts read_facts(const std::string& path) {
  RunFacts f;
  std::ifstream in(path);
  const nlohmann::json doc = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (!doc.is_object() || !doc.contains("verdict") || !doc["verdict"].is_object()) return f;
  f.read = true;
  if (doc.contains("trace_hash") && doc["trace_hash"].is_string()) f.hash = doc["trace_hash"];
  const nlohmann::json& v = doc["verdict"];
  if (v.contains("violations") && v["violations"].is_array() && !v["violations"].empty()) {
    f.property = v["violations"][0].value("property", "?");
    f.detail = v["violations"][0].value("detail", "");
  }
  if (v.contains("unsurvivable") && v["unsurvivable"].is_array() && !v["unsurvivable"].empty()) {
    f.unsurvivable_reason = v["unsurvivable"][0].value("reason", "?");
    f.unsurvivable_detail = v["unsurvivable"][0].value("detail", "?");
  }
  if (v.contains("coverage") && v["coverage"].is_object()) {
    for (const auto& [name, n] : v["coverage"].items()) {
      if (n.is_number_unsigned()) f.coverage[name] = n.get<uint64_t>();
    }
  }
  return f;
}

std::string junit_xml(const Summary& s) {
  size_t failures = 0, errors = 0;
  for (const SeedRecord& r : s.seeds) {
    failures += r.outcome == "violated";
    errors += failing(r.outcome) && r.outcome != "violated";
  }
  const std::string suite = "wtsim." + s.scenario_name;
  std::ostringstream x;
  x << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  x << "<testsuites name=\"wtsim explore\" tests=\"" << s.seeds.size() << "\" failures=\"" << failures << "\" errors=\"" << errors << "\">\n";
  x << "  <testsuite name=\"" << xml(suite) << "\" tests=\"" << s.seeds.size() << "\" failures=\"" << failures << "\" errors=\"" << errors
    << "\" skipped=\"0\">\n";
  x << "    <properties>\n      <property name=\"scenario\" value=\"" << xml(s.scenario) << "\"/>\n      <property name=\"seed_range\" value=\""
    << s.from << ".." << s.to << "\"/>\n      <property name=\"shard\" value=\"" << xml(s.shard) << "\"/>\n    </properties>\n";
  for (const SeedRecord& r : s.seeds) {
    x << "    <testcase classname=\"" << xml(suite) << "\" name=\"seed " << r.seed << "\"";
    if (!failing(r.outcome)) {
      x << "/>\n";
      continue;
    }
    const std::string tag = r.outcome == "violated" ? "failure" : "error";
    const std::string message = r.outcome == "violated" ? r.property + ": " + r.detail : r.outcome;
    x << ">\n      <" << tag << " type=\"" << xml(r.outcome == "violated" ? r.property : r.outcome) << "\" message=\"" << xml(message.substr(0, 1000))
      << "\">" << xml("rerun: " + rerun_command(s, r.seed) + (r.trace.empty() ? "" : "\ntrace: " + r.trace)) << "</" << tag << ">\n    </testcase>\n";
  }
  x << "  </testsuite>\n</testsuites>\n";
  return x.str();
}

Summary merge(const std::vector<std::pair<std::string, Summary>>& parts) {
  if (parts.empty()) throw std::invalid_argument("wtsim merge: no summaries given");
  const auto& [first_path, first] = parts.front();
  Summary out = first;
  out.seeds.clear();
  out.coverage.clear();
  out.shard = "1/1";
  out.seeds_planned = 0;
  out.wall_s = 0;
  std::map<uint64_t, std::string> ran_by;  // seed -> the file that ran it
  for (const auto& [path, s] : parts) {
    if (s.scenario_name != first.scenario_name || s.scenario != first.scenario || s.overrides != first.overrides) {
      throw std::invalid_argument(path + ": a summary of " + s.scenario + " (" + s.scenario_name + ") with other settings than " + first_path +
                                  "'s " + first.scenario + " (" + first.scenario_name + "): only shards of one explore merge");
    }
    for (const SeedRecord& r : s.seeds) {
      const auto [it, fresh] = ran_by.emplace(r.seed, path);
      if (!fresh) throw std::invalid_argument(path + ": seed " + std::to_string(r.seed) + " is in " + it->second + " too: the summaries overlap");
      out.seeds.push_back(r);
    }
    for (const auto& [name, n] : s.coverage) out.coverage[name] += n;
    out.from = std::min(out.from, s.from);
    out.to = std::max(out.to, s.to);
    out.seeds_planned += s.seeds_planned;
    out.wall_s = std::max(out.wall_s, s.wall_s);  // shards run side by side
  }
  std::sort(out.seeds.begin(), out.seeds.end(), [](const SeedRecord& a, const SeedRecord& b) { return a.seed < b.seed; });
  return out;
}

void print_table(const Summary& s) {
  std::map<std::string, size_t> counts;
  for (const SeedRecord& r : s.seeds) ++counts[r.outcome];
  std::printf("  %-18s %6s\n", "outcome", "seeds");
  for (const auto& [name, n] : counts) std::printf("  %-18s %6zu\n", name.c_str(), n);
  std::printf("  %-34s %6s\n", "coverage marker", "seeds");
  for (const auto& m : properties::coverage_catalogue()) {
    const auto it = s.coverage.find(m.name);
    if (it == s.coverage.end()) continue;  // the scenario cannot reach it
    std::printf("  %-34s %6llu%s\n", m.name, static_cast<unsigned long long>(it->second), it->second == 0 ? "  NEVER REACHED" : "");
  }
  for (const SeedRecord& r : s.seeds) {
    if (r.outcome == "held") continue;
    const unsigned long long seed = r.seed;
    if (r.outcome == "timed out") {
      std::printf("  seed %llu: timed out%s and killed (run it alone: %s --trace T.jsonl)\n", seed, r.detail.empty() ? "" : (" " + r.detail).c_str(),
                  rerun_command(s, r.seed).c_str());
    } else if (r.trace.empty()) {
      std::printf("  seed %llu: %s, no trace (run it alone: %s)\n", seed, r.outcome.c_str(), rerun_command(s, r.seed).c_str());
    } else if (r.outcome == "unsurvivable fault") {
      std::printf("  seed %llu: held, with an unsurvivable fault classified (%s), trace %s\n", seed,
                  (r.property + ": " + r.detail).substr(0, 240).c_str(), r.trace.c_str());
    } else {
      std::printf("  seed %llu: %s, trace %s (replay it with: wtsim replay)%s\n", seed, r.outcome.c_str(), r.trace.c_str(),
                  r.property.empty() ? "" : ("; " + r.property).c_str());
    }
  }
}

}  // namespace wtsim::runs
