#!/usr/bin/env bash
# Rewrites fuzz/corpus/fuzz_trace_reader/ from real traces of the current format: short runs of
# shipped scenarios, each cut to its first events of every kind so that a file stays under the
# fuzzer's 20,000-byte input limit, its hash recomputed (tests/history_check.py) so each stays valid.
#   fuzz/regenerate-corpus.sh [WTSIM]     (default: build/cli/wtsim)
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
wtsim=${1:-$src/build/cli/wtsim}
out="$src/fuzz/corpus/fuzz_trace_reader"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

run() {  # run NAME SCENARIO SEED ARGS...: a verdict of 0 or 1 is fine
  local name=$1 scenario=$2 seed=$3
  shift 3
  "$wtsim" run "$src/scenarios/$scenario" --seed "$seed" --trace "$work/$name.json" -q "$@" || [ $? -eq 1 ]
}
run smoke_crash smoke.json 7 --set duration_ms=3000
run fault_mix fault_mix.json 3 --set duration_ms=3000
run documents_samples documents.json 2 --set duration_ms=2000
run ttl_samples ttl_vs_manual_delete.json 1 --set duration_ms=130000 --set workload.writers=1
run backup backup_release.json 1 --set duration_ms=200000 --set backup.start_ms=1000
run corruption corruption.json 1 --set duration_ms=3000
run lying_sync_violated negative_lying_sync.json 1

/usr/bin/python3 - "$work" "$out" "$src/tests" <<'PY'
import json, pathlib, sys
work, out = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
sys.path.insert(0, sys.argv[3])
from history_check import trace_hash  # the independent checker's hash: each cut file stays valid
LIMIT = 19000

def cut(doc, per_kind):
    seen, kept = {}, []
    for e in doc["events"]:
        n = seen.get(e["kind"], 0)
        seen[e["kind"]] = n + 1
        if n < per_kind:
            kept.append(e)
    small = dict(doc, events=kept, dropped_events=0)
    small["trace_hash"] = trace_hash(json.loads(json.dumps(small)))
    return small

def dump(doc):
    return json.dumps(doc, sort_keys=True, separators=(",", ":"))

def jsonl(doc):
    head = {"record": "header", "format": doc["format"], "version": doc["version"], "header": doc["header"]}
    lines = [head] + [dict(e, record="event") for e in doc["events"]]
    lines += [{"record": "verdict", "verdict": doc["verdict"]},
              {"record": "end", "events": len(doc["events"]), "dropped_events": 0, "trace_hash": doc["trace_hash"]}]
    return "\n".join(json.dumps(l, sort_keys=True, separators=(",", ":")) for l in lines) + "\n"

for f in sorted(work.glob("*.json")):
    doc = json.loads(f.read_text())
    for per_kind in (8, 4, 2, 1):
        small = cut(doc, per_kind)
        if len(dump(small)) <= LIMIT:
            break
    (out / f.name).write_text(dump(small))
    trimmed = cut(doc, 1)
    (out / (f.stem + "_trimmed.json")).write_text(dump(trimmed))
    if f.stem in ("smoke_crash", "documents_samples"):
        (out / (f.stem + ".jsonl")).write_text(jsonl(small))
    print(f"{f.stem}: {len(small['events'])} events, {len(dump(small))} bytes")
PY
