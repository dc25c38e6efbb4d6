#!/usr/bin/env bash
# wtsim sweep: a script swept at every 10th persistence point holds; the same sweep with a planted
# bug (a DDL change acknowledged before its log flush) fails at the points after the change, keeps
# their traces, and each replays; forking the one run at each point (the default) and running
# each point from the start (--from-start) find the same points with the same traces; bad options
# are refused with exit 2.
# Usage: sweep_test.sh WTSIM WTSIM_PLANTED SOURCE_DIR
set -euo pipefail
wtsim=$1 planted=$2 src=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
script="$src/scenarios/script_durability.json"

"$wtsim" sweep "$script" --stride 10 --jobs 2 --out "$work/ok" >"$work/ok.txt" 2>&1 || { cat "$work/ok.txt"; echo "FAIL: the sweep did not hold"; exit 1; }
cat "$work/ok.txt"
grep -Eq "^swept [0-9]+ crash points of .* [0-9]+ persistence points, stride 10" "$work/ok.txt" || { echo "FAIL: no summary line"; exit 1; }
grep -Eq "^  held +[0-9]+$" "$work/ok.txt" || { echo "FAIL: no held points"; exit 1; }
[ -z "$(ls -A "$work/ok")" ] || { echo "FAIL: held points left traces"; exit 1; }

rc=0
"$planted" sweep "$script" --plant ddl_acked_before_durable --points 70..80 --jobs 2 --out "$work/bug" >"$work/bug.txt" 2>&1 || rc=$?
cat "$work/bug.txt"
[ "$rc" -eq 1 ] || { echo "FAIL: the planted bug's sweep exited $rc, not 1"; exit 1; }
grep -q "violated recovered_state_is_prefix" "$work/bug.txt" || { echo "FAIL: the bug was not caught by its property"; exit 1; }
n=0
for t in "$work"/bug/point-*.json; do
  rc=0
  "$planted" replay "$t" -q || rc=$?
  [ "$rc" -eq 1 ] || { echo "FAIL: $t replayed with exit $rc (1: the same violation, event for event)"; exit 1; }
  n=$((n + 1))
done
[ "$n" -ge 1 ] || { echo "FAIL: no failing point kept its trace"; exit 1; }

rc=0
"$planted" sweep "$script" --plant ddl_acked_before_durable --points 70..80 --jobs 2 --from-start --out "$work/bug2" >"$work/bug2.txt" 2>&1 || rc=$?
[ "$rc" -eq 1 ] || { cat "$work/bug2.txt"; echo "FAIL: the from-start sweep exited $rc, not 1"; exit 1; }
[ "$(cd "$work/bug" && ls)" = "$(cd "$work/bug2" && ls)" ] || { echo "FAIL: forked and from-start sweeps failed at different points"; exit 1; }
for t in "$work"/bug/point-*.json; do
  h1=$(grep -o '"trace_hash": *"[0-9a-f]*"' "$t") h2=$(grep -o '"trace_hash": *"[0-9a-f]*"' "$work/bug2/$(basename "$t")")
  [ "$h1" = "$h2" ] || { echo "FAIL: $(basename "$t"): forked $h1, from the start $h2"; exit 1; }
done

for bad in "--modes melt" "--points 0..5" "--stride 0" "--jobs 0" "--tail-ms -2"; do
  rc=0
  # shellcheck disable=SC2086
  "$wtsim" sweep "$script" $bad --out "$work/bad" >"$work/bad.txt" 2>&1 || rc=$?
  [ "$rc" -eq 2 ] || { cat "$work/bad.txt"; echo "FAIL: sweep $bad exited $rc, not 2"; exit 1; }
  grep -q "^wtsim: \|--" "$work/bad.txt" || { cat "$work/bad.txt"; echo "FAIL: sweep $bad gave no message"; exit 1; }
done
echo "sweep: ok"
