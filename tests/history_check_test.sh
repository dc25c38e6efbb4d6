#!/usr/bin/env bash
# traces.history_check: the independent checker (tests/history_check.py, no project code) agrees
# with wtsim's verdict on real traces of every workload, and is not vacuous: it flags edited
# histories (with the hash recomputed, so only the history is wrong) and the traces of planted
# bugs on its own evidence (durability, TTL safety, reads, a replica set's convergence, one primary
# per term, majority writes that survive, TTL deletes only by a primary), not by reading the trace's verdict.
# Usage: history_check_test.sh WTSIM WTSIM_PLANTED SOURCE_DIR
set -euo pipefail
wtsim=$1 planted=$2 src=$3
py=/usr/bin/python3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
. "$src/tests/short_overrides.sh"
fail() { echo "FAIL: $*" >&2; exit 1; }

run() {  # NAME BINARY SCENARIO SEED ARGS...
  local name=$1 bin=$2 scenario=$3 seed=$4 rc=0
  shift 4
  "$bin" run "$src/scenarios/$scenario.json" --seed "$seed" "$@" --trace "$work/$name" -q || rc=$?
  [ "$rc" -le 1 ] || fail "wtsim run $scenario --seed $seed $* exited $rc"
}

# 1. Agreement on every shipped scenario (crashing seeds included), in both trace forms.
for f in "$src"/scenarios/*.json; do
  name=$(basename "$f" .json)
  read -ra sets <<<"$(overrides_for "$name")"
  run "$name.json" "$wtsim" "$name" 1 "${sets[@]}"
done
for seed in 2 3 4; do
  run "swarm_documents_$seed.jsonl" "$wtsim" swarm_documents "$seed"
  run "fault_mix_$seed.json" "$wtsim" fault_mix "$seed"
  run "swarm_ttl_$seed.json" "$wtsim" swarm_ttl "$seed"
done
"$py" "$src/tests/history_check.py" "$work"/*.json "$work"/*.jsonl || fail "the checker disagrees with a verdict"
crashed=$(grep -l '"kind":"crash"' "$work"/*.json* | wc -l)
[ "$crashed" -ge 3 ] || fail "only $crashed traces crash: the recovery checks were not exercised"

# 2. Edited histories are caught (the hash recomputed by the checker's own rule).
mkdir "$work/edited"
"$py" - "$work/fault_mix_3.json" "$work/swarm_ttl_2.json" "$work/edited" "$src/tests/history_check.py" "$work/replica_set_members.json" \
  "$work/failover.json" "$work/script_step_down.json" "$work/documents.json" "$work/backup_release.json" <<'PY'
import json, sys, importlib.util
spec = importlib.util.spec_from_file_location("hc", sys.argv[4]); hc = importlib.util.module_from_spec(spec); spec.loader.exec_module(hc)
def save(t, name):
    t["trace_hash"] = hc.trace_hash(t)
    json.dump(t, open(sys.argv[3] + "/" + name, "w"))
def first(t, pred):
    return next(e for e in t["events"] if pred(e))
kv, ttl = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
t = json.loads(json.dumps(kv)); first(t, lambda e: e["kind"] == "recovery_check")["details"]["state_digest"] = "0" * 16; save(t, "digest.json")
t = json.loads(json.dumps(kv)); c = first(t, lambda e: e["kind"] == "commit" and e["details"].get("durable") and e["details"].get("fate") == "ok"); c["details"]["writes"][0][1] = "f" * 16; save(t, "value.json")
t = json.loads(json.dumps(kv)); t["events"] = [e for e in t["events"] if e["kind"] != "complete"]; save(t, "no_completions.json")
t = json.loads(json.dumps(ttl)); d = first(t, lambda e: e["details"].get("op") == "ttl_delete" if e["kind"] == "commit" else False); d["details"]["ttl"]["value"] = {"$date": 4102444800000}; save(t, "ttl_future.json")
# A ttl_safety violation no TTL delete shows (a false alarm of the tool's, as swarm_replica_set seed 250's was).
t = json.loads(json.dumps(ttl)); last = t["events"][-1]
t["events"].append({"i": last["i"] + 1, "t_us": last["t_us"], "actor": "checker", "kind": "violation", "details": {"property": "ttl_safety", "detail": "fabricated"}})
t["verdict"]["ok"] = False; t["verdict"]["violations"] = [{"property": "ttl_safety", "at_ms": last["t_us"] // 1000, "event": last["i"] + 1, "detail": "fabricated"}]; save(t, "ttl_false_alarm.json")
rs = json.load(open(sys.argv[5]))
t = json.loads(json.dumps(rs)); first(t, lambda e: e["kind"] == "convergence_check")["details"]["state_digest"] = "0" * 16; save(t, "member_digest.json")
fo = json.load(open(sys.argv[6]))
t = json.loads(json.dumps(fo)); e = first(t, lambda e: e["kind"] == "elected" and e["details"]["term"] >= 2); e["details"]["term"] = 1; save(t, "second_primary.json")
t = json.loads(json.dumps(fo)); e = first(t, lambda e: e["kind"] == "final_oplog"); e["details"]["runs"] = e["details"]["runs"][:1]; save(t, "majority_write_lost.json")
t = json.loads(json.dumps(fo)); e = first(t, lambda e: e["kind"] == "primary_writable" and e["details"]["term"] >= 2); e["details"]["member"] = 2; save(t, "ttl_off_primary.json")
# The old primary elected again below its rollback's minValid (its newest entry at the election edited).
t = json.loads(json.dumps(fo)); rb = first(t, lambda e: e["kind"] == "rollback" and e["details"]["member"] == 0)
e = first(t, lambda e: e["kind"] == "election_start" and e["details"]["member"] == 0 and e["i"] > rb["i"])
e["details"]["applied_ts"] = rb["details"]["min_valid_ts"] - 1; save(t, "elected_below_min_valid.json")
# A script's acknowledged w:"majority" write whose entry the final oplog does not hold (its term edited).
sd = json.load(open(sys.argv[7]))
t = json.loads(json.dumps(sd)); e = first(t, lambda e: e["kind"] == "script_step" and e["details"].get("w") == "majority"); e["details"]["entry"]["term"] = 99; save(t, "script_majority_write_lost.json")
# Reads: a document no commit wrote (a dirty read), an older version than the snapshot allows (a
# stale read), a document whose field does not match the filter.
dc = json.load(open(sys.argv[8]))
def read_with_docs(t):
    return first(t, lambda e: e["kind"] == "read" and e["details"]["docs"] and e["details"]["filter"])
t = json.loads(json.dumps(dc)); read_with_docs(t)["details"]["docs"][0][1] = "f" * 16; save(t, "dirty_read.json")
t = json.loads(json.dumps(dc)); r = read_with_docs(t)["details"]; field = next(iter(r["filter"])); r["docs"][0][2][field] = "not the filter's"; save(t, "read_off_filter.json")
t = json.loads(json.dumps(dc))
# A read of a key that a commit acknowledged within its snapshot had overwritten, edited to return
# the value that commit replaced.
overwritten = {}  # key -> (the value an acknowledged update replaced, the acknowledgements by then)
acks = 0
for e in t["events"]:
    d = e.get("details") or {}
    if d.get("member", 0) != 0 or d.get("fate") != "ok" and e["kind"] != "read":
        continue
    if e["kind"] in ("commit", "complete"):
        acks += 1
    if e["kind"] == "commit":
        for key, new, old in d.get("writes", []):
            if old is not None and new is not None:
                overwritten[key] = (old, acks)
    hit = [x for x in d["docs"] if x[0] in overwritten and d["snapshot"] >= overwritten[x[0]][1]] if e["kind"] == "read" else []
    if hit and hit[0][1] != overwritten[hit[0][0]][0]:
        hit[0][1] = overwritten[hit[0][0]][0]
        save(t, "stale_read.json")
        break
else:
    raise SystemExit("no read of an overwritten key in documents.json: the stale-read edit needs one")
# A restore that the trace calls the snapshot, with another digest than the history's snapshot.
br = json.load(open(sys.argv[9]))
t = json.loads(json.dumps(br)); first(t, lambda e: e["kind"] == "restore_checked")["details"]["state_digest"] = "0" * 16; save(t, "restore_digest.json")
PY
for f in "$work"/edited/*.json; do
  if "$py" "$src/tests/history_check.py" "$f" >"$work/out" 2>&1; then fail "edited history $(basename "$f") passed: $(cat "$work/out")"; fi
  echo "ok   edited history $(basename "$f") caught"
done

# 3. Planted bugs, caught by the checker itself (a durable commit lost; TTL in milliseconds; a
#    member that skips the primary's deletes ends with other documents).
run ack_before_sync.json "$planted" smoke 3 --plant ack_before_sync
run ttl_wrong_units.json "$planted" ttl_vs_manual_delete 1 --plant ttl_wrong_units --set duration_ms=90000 --set workload.writers=1 \
  --set workload.batch_size=20 --set ttl.expire_after_s=30 --set ttl.monitor_sleep_s=10
run apply_skips_deletes.json "$planted" replica_set_members 1 --plant apply_skips_deletes --set swarm=null --set fault_plan=[]
run vote_forgotten.json "$planted" swarm_replica_set 56 --plant vote_forgotten
run majority_counts_primary_twice.json "$planted" failover 2 --plant majority_counts_primary_twice
run majority_read_skips_wait.json "$planted" failover 2 --plant majority_read_skips_wait
run ttl_role_read_once.json "$planted" failover 1 --plant ttl_role_read_once
run find_results_cached.json "$planted" documents 1 --plant find_results_cached --set duration_ms=3000
run release_before_copy.json "$planted" backup_release 1 --plant release_before_copy --set duration_ms=60000 --set backup.start_ms=20000 \
  --set backup.copy_mb_per_s=1 --set node.checkpoint_interval_ms=500
"$py" "$src/tests/history_check.py" --expect-violation "$work/ack_before_sync.json" "$work/ttl_wrong_units.json" "$work/apply_skips_deletes.json" \
  "$work/vote_forgotten.json" "$work/majority_counts_primary_twice.json" "$work/majority_read_skips_wait.json" \
  "$work/ttl_role_read_once.json" "$work/find_results_cached.json" "$work/release_before_copy.json" ||
  fail "the checker missed a planted bug"
echo "history_check: agreement, edited histories and planted bugs as expected"
