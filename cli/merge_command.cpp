#include "cli/merge_command.h"

#include <cstdio>
#include <stdexcept>

#include "runs/exit_code.h"
#include "runs/summary.h"

namespace wtsim::cli {

int merge_command(const MergeOptions& o) {
  runs::Summary merged;
  try {
    std::vector<std::pair<std::string, runs::Summary>> parts;
    for (const std::string& path : o.summaries) parts.emplace_back(path, runs::read_summary(path));
    merged = runs::merge(parts);
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "wtsim: %s\n", e.what());
    return runs::kBadInput;
  }
  std::printf("merged %zu summaries of %s (%s): seeds %llu..%llu, %zu of %llu run, %zu failing\n", o.summaries.size(), merged.scenario.c_str(),
              merged.scenario_name.c_str(), static_cast<unsigned long long>(merged.from), static_cast<unsigned long long>(merged.to),
              merged.seeds.size(), static_cast<unsigned long long>(merged.seeds_planned), merged.failed());
  runs::print_table(merged);
  try {
    if (!o.summary_out.empty()) runs::write_file(o.summary_out, to_json(merged).dump(2) + "\n");
    if (!o.junit_out.empty()) runs::write_file(o.junit_out, runs::junit_xml(merged));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "wtsim: %s\n", e.what());
    return runs::kBadInput;
  }
  return merged.failed() > 0 ? runs::kViolated : runs::kHeld;
}

}  // namespace wtsim::cli
