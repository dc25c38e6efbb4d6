#!/usr/bin/env bash
# selftest.shrink_goal: each of these planted bugs' catching traces shrinks to at most 20 client
# operations within its shrink budget, keeping the property and its cause (the
# self-test table in docs/benchmarks.md has every bug's figure).
# Usage: selftest_shrink_test.sh WTSIM OUT_DIR
set -euo pipefail
wtsim=$1 out=$2
# A concurrency case (two writers colliding), a volume case (thousands of documents) and a
# replica set's (a liveness phase and network faults to shed) among them.
bugs=(ack_before_sync lock_table_wrong_cell truncate_long_values txn_writes_first_key_only retry_uses_stale_document
      padding_unclamped apply_skips_deletes)
args=()
for b in "${bugs[@]}"; do args+=(--bug "$b"); done
table=$("$wtsim" selftest --jobs 2 --out "$out" --shrink-budget 60 "${args[@]}")
echo "$table"
for b in "${bugs[@]}"; do
  # The "shrunk: client ops" column reads "AFTER/BEFORE (SHARE %)".
  ops=$(echo "$table" | awk -v b="$b" '$1 == b && $2 == "yes" { split($5, n, "/"); print n[1] }')
  [ -n "$ops" ] || { echo "FAIL: $b was not caught, or not shrunk" >&2; exit 1; }
  [ "$ops" -le 20 ] || { echo "FAIL: $b shrank to $ops client operations, more than 20" >&2; exit 1; }
done
