#pragma once
// BUGGIFY, after FoundationDB: rare-but-legal behaviour switches at named sites in the engine and
// the world (a spurious write conflict, an insert group of two, a scan yielding at every work, a
// checkpoint right away). Off unless the scenario says "buggify": true; nothing outside the
// simulator creates one (the engine's env pointer is null in benchmarks and tools), so it never
// changes behaviour outside simulation.
//
// Per run, each site is switched on or off at its first evaluation (kSiteOnChance); a switched-on
// site then fires at each evaluation with kFireChance. All draws come from the seed's "buggify"
// stream, in evaluation order, so a seed reproduces exactly.
#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "sim/random.h"

namespace wtsim::sim {

class Buggify {
 public:
  static constexpr double kSiteOnChance = 0.25;
  static constexpr double kFireChance = 0.25;
  static constexpr size_t kSitesMax = 64;

  Buggify(bool enabled, uint64_t seed) : enabled_(enabled), rng_(stream(seed, "buggify")) {}

  bool fire(std::string_view site);
  bool enabled() const { return enabled_; }
  // The switched-on sites and how often each fired, for the verdict.
  nlohmann::json report() const;

 private:
  struct Site {
    bool on = false;
    uint64_t fired = 0;
  };
  bool enabled_;
  Rng rng_;
  std::map<std::string, Site, std::less<>> sites_;  // ordered: deterministic reports
};

// A site check that tolerates a null Buggify (engines outside the simulator).
inline bool buggify(Buggify* b, std::string_view site) { return b != nullptr && b->fire(site); }

}  // namespace wtsim::sim
