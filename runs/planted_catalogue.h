#pragma once
// The self-test's catalogue of planted bugs (the switch is sim/planted.h): for each, what a
// developer got wrong, the scenario `wtsim selftest` explores and the property that must catch it.
#include <string>
#include <vector>

#include "properties/violation.h"
#include "sim/planted.h"

namespace wtsim::runs {

struct BugInfo {
  planted::Bug bug;
  const char* mistake;   // what a developer got wrong, in one line
  const char* scenario;  // scenarios/... the self-test explores
  properties::Property property;  // the property that must catch it
  std::vector<std::string> overrides;  // --set settings that make that scenario quick

  const char* name() const { return planted::name_of(bug); }
};

// Every planted bug, in the enum's order.
const std::vector<BugInfo>& catalogue();
const BugInfo& info_of(planted::Bug bug);

}  // namespace wtsim::runs
