// The generated page of scenario fields: the scenario reader run over inputs that reach every
// section, with sim::FieldCatalogue recording what it takes (path, type, default).
#include <map>
#include <string>
#include <vector>

#include "cli/docs_command.h"
#include "faults/fault_plan.h"
#include "sim/json_reader.h"
#include "world/scenario.h"

namespace wtsim::cli {
namespace {

// A fault plan entry of each kind, with every trigger it takes: read to record its fields.
const std::vector<std::pair<const char*, const char*>> kFaultExamples = {
    {"crash", R"({"kind": "crash", "at_ms": 1000, "at_disk_op": 40, "mode": "torn_prefix"})"},
    {"io_error", R"({"kind": "io_error", "at_disk_op": 3, "op": "sync", "file": "WiredTigerLog", "sticky": false, "drop_dirty": true})"},
    {"disk_full", R"({"kind": "disk_full", "at_ms": 1000, "until_ms": 2000, "capacity_bytes": 1000000})"},
    {"bit_flip", R"({"kind": "bit_flip", "at_ms": 1000, "file": "kv.wt", "offset": 4096, "bit": 3})"},
    {"misdirected_write", R"({"kind": "misdirected_write", "at_disk_op": 50, "file": "kv.wt", "misdirect_bytes": 4096})"},
    {"latency", R"({"kind": "latency", "at_ms": 1000, "until_ms": 2000, "factor": 10})"},
    {"lying_sync", R"({"kind": "lying_sync", "at_ms": 1000, "file": "WiredTigerLog"})"},
};

// A path with fields under it is a section: its fields are the rows.
bool is_section(const std::map<std::string, sim::FieldCatalogue::Field>& fields, const std::string& path) {
  const auto next = fields.upper_bound(path);
  return next != fields.end() && next->first.rfind(path + "/", 0) == 0;
}

std::string field_table(const sim::FieldCatalogue& catalogue, const std::string& strip_prefix) {
  std::string out = "| field | type | default | bounds |\n|---|---|---|---|\n";
  for (const auto& [path, field] : catalogue.fields()) {
    const std::string name = path.substr(strip_prefix.size());
    if (name.empty() || name == "/kind" || is_section(catalogue.fields(), path)) continue;
    const std::string fallback = field.required ? "required" : field.fallback.empty() ? "none" : "`" + field.fallback + "`";
    std::string dotted = name.substr(1);
    for (char& c : dotted) c = c == '/' ? '.' : c;
    out += "| `" + dotted + "` | " + field.type + " | " + fallback + " | " + field.bounds + " |\n";
  }
  return out;
}

std::string scenario_table() {
  sim::FieldCatalogue catalogue;
  // Every section present and empty: each reader takes its fields with their defaults.
  world::scenario_from_json(nlohmann::json::parse(R"({"name": "x", "duration_ms": 1000,
      "node": {}, "workload": {"kind": "documents"}, "cost_model": {}, "ttl": {}, "backup": {}, "swarm": {},
      "replica_set": {"members": [{}, {"priority": 0, "hidden": true, "votes": 0, "fault_plan": []}]}})"), "docs");
  return field_table(catalogue, "");
}

}  // namespace

std::string scenario_fields_page(const char* banner) {
  std::string page = std::string(banner) + "# Scenario fields\n\n"
      "Every field the scenario reader takes, with its type, default and bounds, as the code reads and checks them "
      "(paths as `--set` takes them, dotted). Times are in the unit their name ends with. A field outside these is "
      "an error; a value out of its bounds is refused with a message naming the field and its bounds. Fractions are "
      "in [0, 1]. What each field does: "
      "[scenarios](../guide/scenarios.md); script steps: [script steps](script-steps.md).\n\n"
      "## The scenario\n\n" + scenario_table();
  std::string plans = "\n## Fault plan entries\n\n"
      "`fault_plan` is a list of these (the form a trace header records); `at_ms` triggers by virtual time, "
      "`at_disk_op` by the count of mutating disk operations (for `io_error`: of matching ones).\n";
  for (const auto& [kind, example] : kFaultExamples) {
    sim::FieldCatalogue catalogue;
    faults::plan_from_json(nlohmann::json::array({nlohmann::json::parse(example)}), "/fault_plan");
    plans += std::string("\n### ") + kind + "\n\nExample: `" + example + "`\n\n" + field_table(catalogue, "/fault_plan/N");
  }
  return page + plans;
}

}  // namespace wtsim::cli
