#include "sim/cli/export_command.h"

#include <cstdio>
#include <exception>
#include <fstream>
#include <iostream>

#include "sim/cli/run_command.h"
#include "traces/openmetrics.h"
#include "traces/perfetto.h"
#include "traces/trace_reader.h"

namespace wtsim::cli {
namespace {

void write_export(const traces::LoadedTrace& trace, const std::string& format, std::ostream& out) {
  if (format == "perfetto") {
    traces::write_perfetto(trace.doc, out);
  } else {
    out << traces::openmetrics_document(trace.doc);
  }
}

}  // namespace

int export_command(const std::string& trace_path, const std::string& format, const std::string& out_path) {
  traces::LoadedTrace trace;
  try {
    trace = traces::read_trace(trace_path);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "wtsim: %s\n", e.what());
    return kBadInput;
  }
  if (out_path.empty()) {
    write_export(trace, format, std::cout);
    return std::cout.flush() ? 0 : kBadInput;
  }
  // Written beside the target and renamed, so a failed export never leaves half a file.
  const std::string tmp = out_path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) {
      std::fprintf(stderr, "wtsim: %s: cannot open for writing\n", out_path.c_str());
      return kBadInput;
    }
    write_export(trace, format, out);
    if (!out.flush()) {
      std::remove(tmp.c_str());
      std::fprintf(stderr, "wtsim: %s: write failed\n", out_path.c_str());
      return kBadInput;
    }
  }
  if (std::rename(tmp.c_str(), out_path.c_str()) != 0) {
    std::remove(tmp.c_str());
    std::fprintf(stderr, "wtsim: %s: cannot move the finished export into place\n", out_path.c_str());
    return kBadInput;
  }
  return 0;
}

}  // namespace wtsim::cli
