#!/usr/bin/env bash
# Builds the libFuzzer targets with clang in <build dir>/fuzz, runs every saved regression input
# and seed, then fuzzes each target for a while. Exits 1 on any finding, naming the reproducer.
#   fuzz/run.sh [BUILD_DIR] [SECONDS_PER_TARGET]     (defaults: build, $WTSIM_FUZZ_SECONDS or 15)
# Reproduce a finding:  <build>/fuzz/<target> <reproducer file>
set -uo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$src/build}" && pwd) || exit 2
seconds="${2:-${WTSIM_FUZZ_SECONDS:-15}}"
out="$build/fuzz"
targets=(fuzz_trace_reader fuzz_scenario_reader)
export ASAN_OPTIONS="${ASAN_OPTIONS:-abort_on_error=0:detect_leaks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
# Per-input limits: a slow or memory-hungry input is a finding too.
limits=(-timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=1024 -max_len=20000)

start=$(date +%s)
if [ ! -f "$out/CMakeCache.txt" ]; then
  cmake -S "$src/fuzz" -B "$out" -DCMAKE_CXX_COMPILER=clang++ >/dev/null || exit 2
fi
cmake --build "$out" -j2 >"$out/build.log" 2>&1 || { cat "$out/build.log"; echo "fuzz: build failed"; exit 2; }
echo "fuzz: built in $(( $(date +%s) - start )) s"

failed=0
for t in "${targets[@]}"; do
  bin="$out/$t" artifacts="$out/artifacts/$t" work="$out/corpus/$t" log="$out/$t.log"
  rm -rf "$work" && mkdir -p "$artifacts" "$work"  # from the seeds each time: a steady run time
  # Saved findings and seeds, each run once.
  mapfile -t inputs < <(find "$src/fuzz/regressions/$t" "$src/fuzz/corpus/$t" -type f ! -name '.*' | sort)
  if ! "$bin" "${limits[@]}" "${inputs[@]}" >"$log" 2>&1; then
    tail -n 40 "$log"; echo "fuzz: $t FAILED on a saved input (see $log)"; failed=1; continue
  fi
  # New inputs go to $work; findings to $artifacts.
  find "$artifacts" -type f | sort >"$out/$t.before"
  "$bin" "${limits[@]}" -max_total_time="$seconds" -dict="$src/fuzz/json.dict" \
    -artifact_prefix="$artifacts/" -print_final_stats=1 "$work" "$src/fuzz/corpus/$t" "$src/fuzz/regressions/$t" >"$log" 2>&1
  rc=$?
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$')
  rate=$(grep -o 'stat::average_exec_per_sec: *[0-9]*' "$log" | grep -o '[0-9]*$')
  new=$(find "$artifacts" -type f | sort | comm -13 "$out/$t.before" -)
  if [ $rc -ne 0 ] || [ -n "$new" ]; then
    tail -n 60 "$log"
    echo "fuzz: $t FOUND A PROBLEM (exit $rc); reproducer(s):"
    echo "$new" | sed 's/^/  /'
    echo "  rerun: $bin <file>; save a minimal one in fuzz/regressions/$t/"
    failed=1
  else
    echo "fuzz: $t: ${runs:-?} runs in ${seconds} s (${rate:-?}/s), ${#inputs[@]} saved inputs, corpus $(find "$work" -type f | wc -l), no findings"
  fi
done
echo "fuzz: total $(( $(date +%s) - start )) s"
exit $failed
