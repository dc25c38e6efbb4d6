#!/usr/bin/env bash
# jstests.hold.*: every MongoDB jstest written as a script (scenarios/jstests/) holds, and holds when
# its run is crashed at every STRIDE-th disk operation in every crash mode (wtsim sweep): a crash
# the script did not ask for skips the expectations after it, so a violation there is a false
# alarm or a real finding, never the script's.
# PART of PARTS (1-based) takes every PARTS-th script from the PART-th, so that ctest can run the
# parts side by side; the parts together sweep every script.
# Usage: jstests_test.sh WTSIM SOURCE_DIR STRIDE [PART PARTS]
set -uo pipefail
wtsim=$1 src=$2 stride=$3 part=${4:-1} parts=${5:-1}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failed=0 count=0 index=0
for f in "$src"/scenarios/jstests/*.json; do
  name=$(basename "$f" .json)
  index=$((index + 1))
  [ $(((index - 1) % parts + 1)) -eq "$part" ] || continue
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
[ "$index" -ge 10 ] || { echo "FAIL: only $index jstests (ten or more are shipped)"; exit 1; }
[ "$count" -ge 1 ] || { echo "FAIL: part $part of $parts has no jstest"; exit 1; }
exit "$failed"
