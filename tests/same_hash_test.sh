#!/bin/sh
# Runs one scenario twice in separate processes and fails unless both print the same trace hash.
# Usage: [SECOND_RUN_ENV=NAME=VALUE] same_hash_test.sh WTSIM SCENARIO SEED [--set k=v ...]
# For runs whose virtual time once depended on WiredTiger's background threads (the full-length
# backup_release: its copy time follows file sizes, which background eviction used to change),
# and, with SECOND_RUN_ENV, for what must not change a trace (the allocator's tuning).
set -eu
wtsim=$1 scenario=$2 seed=$3
shift 3
first=$("$wtsim" run "$scenario" --seed "$seed" "$@" | grep -o 'trace hash [0-9a-f]*')
second=$(env ${SECOND_RUN_ENV:-} "$wtsim" run "$scenario" --seed "$seed" "$@" | grep -o 'trace hash [0-9a-f]*')
echo "run 1: $first"
echo "run 2: $second"
[ -n "$first" ] && [ "$first" = "$second" ]
