#!/usr/bin/env bash
# determinism.every_scenario_loaded: every shipped scenario (seed 1; long ones shortened), run in
# two processes at once while two more processes keep both cores busy, gives the same trace hash
# in both. With WiredTiger's threads on real OS threads, CPU load changed their interleaving with
# the run; as fibers of the seeded scheduler they cannot notice it. The second process runs under
# glibc's malloc (WTSIM_MALLOC_TUNING=off), the first under jemalloc: a run that depends on
# addresses or on freed memory's bytes (docs/findings.md, finding 26) differs here too.
# Usage: loaded_determinism_test.sh WTSIM SOURCE_DIR
set -euo pipefail
wtsim=$1
src=$2
# shellcheck source=tests/short_overrides.sh
. "$(dirname "$0")/short_overrides.sh"

burners=()
for _ in 1 2; do
  (while :; do :; done) &
  burners+=($!)
done
trap 'kill "${burners[@]}" 2>/dev/null || true' EXIT

hash_of() { grep -o 'trace hash [0-9a-f]*' "$1" || true; }
work=$(mktemp -d)
count=0 failed=0
for scenario in "$src"/scenarios/*.json "$src"/scenarios/jstests/*.json; do
  name=$(basename "$scenario" .json)
  read -ra sets <<<"$(overrides_for "$name")"
  "$wtsim" run "$scenario" --seed 1 "${sets[@]}" >"$work/$name.1" 2>&1 &
  first=$!
  WTSIM_MALLOC_TUNING=off "$wtsim" run "$scenario" --seed 1 "${sets[@]}" >"$work/$name.2" 2>&1 || true
  wait "$first" || true
  h1=$(hash_of "$work/$name.1") h2=$(hash_of "$work/$name.2")
  if [ -z "$h1" ] || [ "$h1" != "$h2" ]; then
    echo "FAIL: $name: '$h1' vs '$h2'"
    failed=$((failed + 1))
  else
    echo "ok   $name: $h1"
  fi
  count=$((count + 1))
done
rm -rf "$work"
[ "$count" -ge 10 ] || { echo "FAIL: only $count scenarios in $src/scenarios"; exit 1; }
[ "$failed" -eq 0 ]
