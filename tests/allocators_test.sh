#!/usr/bin/env bash
# Runs seeds A..B of SCENARIO under jemalloc (the tool's choice) and under glibc's malloc
# (WTSIM_MALLOC_TUNING=off) and fails unless every seed gives one trace hash under both. The two
# allocators hand out different addresses and leave different bytes in freed memory, so a run that
# depends on either (docs/findings.md, finding 26: state keyed by a freed connection's address) shows here
# every time, where two runs under one allocator differ only now and then.
# Usage: allocators_test.sh WTSIM SCENARIO A..B
set -euo pipefail
wtsim=$1 scenario=$2 seeds=$3
from=${seeds%..*} to=${seeds#*..}
failed=0
for seed in $(seq "$from" "$to"); do
  jemalloc=$("$wtsim" run "$scenario" --seed "$seed" | grep -o 'trace hash [0-9a-f]*' || true)
  glibc=$(WTSIM_MALLOC_TUNING=off "$wtsim" run "$scenario" --seed "$seed" | grep -o 'trace hash [0-9a-f]*' || true)
  if [ -z "$jemalloc" ] || [ "$jemalloc" != "$glibc" ]; then
    echo "FAIL: seed $seed: jemalloc '$jemalloc', glibc '$glibc'"
    failed=1
  fi
done
[ "$failed" -eq 0 ] && echo "seeds $seeds of $(basename "$scenario"): one hash under both allocators"
exit "$failed"
