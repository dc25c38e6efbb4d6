#!/usr/bin/env bash
# Sharded explores and `wtsim merge`: 3 shards of a seed range partition it exactly, their merged
# summary equals the unsharded run's (all but wall time), the merged table is the same, JUnit XML
# (failures with the property, the rerun command and the trace) is valid against the JUnit schema
# CI dashboards read, and merge refuses overlapping or foreign summaries, naming the files.
# Usage: shard_merge_test.sh WTSIM SOURCE_DIR
set -euo pipefail
wtsim=$1 src=$2
py=/usr/bin/python3  # Debian's
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
scenario="$src/scenarios/negative_lying_sync.json"  # fails on some seeds: failures to merge
common=(--seeds 1..9 --jobs 2 --recheck 0 --set duration_ms=3000)

"$wtsim" explore "$scenario" "${common[@]}" --out "$w/all" --summary "$w/all.json" --junit "$w/all.xml" >"$w/all.txt" 2>&1 || true
for k in 1 2 3; do
  "$wtsim" explore "$scenario" "${common[@]}" --shard "$k/3" --out "$w/all" --summary "$w/s$k.json" >/dev/null 2>&1 || true
done
rc=0
"$wtsim" merge "$w/s1.json" "$w/s2.json" "$w/s3.json" --summary "$w/merged.json" --junit "$w/merged.xml" >"$w/merged.txt" 2>&1 || rc=$?
cat "$w/merged.txt"
[ "$rc" -le 1 ] || { echo "FAIL: merge exited $rc"; exit 1; }

"$py" - "$w" <<'PY'
import json, sys
w = sys.argv[1]
def load(name):
    with open(f"{w}/{name}") as f:
        j = json.load(f)
    j.pop("wall_s")
    return j
shards = [load(f"s{k}.json") for k in (1, 2, 3)]
seen = [r["seed"] for s in shards for r in s["seeds"]]
assert sorted(seen) == list(range(1, 10)), f"shards do not partition 1..9: {sorted(seen)}"
for k, s in enumerate(shards, 1):
    assert all(r["seed"] % 3 == k - 1 for r in s["seeds"]), f"shard {k}/3 ran a seed of another shard"
merged, whole = load("merged.json"), load("all.json")
assert merged == whole, f"merged != unsharded:\n{json.dumps(merged)[:600]}\n{json.dumps(whole)[:600]}"
assert whole["failed"] >= 1 and any(r["outcome"] == "violated" and r.get("property") for r in whole["seeds"]), "no failing seed to merge"
assert all(len(r.get("trace_hash", "")) == 16 for r in whole["seeds"]), "a seed without its trace hash"
print(f"partition and merge: ok ({whole['failed']} failing of {whole['seeds_run']})")
PY

# The printed tables agree from the outcome line on.
diff <(sed -n '/^  outcome/,$p' "$w/all.txt" | grep -v "^  required") <(sed -n '/^  outcome/,$p' "$w/merged.txt") ||
  { echo "FAIL: the merged table differs from the unsharded one"; exit 1; }

for x in all merged; do
  xmllint --noout --schema "$src/tests/junit.xsd" "$w/$x.xml" || { echo "FAIL: $x.xml is not valid JUnit XML"; exit 1; }
done
grep -q '<failure type="recovered_state_is_prefix"' "$w/merged.xml" || { echo "FAIL: no failure names its property"; exit 1; }
grep -q 'rerun: wtsim run .*negative_lying_sync.json --seed' "$w/merged.xml" || { echo "FAIL: no rerun command"; exit 1; }
cmp <(grep -v wall "$w/all.xml") <(grep -v wall "$w/merged.xml") || { echo "FAIL: merged JUnit differs from the unsharded"; exit 1; }

expect_refused() {  # expect_refused PATTERN ARGS...
  local pattern=$1 rc=0
  shift
  "$wtsim" merge "$@" >"$w/refused.txt" 2>&1 || rc=$?
  [ "$rc" -eq 2 ] && grep -q "$pattern" "$w/refused.txt" || { cat "$w/refused.txt"; echo "FAIL: merge $* was not refused with '$pattern'"; exit 1; }
}
expect_refused "s1.json: seed 3 is in .*s1.json too: the summaries overlap" "$w/s1.json" "$w/s1.json"
"$wtsim" explore "$src/scenarios/smoke.json" --seeds 1..2 --jobs 2 --recheck 0 --out "$w/all" --summary "$w/other.json" >/dev/null 2>&1 || true
expect_refused "other.json: a summary of .*smoke.json" "$w/s1.json" "$w/other.json"
echo '{"wtsim_summary": 1}' >"$w/broken.json"
expect_refused "broken.json: /scenario: required field is missing" "$w/broken.json"
echo "shard and merge: ok"
