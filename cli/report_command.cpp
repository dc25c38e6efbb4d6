#include "cli/report_command.h"

#include <cstdio>
#include <exception>
#include <fstream>

#include "cli/run_command.h"
#include "traces/report.h"
#include "traces/trace_reader.h"

namespace wtsim::cli {

std::string default_report_path(const std::string& trace_path) {
  for (const char* ext : {".jsonl", ".json"}) {
    const std::string e = ext;
    if (trace_path.size() > e.size() && trace_path.compare(trace_path.size() - e.size(), e.size(), e) == 0) {
      return trace_path.substr(0, trace_path.size() - e.size()) + ".html";
    }
  }
  return trace_path + ".html";
}

int report_command(const std::string& trace_path, const std::string& out_path, bool quiet) {
  traces::LoadedTrace trace;
  if (!load_trace_or_complain(trace_path, &trace)) return kBadInput;
  std::string html;
  try {
    html = traces::report_html(trace.doc);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "wtsim: %s: cannot make a report of it: %s\n", trace_path.c_str(), e.what());
    return kBadInput;
  }
  const std::string path = out_path.empty() ? default_report_path(trace_path) : out_path;
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out || !(out << html) || !out.flush()) {
      std::remove(tmp.c_str());
      std::fprintf(stderr, "wtsim: %s: cannot write the report\n", path.c_str());
      return kBadInput;
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    std::fprintf(stderr, "wtsim: %s: cannot move the finished report into place\n", path.c_str());
    return kBadInput;
  }
  if (!quiet) std::printf("report written to %s (%zu bytes)\n", path.c_str(), html.size());
  return 0;
}

}  // namespace wtsim::cli
