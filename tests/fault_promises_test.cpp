// Every promise of the fault model holds (tests/fault_promises.h). The same checks, with the model
// weakened on purpose, are tests/fault_model_selfcheck.cpp.
#include <gtest/gtest.h>

#include <string>

#include "tests/fault_promises.h"

namespace wtsim::tests {
namespace {

class FaultModel : public ::testing::TestWithParam<FaultPromise> {};

TEST_P(FaultModel, Holds) { EXPECT_EQ(GetParam().broken(), "") << GetParam().promise; }

INSTANTIATE_TEST_SUITE_P(Promise, FaultModel, ::testing::ValuesIn(fault_promises()),
                         [](const ::testing::TestParamInfo<FaultPromise>& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace wtsim::tests
