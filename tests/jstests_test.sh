#!/usr/bin/env bash
# jstests.hold: every MongoDB jstest written as a script (scenarios/jstests/) holds, and holds when
# its run is crashed at every STRIDE-th disk operation in every crash mode (wtsim sweep): a crash
# the script did not ask for skips the expectations after it, so a violation there is a false
# alarm or a real finding, never the script's.
# Usage: jstests_test.sh WTSIM SOURCE_DIR STRIDE
set -uo pipefail
wtsim=$1 src=$2 stride=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failed=0 count=0
for f in "$src"/scenarios/jstests/*.json; do
  name=$(basename "$f" .json)
  count=$((count + 1))
  if ! "$wtsim" run "$f" --seed 1 >"$work/run" 2>&1; then
    echo "FAIL: $name: $(tail -3 "$work/run")"
    failed=1
    continue
  fi
  if ! "$wtsim" sweep "$f" --modes all --stride "$stride" --jobs 1 --out "$work/sweep-$name" >"$work/sweep" 2>&1; then
    echo "FAIL: $name swept: $(grep -v '^  held' "$work/sweep" | tail -5)"
    failed=1
    continue
  fi
  echo "ok   $name: $(head -1 "$work/sweep" | cut -d' ' -f1-3) held"
done
[ "$count" -ge 10 ] || { echo "FAIL: only $count jstests (ten or more are shipped)"; exit 1; }
exit "$failed"
