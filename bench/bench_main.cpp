// The benchmark runner's entry point: Google Benchmark's main, after the allocator tuning the
// wtsim tool runs with (sim/allocator_tuning.h), so that figures match the tool's.
#include <benchmark/benchmark.h>

#include "sim/allocator_tuning.h"

int main(int argc, char** argv) {
  wtsim::sim::tune_allocator_or_reexec(argv);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
