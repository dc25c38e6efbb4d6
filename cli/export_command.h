#pragma once
// `wtsim export TRACE --format openmetrics|perfetto [-o FILE]`.
#include <string>

namespace wtsim::cli {

// Exit 0 on success; 2 (bad input) for an unreadable or invalid trace or an unwritable output.
int export_command(const std::string& trace_path, const std::string& format, const std::string& out_path);

}  // namespace wtsim::cli
