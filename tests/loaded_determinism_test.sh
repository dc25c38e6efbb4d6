#!/usr/bin/env bash
# determinism.every_scenario_loaded: every shipped scenario (seed 1; long ones shortened), run in
# two processes at once while two more processes keep both cores busy, gives the same trace hash
# in both. With WiredTiger's threads on real OS threads, CPU load changed their interleaving with
# the run; as fibers of the seeded scheduler they cannot notice it.
# Usage: loaded_determinism_test.sh WTSIM SOURCE_DIR
set -euo pipefail
wtsim=$1
src=$2

overrides_for() {  # as tests/schema_test.sh: a few seconds of wall time each, same event kinds
  case $1 in
    backup_release) echo "--set duration_ms=60000 --set backup.start_ms=20000 --set workload.think_us=10000" ;;
    padding_upserts) echo "--set workload.total_documents=1000 --set duration_ms=600000" ;;
    ttl_vs_manual_delete) echo "--set duration_ms=400000 --set workload.think_us=1000000 --set workload.batch_size=100" ;;
    ttl_late_index) echo "--set duration_ms=400000 --set workload.think_us=1000000 --set workload.batch_size=100 --set workload.stop_inserts_at_ms=200000 --set ttl.index_at_ms=200000" ;;
    locking_bulk_insert) echo "--set workload.total_documents=5000 --set workload.keys=5000" ;;
    *) echo "" ;;
  esac
}

burners=()
for _ in 1 2; do
  (while :; do :; done) &
  burners+=($!)
done
trap 'kill "${burners[@]}" 2>/dev/null || true' EXIT

hash_of() { grep -o 'trace hash [0-9a-f]*' "$1" || true; }
work=$(mktemp -d)
count=0 failed=0
for scenario in "$src"/scenarios/*.json; do
  name=$(basename "$scenario" .json)
  read -ra sets <<<"$(overrides_for "$name")"
  "$wtsim" run "$scenario" --seed 1 "${sets[@]}" >"$work/$name.1" 2>&1 &
  first=$!
  "$wtsim" run "$scenario" --seed 1 "${sets[@]}" >"$work/$name.2" 2>&1 || true
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
