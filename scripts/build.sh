#!/usr/bin/env bash
# Installs missing dependencies (Debian packages) and builds wtsim into build/: every target, or
# only those named (scripts/run.sh builds the tool alone).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
targets=()
for t in "$@"; do targets+=(--target "$t"); done
cmake --build build -j"$(nproc)" "${targets[@]}"
