#pragma once
// `wtsim report TRACE [-o FILE.html]`: the trace as one self-contained HTML page.
#include <string>

namespace wtsim::cli {

// The default output: TRACE with its .json/.jsonl extension replaced by .html.
std::string default_report_path(const std::string& trace_path);
// Exit 0 on success; 2 (bad input) for an unreadable or invalid trace or an unwritable output.
int report_command(const std::string& trace_path, const std::string& out_path, bool quiet);

}  // namespace wtsim::cli
