#pragma once
// A run's trace: header (tool version, seed, scenario, fault plan, cost model), the events in
// order (virtual time, actor, kind, details), and the verdict. Its hash is the determinism
// witness: the same seed and scenario must give the same hash.
//
// One exception, by design: an event's details may hold a "measured" object: values measured
// from WiredTiger and the simulated file system (file sizes, WiredTiger's own cursor statistics).
// WiredTiger's own threads can shift those slightly between runs of one seed (the log server
// writes a buffered record, a page lands a few blocks elsewhere, a statistic is off by one), so
// they are kept for reports and exports but left out of the hash and of replay comparisons.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "sim/virtual_clock.h"

namespace wtsim::traces {

constexpr const char* kFormatName = "wtsim-trace";
constexpr int kFormatVersion = 1;

class Trace {
 public:
  static constexpr size_t kMaxEvents = 2'000'000;  // beyond this, events are counted, not kept

  explicit Trace(nlohmann::json header) : header_(std::move(header)) {}

  // Appends an event and returns its index.
  uint64_t event(sim::Nanos at_ns, const std::string& actor, const std::string& kind,
                 nlohmann::json details = nlohmann::json::object());
  void set_verdict(nlohmann::json verdict) { verdict_ = std::move(verdict); }

  const nlohmann::json& header() const { return header_; }
  nlohmann::json& mutable_header() { return header_; }
  const std::vector<nlohmann::json>& events() const { return events_; }
  uint64_t dropped_events() const { return dropped_; }

  // The whole trace as one JSON document, with its hash.
  nlohmann::json to_json() const;
  // 16 hex digits of FNV-1a over the canonical serialisation of header, events and verdict.
  std::string hash() const;
  static std::string compute_hash(const nlohmann::json& header, const nlohmann::json& events,
                                  const nlohmann::json& verdict, uint64_t dropped);
  // Writes to `path` via a temporary file and rename, so a failed write never leaves half a
  // trace. Throws std::runtime_error naming the path.
  void write(const std::string& path) const;

 private:
  nlohmann::json header_;
  std::vector<nlohmann::json> events_;
  nlohmann::json verdict_ = nlohmann::json::object();
  uint64_t dropped_ = 0;
};

}  // namespace wtsim::traces
