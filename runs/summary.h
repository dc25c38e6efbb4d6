#pragma once
// An explore's outcome as data: one record per seed (outcome, trace hash, the violated property),
// the coverage markers' seed counts, written as JSON (`explore --summary`), as JUnit XML
// (`explore --junit`, for CI dashboards), merged across shards (`wtsim merge`), and printed as the
// explore's table. A merge of the shards of a seed range equals the summary of the unsharded run.
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace wtsim::runs {

struct SeedRecord {
  uint64_t seed = 0;
  std::string outcome;     // held, unsurvivable fault, violated, bad input, nondeterministic, timed out, tool crashed
  std::string trace_hash;  // "" when the run wrote no trace
  std::string property;    // violated: the first violated property; unsurvivable: the reason
  std::string detail;
  std::string trace;       // kept trace of a failing or unsurvivable seed, else ""
};

struct Summary {
  static constexpr int kVersion = 1;
  std::string scenario;               // the scenario file as given
  std::string scenario_name;          // its "name"
  std::vector<std::string> overrides;  // --set
  uint64_t from = 0, to = 0;          // the seed range
  std::string shard = "1/1";
  uint64_t seeds_planned = 0;         // in this shard's range
  std::vector<SeedRecord> seeds;      // in seed order
  std::map<std::string, uint64_t> coverage;  // every marker the scenario can reach -> seeds that reached it
  double wall_s = 0;

  size_t failed() const;
  bool operator==(const Summary& o) const;  // all but wall_s
};

nlohmann::json to_json(const Summary& s);
// Throws std::invalid_argument "ORIGIN: /field: problem".
Summary summary_from_json(const nlohmann::json& j, const std::string& origin);
Summary read_summary(const std::string& path);  // throws std::invalid_argument naming the file
void write_file(const std::string& path, const std::string& text);  // throws std::runtime_error

// A run's facts (`wtsim run --facts`): its trace's hash and verdict without the events, what an
// explorer or a sweep reads of a run; beside the trace it names, "x.json" -> "x.facts.json".
std::string facts_path_of(const std::string& trace_path);
// Returns false (with a message) if the file cannot be written.
bool write_facts(const std::string& path, const nlohmann::json& verdict, const std::string& hash);
// What explore and sweep read back: the hash, the first violation or classified unsurvivable
// fault, and the coverage markers reached. `read` is false if the file is missing or unreadable.
struct RunFacts {
  bool read = false;
  std::string hash;
  std::string property, detail;  // the first violation's
  std::string unsurvivable_reason, unsurvivable_detail;
  std::map<std::string, uint64_t> coverage;
};
RunFacts read_facts(const std::string& path);

// One <testsuite> of one <testcase> per seed: a violation is a <failure> (its property, detail,
// the rerun command and the trace), a crash of the tool, bad input, a timeout or nondeterminism
// an <error>.
std::string junit_xml(const Summary& s);

// The shards' summaries as one, as if unsharded: refuses (std::invalid_argument, naming the files)
// summaries of different scenarios or overrides, and seeds that two of them both ran.
Summary merge(const std::vector<std::pair<std::string, Summary>>& parts);

// The outcome counts, the coverage markers (flagging those never reached) and the failing seeds.
void print_table(const Summary& s);

}  // namespace wtsim::runs
