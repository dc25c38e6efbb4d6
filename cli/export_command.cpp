#include "cli/export_command.h"

#include <cstdio>
#include <exception>
#include <fstream>
#include <iostream>

#include "cli/run_command.h"
#include "traces/openmetrics.h"
#include "traces/perfetto.h"
#include "traces/trace_reader.h"

namespace wtsim::cli {
namespace {

// False (with a message) if the exporter cannot read the trace: a hand-edited one is bad input.
bool write_export(const traces::LoadedTrace& trace, const std::string& format, std::ostream& out) {
  try {
    if (format == "perfetto") {
      traces::write_perfetto(trace.doc, out);
    } else {
      out << traces::openmetrics_document(trace.doc);
    }
    return true;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "wtsim: %s: %s\n", trace.path.c_str(), e.what());
    return false;
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
    if (!write_export(trace, format, std::cout)) return kBadInput;
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
    if (!write_export(trace, format, out)) {
      out.close();
      std::remove(tmp.c_str());
      return kBadInput;
    }
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
