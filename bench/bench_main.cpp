// The benchmark runner's entry point (Google Benchmark's default main).
#include <benchmark/benchmark.h>

BENCHMARK_MAIN();
