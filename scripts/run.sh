#!/usr/bin/env bash
# The main job: set up, build, and run the default scenario (scenarios/smoke.json, seed 1).
# Prints the verdict and writes the trace to smoke-trace.json. Extra arguments go to `wtsim run`.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh wtsim  # the tool alone: the tests, benchmarks and self-test binary wait for scripts/test.sh
exec build/cli/wtsim run scenarios/smoke.json --seed 1 --trace smoke-trace.json "$@"
