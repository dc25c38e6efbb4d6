#!/usr/bin/env bash
# Explores SEEDS of SCENARIO with every seed run twice in two processes (--recheck 1): fails on a
# nondeterministic seed or any other failing outcome, and prints the summary.
# Usage: recheck_test.sh WTSIM SCENARIO A..B
set -euo pipefail
wtsim=$1 scenario=$2 seeds=$3
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
rc=0
"$wtsim" explore "$scenario" --seeds "$seeds" --recheck 1 --jobs 2 --out "$out" >"$out/summary.txt" 2>&1 || rc=$?
cat "$out/summary.txt"
grep -q "rechecked [0-9]* seeds in a second process (--recheck 1): 0 nondeterministic" "$out/summary.txt" ||
  { echo "FAIL: a seed was nondeterministic"; exit 1; }
[ "$rc" -eq 0 ] || { echo "FAIL: explore exited $rc"; exit 1; }
