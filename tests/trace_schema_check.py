"""Validates wtsim traces against traces/schema/trace-v2.schema.json, then checks that broken
copies of them are rejected (so that the schema is not vacuous).

Usage: trace_schema_check.py SCHEMA TRACE...   (exit 0: all valid and all breakages caught)
Run with Debian's /usr/bin/python3 (python3-jsonschema).
"""
import copy
import json
import sys

import jsonschema

# Every kind here must occur in at least one of the traces given, so that its details schema
# is exercised by real data.
KINDS_REQUIRED = {"started", "commit", "checkpoint", "crash", "fired", "recovery_check", "final_check",
                  "violation", "sample", "ttl_pass", "delete_job", "index_built", "query", "script_step",
                  "backup_start", "backup_done", "table_released", "restore_checked", "unsurvivable",
                  "power_cycle"}


def first_event(doc, kind):
    return next(e for e in doc["events"] if e["kind"] == kind)


FIRST_PER_KIND = 50  # events of each kind validated whatever their shape


def shape(value):
    """The structure of a JSON value: keys, types, and the sign of numbers, not the values."""
    if isinstance(value, dict):
        return tuple(sorted((k, shape(v)) for k, v in value.items()))
    if isinstance(value, list):
        return ("list",) + tuple(sorted({shape(v) for v in value}, key=repr))
    if isinstance(value, bool) or value is None:
        return type(value).__name__
    if isinstance(value, (int, float)):
        return (type(value).__name__, value < 0)
    return type(value).__name__


def representative(doc):
    """The trace with the first FIRST_PER_KIND events of each kind and then one event of each
    further shape: what jsonschema validates (every event of a long trace took minutes) while
    every field, type and optional part that occurs is still seen by the schema."""
    seen_shapes, per_kind, kept = set(), {}, []
    for e in doc["events"]:
        n = per_kind.get(e["kind"], 0)
        per_kind[e["kind"]] = n + 1
        s = (e["kind"], shape(e))
        if n < FIRST_PER_KIND or s not in seen_shapes:
            kept.append(e)
        seen_shapes.add(s)
    out = dict(doc)
    out["events"] = kept
    return out


def slim(doc):
    """The trace with only the first event of each kind: quick to validate, still valid."""
    first = {}
    for e in doc["events"]:
        first.setdefault(e["kind"], e)
    out = dict(doc)
    out["events"] = sorted(first.values(), key=lambda e: e["i"])
    return out


def breakages(by_kind):
    """(name, function making a broken copy) pairs; each copy must fail validation."""
    def edit(kind, change):
        def make():
            doc = copy.deepcopy(by_kind[kind])
            change(doc)
            return doc
        return make

    def set_(path_fn, value):
        return lambda doc: path_fn(doc).__setitem__(value[0], value[1])

    return [
        ("no trace_hash", edit("commit", lambda d: d.pop("trace_hash"))),
        ("unknown top-level field", edit("commit", lambda d: d.update(extra=1))),
        ("format version 1", edit("commit", lambda d: d.update(version=1))),
        ("negative t_us", edit("commit", set_(lambda d: d["events"][0], ("t_us", -1)))),
        ("event without actor", edit("commit", lambda d: d["events"][0].pop("actor"))),
        ("commit seq as a string", edit("commit", set_(lambda d: first_event(d, "commit")["details"], ("seq", "7")))),
        ("sample from another actor", edit("sample", set_(lambda d: first_event(d, "sample"), ("actor", "writer-0.g1")))),
        ("opcounter not a count", edit("sample", lambda d: first_event(d, "sample")["details"]["serverStatus"]["opcounters"].update(insert=-3))),
        ("unknown crash mode", edit("crash", set_(lambda d: first_event(d, "crash")["details"], ("mode", "meteor")))),
        ("ttl_pass without took_us", edit("ttl_pass", lambda d: first_event(d, "ttl_pass")["details"].pop("took_us"))),
        ("commit without writes", edit("commit", lambda d: first_event(d, "commit")["details"].pop("writes"))),
        ("complete with an unknown fate", edit("complete", set_(lambda d: first_event(d, "complete")["details"], ("fate", "maybe")))),
        ("recovery_check without its digest", edit("recovery_check", lambda d: first_event(d, "recovery_check")["details"].pop("state_digest"))),
        ("verdict ok with violations", edit("violation", set_(lambda d: d["verdict"], ("ok", True)))),
        ("fault without a trigger", edit("commit", lambda d: d["header"]["fault_plan"].append({"kind": "crash", "mode": "torn_prefix"}))),
        ("header without seed", edit("commit", lambda d: d["header"].pop("seed"))),
        ("bad hash", edit("commit", lambda d: d.update(trace_hash="XYZ"))),
    ]


def main():
    schema_path, traces = sys.argv[1], sys.argv[2:]
    with open(schema_path) as f:
        schema = json.load(f)
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)

    failed = False
    by_kind = {}  # kind -> a trace holding it
    for path in traces:
        with open(path) as f:
            doc = json.load(f)
        errors = sorted(validator.iter_errors(representative(doc)), key=lambda e: list(e.absolute_path))
        for e in errors[:5]:
            print(f"FAIL {path}: /{'/'.join(map(str, e.absolute_path))}: {e.message[:300]}")
        failed |= bool(errors)
        kinds = {e["kind"] for e in doc["events"]}
        print(f"{'ok  ' if not errors else 'FAIL'} {path}: {len(doc['events'])} events "
              f"({len(representative(doc)['events'])} validated), kinds {sorted(kinds)}")
        for k in kinds:
            by_kind.setdefault(k, slim(doc))

    missing = KINDS_REQUIRED - by_kind.keys()
    if missing:
        print(f"FAIL: no trace holds the kinds {sorted(missing)}")
        failed = True
    elif not all(validator.is_valid(d) for d in by_kind.values()):
        print("FAIL: a slimmed trace (first event of each kind) does not validate")
        failed = True
    else:
        for name, make in breakages(by_kind):
            if validator.is_valid(make()):
                print(f"FAIL: a trace with {name} passed the schema")
                failed = True
            else:
                print(f"ok   rejected: {name}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
