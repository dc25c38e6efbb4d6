#include "sim/buggify.h"

#include <cassert>

namespace wtsim::sim {

bool Buggify::fire(std::string_view site) {
  if (!enabled_) return false;
  auto it = sites_.find(site);
  if (it == sites_.end()) {
    assert(sites_.size() < kSitesMax && "a bounded set of named sites");
    it = sites_.emplace(std::string(site), Site{rng_.chance(kSiteOnChance), 0}).first;
  }
  if (!it->second.on || !rng_.chance(kFireChance)) return false;
  ++it->second.fired;
  return true;
}

nlohmann::json Buggify::report() const {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [name, site] : sites_) {
    if (site.on) out[name] = site.fired;
  }
  return out;
}

}  // namespace wtsim::sim
