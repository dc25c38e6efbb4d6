#pragma once
// `wtsim merge SUMMARY... [--summary FILE] [--junit FILE]`: the shards of one explore as one.
#include <string>
#include <vector>

namespace wtsim::cli {

struct MergeOptions {
  std::vector<std::string> summaries;
  std::string summary_out;  // the merged summary (JSON)
  std::string junit_out;    // the merged JUnit XML
};

// Prints the merged table. Exit 0 if every seed held, 1 if any failed, 2 for a summary that
// cannot be read or that does not belong with the others (named), or an unwritable output.
int merge_command(const MergeOptions& options);

}  // namespace wtsim::cli
