#include "traces/trace.h"

#include <cstdio>
#include <fstream>
#include <stdexcept>

#include "sim/random.h"

namespace wtsim::traces {

uint64_t Trace::event(sim::Nanos at_ns, const std::string& actor, const std::string& kind,
                      nlohmann::json details) {
  const uint64_t index = events_.size() + dropped_;
  if (events_.size() >= kMaxEvents) {
    ++dropped_;
    return index;
  }
  nlohmann::json e = {{"i", index}, {"t_us", at_ns / sim::kNsPerUs}, {"actor", actor}, {"kind", kind}};
  if (!details.empty()) e["details"] = std::move(details);
  events_.push_back(std::move(e));
  return index;
}

nlohmann::json Trace::to_json() const {
  nlohmann::json j;
  j["format"] = kFormatName;
  j["version"] = kFormatVersion;
  j["header"] = header_;
  j["events"] = events_;
  j["dropped_events"] = dropped_;
  j["verdict"] = verdict_;
  j["trace_hash"] = hash();
  return j;
}

std::string Trace::hash() const {
  return compute_hash(header_, nlohmann::json(events_), verdict_, dropped_);
}

std::string Trace::compute_hash(const nlohmann::json& header, const nlohmann::json& events,
                                const nlohmann::json& verdict, uint64_t dropped) {
  uint64_t h = sim::fnv1a64(header.dump());
  for (const auto& e : events) {
    if (e.contains("details") && e["details"].is_object() && e["details"].contains("measured")) {
      nlohmann::json witness = e;
      witness["details"].erase("measured");
      h = sim::fnv1a64(witness.dump(), h);
    } else {
      h = sim::fnv1a64(e.dump(), h);
    }
  }
  h = sim::fnv1a64(verdict.dump(), h);
  h = sim::fnv1a64(std::to_string(dropped), h);
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

void Trace::write(const std::string& path) const {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw std::runtime_error(path + ": cannot open for writing");
    out << to_json().dump(1) << "\n";
    if (!out.flush()) throw std::runtime_error(path + ": write failed");
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    throw std::runtime_error(path + ": cannot move the finished trace into place");
  }
}

}  // namespace wtsim::traces
