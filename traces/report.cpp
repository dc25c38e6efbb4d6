#include "traces/report.h"

#include <stdexcept>

#include "sim/json_reader.h"

namespace wtsim::traces {
namespace {

constexpr const char* kDataMarker = "__WTSIM_REPORT_DATA__";

}  // namespace

std::string script_safe_json(const nlohmann::json& data) {
  const std::string raw = data.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  std::string out;
  out.reserve(raw.size() + raw.size() / 64);
  for (char c : raw) {
    if (c == '<') {
      out += "\\u003c";
    } else {
      out += c;
    }
  }
  return out;
}

std::string report_html(const nlohmann::json& trace, const ReportLimits& limits) {
  const std::string page = kReportTemplate;
  const size_t at = page.find(kDataMarker);
  // The template is ours: exactly one marker, checked by the build's tests.
  if (at == std::string::npos || page.find(kDataMarker, at + 1) != std::string::npos) {
    throw std::logic_error("report template: expected exactly one data marker");
  }
  nlohmann::json data_json;
  try {
    data_json = report_data(trace, limits);
  } catch (const nlohmann::json::exception& e) {  // a hand-edited trace: a field of another type
    throw std::invalid_argument(std::string("the report cannot read this trace (a field missing or of another type): ") +
                                sim::plain_json_error(e));
  }
  const std::string data = script_safe_json(data_json);
  return page.substr(0, at) + data + page.substr(at + std::string(kDataMarker).size());
}

}  // namespace wtsim::traces
