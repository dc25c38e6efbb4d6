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
# Inputs found by fuzzing (fuzz/regressions/): each a clean exit 2 naming the file and the problem.
fz="$src/fuzz/regressions"
expect 2 "deep_nesting.json: not valid JSON: byte [0-9]*: arrays and objects nested deeper than 100 levels" -- "$wtsim" run "$fz/fuzz_scenario_reader/deep_nesting.json"
expect 2 "number_overflow.json: not valid JSON: .*number overflow" -- "$wtsim" run "$fz/fuzz_scenario_reader/number_overflow.json"
expect 2 'nul_in_key.json: /\\u0000: unknown field' -- "$wtsim" run "$fz/fuzz_scenario_reader/nul_in_key.json"
expect 2 "wraps.json: /swarm/crashes_max: must be at most" -- "$wtsim" run "$fz/fuzz_scenario_reader/swarm_crashes_max_wraps.json"
expect 2 "memory.json: /swarm/crashes_max: must be at most 1000" -- "$wtsim" run "$fz/fuzz_scenario_reader/swarm_crashes_max_out_of_memory.json"
expect 2 "ns.json: /node/checkpoint_interval_ms: must be at most 1099511627776" -- "$wtsim" run "$fz/fuzz_scenario_reader/interval_ms_overflows_ns.json"
expect 2 "invalid.json: x (knobs drawn for seed 3): /workload/value_bytes_max: needs" -- "$wtsim" run "$fz/fuzz_scenario_reader/knobs_combine_invalid.json" --seed 3
expect 2 "/workload/writers: expected a non-negative integer" -- "$wtsim" run "$src/scenarios/smoke.json" --set workload.writers=$'2\xce'
expect 2 "/workload/writers: must be in \\[1, 100\\]" -- "$wtsim" run "$src/scenarios/smoke.json" --set workload.writers=101
expect 2 "deep_nesting.json: not valid JSON (truncated or corrupt?): byte" -- "$wtsim" replay "$fz/fuzz_trace_reader/deep_nesting.json"
expect 2 "deep_nesting.jsonl: line 1: not valid JSON: byte" -- "$wtsim" export "$fz/fuzz_trace_reader/jsonl_deep_nesting.jsonl"
expect 2 "fault_plan.json: /header/fault_plan: required field is missing" -- "$wtsim" replay "$fz/fuzz_trace_reader/header_without_fault_plan.json"
expect 0 "# EOF" -- "$wtsim" export "$fz/fuzz_trace_reader/sample_value_not_a_number.json" --format openmetrics
expect 2 "the report cannot read this trace" -- "$wtsim" report "$fz/fuzz_trace_reader/report_scenario_name_not_a_string.json" -o "$tmp/r.html"
expect 2 "string.json: cannot export this trace" -- "$wtsim" export "$fz/fuzz_trace_reader/report_scenario_name_not_a_string.json" --format perfetto -o "$tmp/p.json"
[ ! -e "$tmp/p.json" ] || fail "a failed export left a file behind"
expect 2 "^wtsim: $tmp/missing.json: cannot open scenario file: No such file or directory" -- "$wtsim" run "$tmp/missing.json"
expect 2 "^wtsim: $tmp: cannot open scenario file: it is a directory" -- "$wtsim" explore "$tmp"
expect 2 "^wtsim: $tmp/missing.json: cannot open trace: No such file" -- "$wtsim" replay "$tmp/missing.json"
# Seeds are 0..2^64-1 exactly: no sign, no wrap-around, no silent clamp.
expect 2 "^wtsim: run: --seed: expected a seed in 0..18446744073709551615 (decimal digits), found 'banana'" -- "$wtsim" run "$src/scenarios/smoke.json" --seed banana
expect 2 "found '-1'" -- "$wtsim" run "$src/scenarios/smoke.json" --seed -1
expect 2 "found '99999999999999999999'" -- "$wtsim" run "$src/scenarios/smoke.json" --seed 99999999999999999999
expect 2 "found '18446744073709551616'" -- "$wtsim" sweep "$src/scenarios/script_counters.json" --seed 18446744073709551616
expect 0 "seed=18446744073709551615: OK" -- "$wtsim" run "$src/scenarios/smoke.json" --seed 18446744073709551615 --set duration_ms=300
expect 2 "--seeds 1..1000000000000000000: expected A..B with A <= B < 10^18" -- "$wtsim" explore "$src/scenarios/smoke.json" --seeds 1..1000000000000000000
# An unknown verb is named, with the nearest known one.
expect 2 "^wtsim: unknown verb 'frobnicate'; run 'wtsim --help' for the verbs" -- "$wtsim" frobnicate
expect 2 "^wtsim: unknown verb 'explroe'; did you mean 'explore'?" -- "$wtsim" explroe
expect 2 "did you mean 'replay'?" -- "$wtsim" rep1ay
expect 2 "^wtsim: run: .*--no-such-flag" -- "$wtsim" run "$src/scenarios/smoke.json" --no-such-flag
expect 0 "^wtsim [0-9.]* (WiredTiger 3\.2\.1)" -- "$wtsim" --version
# No input error carries the JSON library's own text.
for f in "$tmp/trunc.json" "$fz/fuzz_scenario_reader/number_overflow.json"; do
  out=$("$wtsim" run "$f" 2>&1); echo "$out" | grep -q "json.exception\|parse error at" && fail "raw library text: $out"
done
# Bash completion, written from the verbs: verbs, a verb's options, --format's values.
completes() {  # completes "WORDS..." EXPECTED
  local got; got=$(bash -c 'source <("$0" completion bash); COMP_WORDS=($1); COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 )); _wtsim; echo "${COMPREPLY[*]}"' "$wtsim" "$1")
  [ "$got" = "$2" ] || fail "completing '$1' gave '$got', expected '$2'"
}
completes "wtsim ex" "explore export"
completes "wtsim run s.json --che" "--check-determinism"
completes "wtsim export t.json --format p" "perfetto"
expect 2 "" -- "$wtsim" completion zsh
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
expect 0 "explored 6 of 6 seeds" -- "$wtsim" explore "$src/scenarios/smoke.json" --seeds 1..6 --jobs 2 --out "$tmp/x"
echo "$out" | grep -q "held  *6" || fail "explore's summary did not count 6 held seeds: $out"
echo "$out" | grep -q "unsynced_commits_lost" || fail "explore's summary did not list the coverage markers: $out"
echo "$out" | grep -q "crash_during_padding_move" && fail "explore listed a padding marker for a key/value scenario: $out"
expect 0 "time budget of 0 s reached\|explored" -- "$wtsim" explore "$src/scenarios/smoke.json" --seeds 1..400 --time-budget 0.001 --jobs 1 --out "$tmp/x"
echo "$out" | grep -q "seeds not run" || fail "a time budget did not stop the explorer: $out"
expect 2 "--time-budget -1" -- "$wtsim" explore "$src/scenarios/smoke.json" --time-budget -1
# A run that outlives --seed-timeout is killed and counted apart, with the command to rerun it.
expect 1 "timed out  *2" -- "$wtsim" explore "$src/scenarios/smoke.json" --seeds 1..2 --seed-timeout 0.001 --recheck 0 --out "$tmp/x"
echo "$out" | grep -q "seed 2: timed out after 0.001 s and killed (run it alone: wtsim run .*smoke.json --seed 2" || fail "explore did not name the timed-out seed: $out"
expect 2 "--seed-timeout -1: expected seconds >= 0" -- "$wtsim" explore "$src/scenarios/smoke.json" --seed-timeout -1
# Coverage as a verdict: a required marker no seed reached fails the explore.
expect 1 "required coverage marker enospc_reached was never reached" -- "$wtsim" explore "$src/scenarios/smoke.json" --seeds 1..2 --require-marker enospc_reached --out "$tmp/x"
expect 2 "--require-marker no_such_marker: no such coverage marker" -- "$wtsim" explore "$src/scenarios/smoke.json" --require-marker no_such_marker
# A fault no node survives is counted apart, not as a violation: exit 0, its own outcome row.
expect 0 "unsurvivable fault  *1" -- "$wtsim" explore "$src/tests/regressions/sticky_log_read_error_at_recovery_seed1.json" --seeds 1..1 --recheck 0 --out "$tmp/u"
echo "$out" | grep -q "seed 1: held, with an unsurvivable fault classified (device_refuses_io" || fail "explore did not name the classified fault: $out"
expect 0 "ack_before_sync" -- "$wtsim" selftest --list
expect 2 "--bug nosuch: no such planted bug" -- "$wtsim" selftest --bug nosuch --out "$tmp/st"
echo '{"name": "x", "duration_ms": 1000, "knobs": {"node.cache_mb": {"min": 0, "max": 4}}}' > "$tmp/knob.json"
expect 2 "knob.json with knob node.cache_mb=0: /node/cache_mb: must be at least 1" -- "$wtsim" run "$tmp/knob.json"
echo '{"name": "x", "duration_ms": 1000, "knobs": {"node.cache_mb": {"min": 9, "max": 4}}}' > "$tmp/knob.json"
expect 2 "knob.json: /knobs/node.cache_mb: min is above max" -- "$wtsim" run "$tmp/knob.json"
echo '{"name": "x", "duration_ms": 1000, "knobs": {"node.lock_policy": {"one_of": []}}}' > "$tmp/knob.json"
expect 2 "/knobs/node.lock_policy/one_of: expected a list" -- "$wtsim" run "$tmp/knob.json"
expect 1 "seed 3: violated, trace $tmp/x/seed-3.json" -- "$wtsim" explore "$src/scenarios/negative_lying_sync.json" --seeds 2..3 --out "$tmp/x"
expect 1 "explored 1 of 1 seeds .*shard 2/2" -- "$wtsim" explore "$src/scenarios/negative_lying_sync.json" --seeds 2..3 --shard 2/2 --out "$tmp/x"
[ -f "$tmp/x/seed-3.json" ] || fail "explore did not keep the failing seed's trace"
[ ! -f "$tmp/x/seed-1.json" ] || fail "explore kept a passing seed's trace"
expect 1 "violated recovered_state_is_prefix" -- "$wtsim" replay "$tmp/x/seed-3.json"
expect 2 "--seeds 9..1: expected A..B" -- "$wtsim" explore "$src/scenarios/smoke.json" --seeds 9..1
expect 2 "--shard 3/2" -- "$wtsim" explore "$src/scenarios/smoke.json" --shard 3/2
# JSON Lines traces: the same hash as the JSON form, replay and export read them, a cut file names the line.
expect 0 "smoke seed=7: OK" -- "$wtsim" run "$src/scenarios/smoke.json" --seed 7 --trace "$tmp/a.jsonl"
[ "$(grep -o '"trace_hash": "[0-9a-f]*"' "$tmp/a.json" | grep -o '[0-9a-f]\{16\}')" = "$(tail -n 1 "$tmp/a.jsonl" | grep -o '[0-9a-f]\{16\}')" ] \
  || fail "the JSON and JSON Lines traces of seed 7 have different hashes"
[ ! -e "$tmp/a.jsonl.tmp" ] || fail "the streamed trace's temporary file was left behind"
expect 0 "replayed [0-9]* events identically; verdict OK" -- "$wtsim" replay "$tmp/a.jsonl"
expect 0 '# EOF' -- "$wtsim" export "$tmp/a.jsonl"
head -n 100 "$tmp/a.jsonl" > "$tmp/cut.jsonl"
expect 2 "cut.jsonl: line 101: .*missing final record" -- "$wtsim" replay "$tmp/cut.jsonl"
# Shrinking a failing seed: a small trace that replays and still fails.
expect 1 "seed 3: violated" -- "$wtsim" explore "$src/scenarios/negative_lying_sync.json" --seeds 3..3 --out "$tmp/x"
expect 0 "events  *[0-9]* -> [0-9]* " -- "$wtsim" shrink "$tmp/x/seed-3.json" -o "$tmp/min.json" --time-budget 60
expect 1 "violated recovered_state_is_prefix" -- "$wtsim" replay "$tmp/min.json"
expect 2 "verdict has no violation: nothing to shrink" -- "$wtsim" shrink "$tmp/a.json" -o "$tmp/min2.json"
expect 2 "cannot open for writing" -- "$wtsim" shrink "$tmp/x/seed-3.json" -o "$tmp/no/such/dir/min.json"
# Saving it as a regression case: the plan explicit, a loud warning while it fails, no silent overwrite.
mkdir "$tmp/reg"
expect 0 "FAILS TODAY" -- "$wtsim" save-regression "$tmp/min.json" --name lying_sync --dir "$tmp/reg"
grep -q '"fault_plan"' "$tmp/reg/lying_sync_seed3.json" || fail "the saved case has no explicit fault plan"
! grep -q '"swarm"' "$tmp/reg/lying_sync_seed3.json" || fail "the saved case kept its swarm"
grep -q 'recovered_state_is_prefix failed' "$tmp/reg/lying_sync_seed3.json" || fail "the saved case does not say what failed"
expect 1 "violated recovered_state_is_prefix" -- "$wtsim" run "$tmp/reg/lying_sync_seed3.json" --seed 3
expect 2 "exists; --force overwrites" -- "$wtsim" save-regression "$tmp/min.json" --name lying_sync --dir "$tmp/reg"
expect 0 "wrote .*lying_sync_seed3.json" -- "$wtsim" save-regression "$tmp/min.json" --name lying_sync --dir "$tmp/reg" --force
expect 2 "--name a/b: expected letters" -- "$wtsim" save-regression "$tmp/min.json" --name a/b --dir "$tmp/reg"
expect 0 "verdict OK" -- "$wtsim" save-regression "$tmp/a.jsonl" --name smoke_ok --dir "$tmp/reg"
expect 0 "smoke_ok seed=7: OK" -- "$wtsim" run "$tmp/reg/smoke_ok_seed7.json" --seed 7
echo "cli: all checks passed"
