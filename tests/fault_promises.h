#pragma once
// The fault model's promises: what each crash mode, disk fault and durability rule of the
// simulated disk (faults/) guarantees about what survives. Each promise is a check that returns
// what it saw when the promise is broken ("" while it holds), run two ways:
// - tests/fault_promises_test.cpp: every promise holds in the real fault model;
// - tests/fault_model_selfcheck.cpp: with each weakening of faults/weakening.h switched on, the
//   promise that guards it reports it broken (and with none on, every promise holds).
// The checks see the disk only from outside (Disk, SimFileSystem's WiredTiger interface,
// FaultInjector), as the engine does.
#include <string>
#include <vector>

namespace wtsim::tests {

struct FaultPromise {
  const char* name;     // test-name safe: letters, digits and '_'
  const char* promise;  // what the fault model guarantees
  std::string (*broken)();
};

const std::vector<FaultPromise>& fault_promises();

}  // namespace wtsim::tests
