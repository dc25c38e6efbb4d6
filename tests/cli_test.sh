#!/usr/bin/env bash
# The command line's contract: exit codes, messages naming file and field, and determinism across
# separate processes (byte-identical trace files).
set -u
wtsim="$1"; src="$2"; tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

expect() {  # expect CODE PATTERN -- command...
  local code="$1" pattern="$2"; shift 3
  out=$("$@" 2>&1); got=$?
  [ "$got" -eq "$code" ] || fail "$* exited $got, expected $code: $out"
  echo "$out" | grep -q -- "$pattern" || fail "$* printed '$out', expected /$pattern/"
}

echo '{"name": "x", "duration_ms": 1000, "workload": {"writers": "three"}}' > "$tmp/bad.json"
expect 2 "bad.json: /workload/writers: expected a non-negative integer" -- "$wtsim" run "$tmp/bad.json"
echo '{"name": "x", ' > "$tmp/trunc.json"
expect 2 "trunc.json: not valid JSON" -- "$wtsim" run "$tmp/trunc.json"
expect 2 "File does not exist" -- "$wtsim" run "$tmp/missing.json"
expect 2 "seed" -- "$wtsim" run "$src/scenarios/smoke.json" --seed banana
expect 2 "" -- "$wtsim" frobnicate
expect 2 "cannot open" -- "$wtsim" run "$src/scenarios/smoke.json" --trace "$tmp/no/such/dir/t.json"
expect 1 "violated recovered_state_is_prefix" -- "$wtsim" run "$src/scenarios/negative_lying_sync.json"
expect 0 "smoke seed=7: OK" -- "$wtsim" run "$src/scenarios/smoke.json" --seed 7 --trace "$tmp/a.json"
expect 0 "same trace hash" -- "$wtsim" run "$src/scenarios/smoke.json" --seed 7 --trace "$tmp/b.json" --check-determinism
cmp -s "$tmp/a.json" "$tmp/b.json" || fail "two processes wrote different traces for seed 7"
expect 0 "replayed [0-9]* events identically; verdict OK" -- "$wtsim" replay "$tmp/a.json"
expect 0 "documents seed=2: OK" -- "$wtsim" run "$src/scenarios/documents.json" --seed 2 --trace "$tmp/d.json"
expect 0 'mongodb_ss_wt_cursor_cursor_remove_calls [0-9]* 1600000001.000' -- "$wtsim" export "$tmp/d.json" --format openmetrics
expect 0 'mongodb_collstats_storageStats_count{database="test",collection="docs"}' -- "$wtsim" export "$tmp/d.json"
"$wtsim" export "$tmp/d.json" | tail -n 1 | grep -qx '# EOF' || fail "openmetrics export does not end with # EOF"
head -c 1000 "$tmp/d.json" > "$tmp/cut.json"
expect 2 "cut.json: not valid JSON" -- "$wtsim" export "$tmp/cut.json"
expect 2 "cut.json: not valid JSON" -- "$wtsim" replay "$tmp/cut.json"
expect 2 "" -- "$wtsim" export "$tmp/d.json" --format csv
expect 0 "explored 6 seeds .*: 6 held" -- "$wtsim" explore "$src/scenarios/smoke.json" --seeds 1..6 --jobs 2 --out "$tmp/x"
expect 1 "seed 3: violated, trace $tmp/x/seed-3.json" -- "$wtsim" explore "$src/scenarios/negative_lying_sync.json" --seeds 2..3 --out "$tmp/x"
expect 1 "explored 1 seeds .*shard 2/2" -- "$wtsim" explore "$src/scenarios/negative_lying_sync.json" --seeds 2..3 --shard 2/2 --out "$tmp/x"
[ -f "$tmp/x/seed-3.json" ] || fail "explore did not keep the failing seed's trace"
[ ! -f "$tmp/x/seed-1.json" ] || fail "explore kept a passing seed's trace"
expect 1 "violated recovered_state_is_prefix" -- "$wtsim" replay "$tmp/x/seed-3.json"
expect 2 "--seeds 9..1: expected A..B" -- "$wtsim" explore "$src/scenarios/smoke.json" --seeds 9..1
expect 2 "--shard 3/2" -- "$wtsim" explore "$src/scenarios/smoke.json" --shard 3/2
echo "cli: all checks passed"
