#!/usr/bin/env bash
# The whole test suite: set up, build, and run every test through ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh
cd build
ctest --output-on-failure -j"$(nproc)" --timeout 900
