#!/usr/bin/env bash
# traces.schema: a real trace of every scenario in scenarios/ (seed 1; long ones shortened with
# --set), plus a crashing run and the manual-delete TTL mode, validates against
# traces/schema/trace-v2.schema.json; broken copies are rejected (tests/trace_schema_check.py).
# Usage: schema_test.sh WTSIM SOURCE_DIR
set -euo pipefail
wtsim=$1
src=$2
py=/usr/bin/python3  # Debian's, with python3-jsonschema (a pyenv python may shadow python3)

if ! "$py" -c 'import jsonschema' 2>/dev/null; then
  echo "FAIL: $py cannot import jsonschema; run scripts/setup-deps.sh (python3-jsonschema)" >&2
  exit 1
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# shellcheck source=tests/short_overrides.sh
. "$(dirname "$0")/short_overrides.sh"

run() {  # run NAME SCENARIO SEED ARGS...: writes $work/NAME.json; exit 0 or 1 (a verdict) is fine
  local name=$1 scenario=$2 seed=$3
  shift 3
  local rc=0
  "$wtsim" run "$scenario" --seed "$seed" "$@" --trace "$work/$name.json" -q || rc=$?
  if [ "$rc" -gt 1 ]; then
    echo "FAIL: wtsim run $scenario --seed $seed $* exited $rc" >&2
    exit 1
  fi
}

count=0
for scenario in "$src"/scenarios/*.json; do
  name=$(basename "$scenario" .json)
  read -ra sets <<<"$(overrides_for "$name")"
  run "$name" "$scenario" 1 "${sets[@]}"
  count=$((count + 1))
done
[ "$count" -ge 10 ] || { echo "FAIL: only $count scenarios found in $src/scenarios" >&2; exit 1; }
run fault_mix_crashes "$src/scenarios/fault_mix.json" 3
run unsurvivable "$src/tests/regressions/sticky_log_read_error_at_recovery_seed1.json" 1
read -ra sets <<<"$(overrides_for ttl_vs_manual_delete)"
run ttl_manual "$src/scenarios/ttl_vs_manual_delete.json" 1 "${sets[@]}" --set ttl.mode=manual
read -ra sets <<<"$(overrides_for ttl_late_index)"
run ttl_query_every "$src/scenarios/ttl_late_index.json" 1 "${sets[@]}" --set ttl.query_loop=every --set ttl.query_every_ms=5000

"$py" "$src/tests/trace_schema_check.py" "$src/traces/schema/trace-v2.schema.json" "$work"/*.json
