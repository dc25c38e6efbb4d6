#!/usr/bin/env bash
# traces.report_chromium: `wtsim report` pages opened in Debian's headless Chromium. For a run with
# crashes (fault_mix seed 3), a violating run (negative_lying_sync) and a short TTL run with
# metrics samples, the page's script must finish (body data-status="ok"), write no error, draw the
# timeline and (TTL) its charts, and show the violation in context. Also: bad input exits 2.
# Usage: report_test.sh WTSIM SOURCE_DIR
set -euo pipefail
wtsim=$1
src=$2
chromium=${CHROMIUM:-/usr/bin/chromium}

fail() { echo "FAIL: $*" >&2; exit 1; }
[ -x "$chromium" ] || fail "$chromium not found: install Debian's chromium (scripts/setup-deps.sh)"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Runs a scenario and writes its report; exit 0 or 1 (a verdict) from the run is fine.
run_and_report() {  # NAME SCENARIO SEED [ARGS...]
  local name=$1 scenario=$2 seed=$3
  shift 3
  local rc=0
  "$wtsim" run "$src/scenarios/$scenario" --seed "$seed" "$@" --trace "$work/$name.json" -q || rc=$?
  [ "$rc" -le 1 ] || fail "wtsim run $scenario --seed $seed exited $rc"
  "$wtsim" report "$work/$name.json" -o "$work/$name.html" -q || fail "wtsim report $name exited $?"
  local bytes
  bytes=$(stat -c %s "$work/$name.html")
  [ "$bytes" -lt $((5 * 1024 * 1024)) ] || fail "$name.html is $bytes bytes (limit about 5 MB)"
}

# Loads the page headless, lets its script run, and writes the resulting DOM to NAME.dom.
load() {  # NAME
  timeout 120 "$chromium" --headless --no-sandbox --disable-gpu --no-first-run --user-data-dir="$work/profile" \
    --virtual-time-budget=10000 --dump-dom "file://$work/$1.html" >"$work/$1.dom" 2>"$work/$1.chromium.log" ||
    fail "chromium failed on $1.html: $(tail -3 "$work/$1.chromium.log")"
  grep -q 'data-status="ok"' "$work/$1.dom" ||
    fail "$1.html: the page's script did not finish: $(grep -o 'id="error">[^<]*' "$work/$1.dom" | head -c 600)"
  grep -q '<div id="error"></div>' "$work/$1.dom" || fail "$1.html: the page shows an error"
  grep -q '<svg[^>]*id="timeline"' "$work/$1.dom" || fail "$1.html: no timeline drawn"
}

charts_drawn() { grep -o 'data-count="[0-9]*"' "$work/$1.dom" | head -1 | tr -dc 0-9; }

run_and_report crashes fault_mix.json 3
grep -q '"kind": "crash"' "$work/crashes.json" || fail "fault_mix seed 3 no longer crashes: pick another seed"
load crashes
grep -q '>node down ' "$work/crashes.dom" || fail "crashes.html: no node-down span on the timeline"

run_and_report violated negative_lying_sync.json 1
load violated
grep -q '>VIOLATED<' "$work/violated.dom" || fail "violated.html: no VIOLATED verdict"
grep -q 'Violations in context' "$work/violated.dom" || fail "violated.html: no violation context"
grep -q '<tr class="hit"><td class="num">[0-9]*</td><td class="num">[0-9.]* s</td><td>checker</td><td>violation</td>' "$work/violated.dom" ||
  fail "violated.html: the violation event is not highlighted in its context"

run_and_report ttl ttl_vs_manual_delete.json 1 --set duration_ms=130000 --set workload.think_us=1000000 \
  --set workload.batch_size=100 --set ttl.expire_after_s=30
load ttl
drawn=$(charts_drawn ttl)
[ "${drawn:-0}" -ge 5 ] || fail "ttl.html: ${drawn:-no} charts drawn (expected opcounters, cursor calls, ttl, document, disk, ...)"
svgs=$(grep -o '<svg[^>]*class="chart-svg"' "$work/ttl.dom" | wc -l)
[ "$svgs" -eq "$drawn" ] || fail "ttl.html: reports $drawn charts but has $svgs chart SVGs"
for panel in opcounters metrics.ttl "wiredTiger cursor calls" collStats.count "disk bytes"; do
  grep -q "<h3>$panel</h3>" "$work/ttl.dom" || fail "ttl.html: no $panel chart"
done
grep -q '<path d="M' "$work/ttl.dom" || fail "ttl.html: no chart line drawn"

# Bad input: a message and exit 2.
expect_2() {  # DESCRIPTION COMMAND...
  local what=$1 rc=0
  shift
  "$@" >"$work/out.txt" 2>"$work/err.txt" || rc=$?
  [ "$rc" -eq 2 ] || fail "$what: exit $rc, expected 2"
  grep -q 'wtsim: ' "$work/err.txt" || fail "$what: no message"
}
expect_2 "missing trace" "$wtsim" report "$work/nope.json" -o "$work/x.html"
head -c 1000 "$work/ttl.json" >"$work/truncated.json"
expect_2 "truncated trace" "$wtsim" report "$work/truncated.json" -o "$work/x.html"
expect_2 "unwritable output" "$wtsim" report "$work/ttl.json" -o "$work/no/such/dir/x.html"
expect_2 "perfetto export of a truncated trace" "$wtsim" export "$work/truncated.json" --format perfetto -o "$work/x.json"
echo "ok: crashes.html, violated.html, ttl.html ($drawn charts) load in headless Chromium without errors"
