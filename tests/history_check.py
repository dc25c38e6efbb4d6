#!/usr/bin/env python3
"""An independent checker of wtsim traces: it shares no code with wtsim and reads only what
docs/reference/trace-format.md ("Checking a trace yourself") and traces/schema/trace-v2.schema.json promise.

For each trace (JSON or JSON Lines) it:
  1. recomputes the trace hash;
  2. checks the history: every commit invoked once, completed once (ok or info), in order;
  3. recomputes the durable point from the history (durable commits acknowledged, journal flushes
     that began after an acknowledgement and ended ok) and, at every recovery check, rebuilds the
     expected state's digest from the base and the commits the check says it includes, and
     compares it with the digest of what was recovered;
  4. decides every TTL delete from its own evidence: a Date below the bound, and the bound no
     later than the delete's time minus the index's expireAfterSeconds (from the catalog row);
  5. for a replica set: each member's documents against the final primary's, and with elections,
     one primary and one vote per term, every acknowledged w:"majority" write's oplog entry and
     every readConcern "majority" find's read point in the final primary's oplog (from the client
     history and the final_oplog event), and the count of "local" reads that saw a rollback;
  6. judges every find (a `read` event) from the history alone: each document it returned is a
     version its snapshot may see (no dirty read, no stale read below the newest commit
     acknowledged when it began) and matches the filter's plain values;
  7. compares its verdict with the trace's: a run the trace calls OK must check here, and a run
     whose trace reports a durability violation, one_primary_per_term, ttl_safety or reads_see_committed must fail
     here too (a TTL delete this checker finds illegal, or one by a member that was not the
     primary).
Prints one line per trace; exits 1 if any trace disagrees.
Usage: history_check.py TRACE... [--expect-violation]
"""
import json
import math
import sys

MASK = (1 << 64) - 1
DURABILITY_PROPERTIES = {"recovered_state_is_prefix", "final_state_matches"}
CATALOG_PREFIX = "table:_catalog|"  # a collection's catalog row: left out when members are compared


def fnv1a64(data, h=0xCBF29CE484222325):
    for b in data:
        h ^= b
        h = (h * 0x100000001B3) & MASK
    return h


def canonical(j):
    return json.dumps(j, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def hex16(h):
    return "%016x" % h


def entry(key, vdigest):
    """A state's digest is the sum of these over its keys (absent values count 0)."""
    if vdigest is None:
        return 0
    return fnv1a64(key.encode("utf-8") + b"\0" + vdigest.encode("ascii"))


def read_trace(path):
    with open(path, encoding="utf-8") as f:
        first = f.readline()
        rest = f.read()
    head = json.loads(first) if first.strip().startswith("{\"") and first.strip().endswith("}") else None
    if head is not None and head.get("record") == "header":
        header, events, verdict, end = head["header"], [], None, None
        for line in rest.splitlines():
            r = json.loads(line)
            kind = r.pop("record")
            if kind == "event":
                events.append(r)
            elif kind == "verdict":
                verdict = r["verdict"]
            elif kind == "end":
                end = r
        return {"version": head["version"], "header": header, "events": events, "verdict": verdict,
                "dropped_events": end["dropped_events"], "trace_hash": end["trace_hash"]}
    return json.loads(first + rest)


def trace_hash(t):
    h = fnv1a64(canonical(t["header"]))
    for e in t["events"]:
        if isinstance(e.get("details"), dict) and "measured" in e["details"]:
            e = dict(e, details={k: v for k, v in e["details"].items() if k != "measured"})
        h = fnv1a64(canonical(e), h)
    verdict = {k: v for k, v in t["verdict"].items() if k != "measured"}
    h = fnv1a64(canonical(verdict), h)
    h = fnv1a64(b"0", h)  # every event is in the chain, kept or not
    return hex16(h)


class Checker:
    """One member's history (a single node is member 0): events whose details name no member are
    the primary's."""

    def __init__(self, trace, member=0):
        self.t = trace
        self.member = member
        self.problems = []
        self.flagged = 0
        self.commits = {}      # seq -> {"writes", "durable", "fate", "ack_order"}
        self.acks = 0          # commits acknowledged so far, in trace order (a read's snapshot counts them)
        self.state = {}        # key -> value digest at the last recovery check (None: unknown)
        self.by_key = {}       # key -> seqs of the commits since that check that write it, ascending
        self.reads = 0
        self.found_bad_read = False
        self.snapshot_digest = None  # the backup's point in time, rebuilt at its backup_pin
        self.restores = 0
        self.found_bad_restore = False
        self.base_seq = 0      # commits at or below it are folded into the base
        self.base_sum = 0
        self.last_acked = 0
        self.durable_point = 0
        self.flush_covers = {}  # actor -> the checker's own covers for its flush in progress
        self.ttl_expire = {}    # (ns, field) -> expireAfterSeconds, from catalog rows
        self.capped_ns = set()  # capped collections, from catalog rows: MongoDB's TTL deletes nothing there
        self.passes = {}        # actor -> now_ms at the start of its pass in progress
        self.ttl_bounds = {}    # actor -> the bound of its last TTL delete
        self.checks = 0
        self.ttl_deletes = 0
        self.found_ttl_problem = False  # a TTL delete this checker finds illegal
        self.epoch_ms = trace["header"]["virtual_epoch_ms"]
        self.catalog_rows = {}  # catalog key -> the value digest of its newest acknowledged write
        self.documents_digest = None  # at the final check: the state's digest without catalog rows

    def problem(self, event, text):
        self.flagged += 1  # the checker's own evidence (not the trace's verdict)
        if len(self.problems) < 20:
            self.problems.append("event %d: %s" % (event["i"], text))

    # --- history ---------------------------------------------------------------------------
    def on_commit(self, e):
        d = e["details"]
        seq = d["seq"]
        if seq in self.commits or seq <= self.base_seq:
            return self.problem(e, "commit %d invoked twice" % seq)
        if self.commits and seq != max(self.commits) + 1 and seq != self.base_seq + 1:
            self.problem(e, "commit %d out of order" % seq)
        self.commits[seq] = {"durable": d.get("durable", False), "fate": None, "ack_order": None,
                             "writes": d["writes"] if "writes" in d else unpack(d["packed"], d["writes_n"])}
        for key, _new, _old in self.commits[seq]["writes"]:
            seqs = self.by_key.setdefault(key, [])
            if not seqs or seqs[-1] != seq:
                seqs.append(seq)
        if d.get("op") == "catalog":
            self.on_catalog_row(d["row"])
        if d.get("op") == "drop":  # the catalog row and every document of the collection
            self.on_catalog_row({"ns": d["ns"]})
            self.commits[seq]["drop"] = d["ns"]
        if d.get("op") == "ttl_delete":
            self.on_ttl_delete(e, d)
        if "fate" in d:
            self.complete(e, seq, d["fate"])

    def complete(self, e, seq, fate):
        c = self.commits.get(seq)
        if c is None:
            return self.problem(e, "completion of commit %d, never invoked" % seq)
        if c["fate"] is not None:
            return self.problem(e, "commit %d completed twice" % seq)
        if fate not in ("ok", "info", "fail"):
            return self.problem(e, "commit %d: fate %r" % (seq, fate))
        c["fate"] = fate
        if fate == "ok":
            self.acks += 1
            c["ack_order"] = self.acks
            for key, new, _old in c["writes"] or []:
                if key.startswith(CATALOG_PREFIX):
                    self.catalog_rows[key] = new  # catalog changes are durable: no crash undoes them
            if "drop" in c:  # the collection is gone, its catalog row with it
                self.catalog_rows[CATALOG_PREFIX + c["drop"]] = None
            self.last_acked = max(self.last_acked, seq)
            if c["durable"]:
                self.durable_point = max(self.durable_point, seq)

    def on_flush_start(self, e):
        self.flush_covers[e["actor"]] = self.last_acked
        if e["details"]["covers"] != self.last_acked:
            self.problem(e, "flush_start covers %d, the history's newest acknowledged commit is %d"
                         % (e["details"]["covers"], self.last_acked))

    def on_flush_end(self, e):
        covers = self.flush_covers.pop(e["actor"], None)
        if covers is not None and e["details"]["ok"]:
            self.durable_point = max(self.durable_point, covers)

    def on_crash(self, e):
        self.flush_covers.clear()  # a flush cut by the crash made nothing durable

    # --- recovery --------------------------------------------------------------------------
    def rebuild(self, cut, in_doubt_applied):
        """The digest of the base plus every commit up to `cut` that was acknowledged or that
        the check says it includes, and that state key by key (None if the base's is unknown).
        Each write changes the digest by entry(key, new) - entry(key, old): the history names the
        value a write replaced. A wrong `old` cannot hide: the sum would miss the digest of what
        was really recovered."""
        total = self.base_sum
        state = dict(self.state) if self.state is not None else None
        for seq in sorted(s for s in self.commits if s <= cut):
            c = self.commits[seq]
            if c["fate"] != "ok" and seq not in in_doubt_applied:
                continue
            for key, new, old in c["writes"]:
                total = (total + entry(key, new) - entry(key, old)) & MASK
                if state is not None:
                    state[key] = new
        return total, state

    def on_recovery_check(self, e, violations):
        d = e["details"]
        self.checks += 1
        cut, applied = d["cut"], set(d["in_doubt_applied"])
        never = [seq for seq, c in self.commits.items() if c["fate"] is None]
        if never:
            self.problem(e, "%d commits never completed before this check (first: %d)" % (len(never), min(never)))
        for seq in applied:
            if self.commits.get(seq, {}).get("fate") == "ok":
                self.problem(e, "commit %d is listed in doubt but was acknowledged" % seq)
        total, state = self.rebuild(cut, applied)
        matches = hex16(total) == d["state_digest"] and cut >= self.durable_point
        lost = [s for s, c in self.commits.items() if s > cut and c["fate"] == "ok"]
        lost_durable = [s for s in lost if self.commits[s]["durable"] or s <= self.durable_point]
        reported = e["i"] in violations
        violated = not matches or bool(lost_durable)  # this checker's own judgement
        if d["ok"] and violated:
            self.problem(e, "the check says ok, but at cut %d the history's digest is %s, the recovered %s, the "
                            "history's durable point %d, %d acknowledged durable commits lost"
                         % (cut, hex16(total), d["state_digest"], self.durable_point, len(lost_durable)))
        if d["ok"] and len(lost) != d["lost_acked"]:
            self.problem(e, "the history loses %d acknowledged commits at cut %d; the check says %d"
                         % (len(lost), cut, d["lost_acked"]))
        if not d["ok"] and not violated:
            self.problem(e, "the check failed, but the recovered digest is the history's at cut %d" % cut)
        if not d["ok"] and not reported:
            self.problem(e, "a failed recovery check without a violation about it")
        self.found_durability_violation |= violated
        # The recovered state is the new base; every commit so far is settled.
        self.base_sum = int(d["state_digest"], 16)
        self.state = {k: v for k, v in state.items() if v is not None} if state is not None and not violated else None
        self.base_seq = max([self.base_seq] + list(self.commits))
        self.commits = {}
        self.by_key = {}
        self.last_acked = self.durable_point = self.base_seq

    def on_final_check(self, e):
        total, _ = self.rebuild(max([self.base_seq] + list(self.commits)), set())
        if any(c["fate"] != "ok" for c in self.commits.values()):
            return  # commits in doubt: the clean reopen's recovery check decides
        if hex16(total) != e["details"]["state_digest"]:
            self.problem(e, "final state digest %s, the history's is %s" % (e["details"]["state_digest"], hex16(total)))
        elif self.documents_digest is None:  # the final check, not the clean reopen's
            catalog = sum(entry(k, v) for k, v in self.catalog_rows.items())
            self.documents_digest = hex16((total - catalog) & MASK)

    # --- reads -----------------------------------------------------------------------------
    def readable(self, key, snapshot):
        """The value digests a read that began after `snapshot` acknowledgements may return for
        `key`: the newest commit on it (by seq) acknowledged by then, or the state at the last
        check if none was, and every later commit on it so far (None: absent)."""
        versions = []  # (seq, the commit's last write of key, acked within the snapshot)
        for seq in self.by_key.get(key, []):
            c = self.commits[seq]
            last = [new for k, new, _old in c["writes"] if k == key]
            versions.append((seq, last[-1], c["ack_order"] is not None and c["ack_order"] <= snapshot))
        seen = [i for i, v in enumerate(versions) if v[2]]
        if seen:
            return {v[1] for v in versions[seen[-1]:]}
        return {self.state.get(key)} | {v[1] for v in versions}

    def on_read(self, e):
        d = e["details"]
        self.reads += 1
        if d["snapshot"] > self.acks:
            return self.problem(e, "a read at snapshot %d, after only %d acknowledgements" % (d["snapshot"], self.acks))
        flagged = self.flagged
        for key, digest, fields in d["docs"]:
            if not key.startswith(d["ns"] + "|"):
                self.problem(e, "a find of %s returned %s" % (d["ns"], key))
            for field, wanted in d["filter"].items():
                if isinstance(wanted, dict) and wanted and next(iter(wanted)).startswith("$"):
                    continue  # operators are not judged here
                value = fields.get(field, MISSING)
                if value != wanted and not (isinstance(value, list) and wanted in value):
                    self.problem(e, "find %s returned %s, whose %s is %s" % (json.dumps(d["filter"]), key, field,
                                                                             "missing" if value is MISSING else json.dumps(value)))
            if self.state is None:
                continue  # the base is unknown after a failed check: versions cannot be judged
            allowed = self.readable(key, d["snapshot"])
            if digest not in allowed:
                self.problem(e, "find returned %s = %s, a version its snapshot %d may not see (it may: %s)"
                             % (key, digest, d["snapshot"], ", ".join(sorted(str(a) for a in allowed))))
        self.found_bad_read |= self.flagged > flagged

    # --- backups ---------------------------------------------------------------------------
    def on_backup_pin(self, e):
        """The snapshot holds the last check's state and every commit up to snapshot_seq that
        completed ok or is still open; this checker finds the open ones itself."""
        d = e["details"]
        snap = d["snapshot_seq"]
        pending = sorted(seq for seq, c in self.commits.items() if seq <= snap and c["fate"] is None)
        if pending != sorted(d["pending"]):
            self.problem(e, "backup_pin lists pending commits %s, the history has %s open" % (d["pending"][:5], pending[:5]))
        if self.state is None:
            self.snapshot_digest = None
            return
        _total, state = self.rebuild(snap, set(pending))
        self.snapshot_digest = hex16(sum(entry(k, v) for k, v in state.items()) & MASK)

    def on_restore_checked(self, e):
        d = e["details"]
        self.restores += 1
        if "error" in d:  # a copy that cannot be opened or read is not the snapshot
            if d["ok"]:
                self.problem(e, "restore_checked says ok, but the copy could not be read: %s" % d["error"])
            self.found_bad_restore = True
            return
        if self.snapshot_digest is None:
            return  # no pin seen, or the base is unknown: the trace's word
        holds = d["state_digest"] == self.snapshot_digest
        if d["ok"] != holds:
            self.problem(e, "restore_checked says ok=%s, but the restored digest %s %s the snapshot's %s per the history"
                         % (d["ok"], d["state_digest"], "is" if holds else "is not", self.snapshot_digest))
        self.found_bad_restore |= not holds

    # --- TTL -------------------------------------------------------------------------------
    def on_catalog_row(self, row):
        """The collection's TTL indexes as its newest catalog row has them (createIndex, collMod
        and dropIndex each write the row): single-field keys with a numeric expireAfterSeconds."""
        ns = row["ns"]
        self.capped_ns.discard(ns)
        if row.get("capped_max_docs", 0) > 0:
            self.capped_ns.add(ns)
        self.ttl_expire = {k: v for k, v in self.ttl_expire.items() if k[0] != ns}
        for index in row.get("indexes", []):
            key, expire = index.get("key", []), index.get("expireAfterSeconds")
            if len(key) == 1 and isinstance(expire, (int, float)) and not isinstance(expire, bool):
                self.ttl_expire[(ns, key[0][0])] = expire

    def on_ttl_delete(self, e, d):
        flagged = self.flagged
        self.judge_ttl_delete(e, d)
        self.found_ttl_problem |= self.flagged > flagged

    def judge_ttl_delete(self, e, d):
        self.ttl_deletes += 1
        ttl = d["ttl"]
        key = d["writes"][0][0]
        ns = key.split("|", 1)[0]
        expires = [v for (n, f), v in self.ttl_expire.items() if n == ns]
        if len(expires) != 1:
            return self.problem(e, "a TTL delete in %s, which has %d TTL indexes in the catalog" % (ns, len(expires)))
        if ns in self.capped_ns:
            return self.problem(e, "a TTL delete in %s, a capped collection" % ns)
        value = ttl["value"]
        bound = self.ttl_bounds[e["actor"]] = ttl.get("bound_ms", self.ttl_bounds.get(e["actor"]))
        if bound is None:
            return self.problem(e, "a TTL delete without a bound")
        now_ms = self.epoch_ms + e["t_us"] // 1000
        # MongoDB's TTL: a Date, or an array whose earliest Date expires (other elements never do).
        def is_date(v):
            return isinstance(v, dict) and list(v) == ["$date"] and isinstance(v["$date"], int)
        dates = [v for v in value if is_date(v)] if isinstance(value, list) else [value] if is_date(value) else []
        if not dates:
            return self.problem(e, "a TTL delete of a document whose indexed value %r is not a Date" % (value,))
        earliest = min(d["$date"] for d in dates)
        if earliest >= bound:
            self.problem(e, "a TTL delete of %s = %d, not below the bound %d" % (key, earliest, bound))
        # The monitor reads expireAfterSeconds as a whole number of seconds, cut toward zero.
        if bound > now_ms - math.trunc(expires[0]) * 1000:
            self.problem(e, "a TTL bound %d later than now %d - expireAfterSeconds %s" % (bound, now_ms, expires[0]))
        pass_now = self.passes.get(e["actor"])
        if pass_now is None:
            self.problem(e, "a TTL delete outside a pass of its actor")
        elif bound < pass_now - expires[0] * 1000:
            self.problem(e, "a TTL bound %d earlier than the pass's start %d - expireAfterSeconds" % (bound, pass_now))

    # --- the run ---------------------------------------------------------------------------
    def run(self):
        if self.member == 0 and not self.check_trace():
            return
        self.found_durability_violation = False
        violations = {}
        for e in self.t["events"]:
            if e["kind"] == "violation" and "subject" in e["details"]:
                violations[e["details"]["subject"]] = e["details"]["property"]
        # Violations come after their subject: a first pass collects them.
        for e in self.t["events"]:
            if member_of(e) == self.member:
                self.on_event(e, violations)

    def check_trace(self):
        if self.t["version"] != 2:
            self.problems.append("format version %r (this checker reads 2)" % self.t["version"])
            return False
        if self.t["dropped_events"] > 0:
            self.problems.append("%d events dropped: the history is incomplete (write the trace as .jsonl)" % self.t["dropped_events"])
            return False
        if trace_hash(self.t) != self.t["trace_hash"]:
            self.problems.append("trace hash %s, recomputed %s" % (self.t["trace_hash"], trace_hash(self.t)))
        return True

    def on_event(self, e, violations):
        k = e["kind"]
        if k == "commit":
            self.on_commit(e)
        elif k == "complete":
            self.complete(e, e["details"]["seq"], e["details"]["fate"])
        elif k == "flush_start":
            self.on_flush_start(e)
        elif k == "flush_end":
            self.on_flush_end(e)
        elif k == "crash":
            self.on_crash(e)
        elif k == "recovery_check":
            self.on_recovery_check(e, violations)
        elif k == "final_check":
            self.on_final_check(e)
        elif k == "read":
            self.on_read(e)
        elif k == "backup_pin":
            self.on_backup_pin(e)
        elif k == "restore_checked":
            self.on_restore_checked(e)
        elif k == "ttl_pass_start":
            self.passes[e["actor"]] = e["details"]["now_ms"]
        elif k == "ttl_pass":
            self.passes.pop(e["actor"], None)


MISSING = object()


def unpack(packed, n):
    """A big commit's writes, [key, new, old] each, from its packed form."""
    if "id_range" in packed:
        first, last = packed["id_range"]
        ids = [str(i) for i in range(first, last + 1)]
    else:
        ids = packed["ids"]
    if len(ids) != n:
        raise ValueError("a packed commit lists %d keys, writes_n says %d" % (len(ids), n))
    def digests(s):
        if s is None:
            return [None] * n
        if len(s) != 16 * n:
            raise ValueError("a packed digest string of %d characters for %d writes" % (len(s), n))
        return [None if s[i:i + 16] == "-" * 16 else s[i:i + 16] for i in range(0, len(s), 16)]
    return [[packed["prefix"] + k, new, old] for k, new, old in zip(ids, digests(packed["new"]), digests(packed["old"]))]


def member_of(e):
    d = e.get("details")
    return d.get("member", 0) if isinstance(d, dict) else 0


class Judgement:
    """Every member's history of one trace, judged against the trace's verdict."""

    def __init__(self, trace):
        self.t = trace
        members = sorted({0} | {member_of(e) for e in trace["events"]})
        self.members = [Checker(trace, m) for m in members]
        self.problems = []

    def run(self):
        for c in self.members:
            c.run()
            self.problems += ["member %d: %s" % (c.member, p) if c.member else p for p in c.problems]
        self.flagged = sum(c.flagged for c in self.members)
        self.checks = sum(c.checks for c in self.members)
        self.ttl_deletes = sum(c.ttl_deletes for c in self.members)
        self.reads = sum(c.reads for c in self.members)
        found_bad_read = self.found_bad_read = any(c.found_bad_read for c in self.members)
        self.restores = sum(c.restores for c in self.members)
        found_bad_restore = self.found_bad_restore = any(c.found_bad_restore for c in self.members)
        failed_restores = [e for e in self.t["events"] if e["kind"] == "restore_checked" and not e["details"]["ok"]]
        self.found_durability_violation = any(getattr(c, "found_durability_violation", False) for c in self.members)
        self.judge_convergence()
        self.judge_elections()
        self.judge_min_valid()
        self.judge_majority_writes()
        reported = {v["property"] for v in self.t["verdict"].get("violations", [])}
        self.judge_ttl_primaries(reported)
        found_ttl = self.found_ttl_off_primary or any(c.found_ttl_problem for c in self.members)
        if "backup_restores_snapshot" in reported and failed_restores and not found_bad_restore:
            self.problems.insert(0, "the trace reports backup_restores_snapshot, this checker finds the restore is the snapshot")
        if "reads_see_committed" in reported and not found_bad_read:
            self.problems.insert(0, "the trace reports reads_see_committed, this checker finds every read legal")
        if "ttl_safety" in reported and not found_ttl:
            self.problems.insert(0, "the trace reports ttl_safety, this checker finds every TTL delete legal")
        if self.t["verdict"]["ok"] and self.problems:
            self.problems.insert(0, "the trace says OK, this checker disagrees")
        if reported & DURABILITY_PROPERTIES and not self.found_durability_violation and not self.problems:
            self.problems.insert(0, "the trace reports %s, this checker finds nothing" % sorted(reported & DURABILITY_PROPERTIES))


    def judge_convergence(self):
        """A replica set's end: each member's documents (its final state from its own history,
        catalog rows left out) against the primary's, as the convergence_check events state them,
        and a replicas_converge violation exactly where they differ. The oplog's side of the
        property is the trace's alone (the history holds no oplog)."""
        by_member = {c.member: c for c in self.members}
        flagged = {e["details"].get("subject") for e in self.t["events"]
                   if e["kind"] == "violation" and e["details"]["property"] == "replicas_converge"}
        self.found_divergence = False
        for e in self.t["events"]:
            if e["kind"] != "convergence_check":
                continue
            d = e["details"]
            member, primary = by_member.get(d["member"]), by_member.get(d.get("primary", 0))
            for c, key in ((member, "state_digest"), (primary, "primary_digest")):
                if c is not None and c.documents_digest is not None and c.documents_digest != d[key]:
                    self.problems.append("event %d: member %d's documents digest is %s, the history's %s"
                                         % (e["i"], c.member, d[key], c.documents_digest))
            differ = member is not None and primary is not None and member.documents_digest is not None and \
                member.documents_digest != primary.documents_digest
            self.found_divergence |= differ
            if d["state_digest"] != d["primary_digest"] and e["i"] not in flagged:
                self.problems.append("event %d: member %d's documents differ from the primary's without a violation" % (e["i"], d["member"]))


    def judge_elections(self):
        """At most one member elected per term, and at most one candidate voted for per member and
        term, from the elected and vote events alone; a one_primary_per_term violation wherever not."""
        reported = any(e["kind"] == "violation" and e["details"]["property"] == "one_primary_per_term" for e in self.t["events"])
        elected, votes = {}, {}
        self.found_two_primaries = False
        for e in self.t["events"]:
            d = e.get("details", {})
            if e["kind"] == "elected":
                self.found_two_primaries |= elected.setdefault(d["term"], d["member"]) != d["member"]
            elif e["kind"] == "vote" and d["granted"] and not d.get("dry_run"):  # a dry run records nothing
                self.found_two_primaries |= votes.setdefault((d["member"], d["term"]), d["candidate"]) != d["candidate"]
        if self.found_two_primaries and not reported:
            self.problems.append("two primaries (or two votes) in one term without a one_primary_per_term violation")
        if reported and not self.found_two_primaries:
            self.problems.append("a one_primary_per_term violation the elected and vote events do not show")

    def judge_min_valid(self):
        """A member below its last rollback's minValid is RECOVERING and never elected: each winner's
        newest entry at its election_start against the min_valid_ts of its last rollback event; a
        min_valid_kept violation wherever not. (The property's other half, the raw minValid row at
        every start, is not in the trace.)"""
        reported = any(e["kind"] == "violation" and e["details"]["property"] == "min_valid_kept" for e in self.t["events"])
        min_valid, applied_at_start = {}, {}
        self.found_primary_below_min_valid = False
        for e in self.t["events"]:
            d = e.get("details", {})
            if e["kind"] == "rollback":
                min_valid[d["member"]] = d["min_valid_ts"]
            elif e["kind"] == "election_start":
                applied_at_start[(d["member"], d["term"])] = d["applied_ts"]
            elif e["kind"] == "elected" and (d["member"], d["term"]) in applied_at_start:
                below = applied_at_start[(d["member"], d["term"])] < min_valid.get(d["member"], 0)
                self.found_primary_below_min_valid |= below
        if self.found_primary_below_min_valid and not reported:
            self.problems.append("a member elected below its last rollback's minValid without a min_valid_kept violation")

    def judge_ttl_primaries(self, reported):
        """With elections, a TTL delete must come from a pass that began while its member was a
        writable primary: from the member's primary_writable event until it steps down, crashes
        or begins a replSetStepDown (stepping_down; a step_down_failed with writable_again ends
        that). ttl_safety must be reported wherever one did not."""
        self.found_ttl_off_primary = False
        if not any(e["kind"] == "elected" for e in self.t["events"]):
            # Without elections the first member is the primary for the whole run, unless the
            # scenario makes its node a secondary (ttl.role).
            first_secondary = self.t["header"]["scenario"].get("ttl", {}).get("role") == "secondary"
            self.found_ttl_off_primary = any(e["kind"] == "commit" and e.get("details", {}).get("op") == "ttl_delete"
                                             and (member_of(e) != 0 or first_secondary) for e in self.t["events"])
            return
        writable, pass_start = set(), {}
        for e in self.t["events"]:
            k, d, m = e["kind"], e.get("details", {}), member_of(e)
            if k == "primary_writable":
                writable.add(m)
            elif (k == "stepped_down" and d["from"] == "primary") or k in ("crash", "stepping_down"):
                writable.discard(m)
            elif k == "step_down_failed" and d.get("writable_again"):
                writable.add(m)
            elif k == "ttl_pass_start":
                pass_start[e["actor"]] = m in writable
            elif k == "commit" and d.get("op") == "ttl_delete" and not pass_start.get(e["actor"], False):
                self.found_ttl_off_primary = True
        if self.found_ttl_off_primary and "ttl_safety" not in reported:
            self.problems.append("a TTL delete by a member that was not the primary when its pass began, without a ttl_safety violation")

    def judge_majority_writes(self):
        """Every attempt acknowledged with w:"majority" (a client's, or a script step's) names its oplog entry; the final_oplog event
        lists the final primary's oplog as runs of ts with one term. An entry at or above the
        oldest ts kept must be there with its term; majority_writes_survive fails exactly then."""
        finals = [e for e in self.t["events"] if e["kind"] == "final_oplog"]
        self.found_lost_majority_write = self.found_rolled_back_read = False
        if not finals:
            return
        runs = finals[-1]["details"]["runs"]
        first_ts = runs[0][0] if runs else 0
        def holds(ts, term):
            return any(a <= ts <= b and t == term for a, b, t in runs)
        w_of = {e["details"]["seq"]: e["details"].get("w") for e in self.t["events"] if e["kind"] == "client_invoke"}
        lost = set()
        for e in self.t["events"]:
            d = e.get("details", {})
            client_ack = e["kind"] == "client_complete" and d["fate"] == "ok" and w_of.get(d["seq"]) == "majority"
            script_ack = e["kind"] == "script_step" and d.get("w") == "majority" and d["code"] == "OK"
            if not (client_ack or script_ack) or "entry" not in d:
                continue
            ts, term = d["entry"]["ts"], d["entry"]["term"]
            if ts >= first_ts and not holds(ts, term):
                lost.add(e["i"])
        self.found_lost_majority_write = bool(lost)
        self.compare_flagged("majority_writes_survive", lost, "majority writes lost")
        self.judge_reads(holds, first_ts)

    def judge_reads(self, holds, first_ts):
        """A find's read point must be in the final oplog if it read with readConcern "majority";
        a "local" read's may be missing (its write was rolled back): counted, as reads_checked says."""
        concern = {e["details"]["seq"]: e["details"].get("read_concern") for e in self.t["events"] if e["kind"] == "client_invoke"}
        rolled_back, local = set(), 0
        for e in self.t["events"]:
            d = e.get("details", {})
            if e["kind"] != "client_complete" or d["fate"] != "ok" or "read_point" not in d:
                continue
            ts, term = d["read_point"]["ts"], d["read_point"]["term"]
            if ts < first_ts or holds(ts, term):
                continue
            if concern.get(d["seq"]) == "majority":
                rolled_back.add(e["i"])
            else:
                local += 1
        self.found_rolled_back_read = bool(rolled_back)
        self.compare_flagged("majority_reads_survive", rolled_back, "majority reads rolled back")
        counts = [e["details"]["local_reads_rolled_back"] for e in self.t["events"] if e["kind"] == "reads_checked"]
        if counts and counts[-1] != local:
            self.problems.append("local reads rolled back: %d per the history, %d per the trace" % (local, counts[-1]))

    def compare_flagged(self, prop, found, what):
        flagged = {e["details"].get("subject") for e in self.t["events"]
                   if e["kind"] == "violation" and e["details"]["property"] == prop}
        if found != flagged:
            self.problems.append("%s per the history: events %s; per the trace: %s" % (what, sorted(found)[:5], sorted(flagged)[:5]))


def main(argv):
    paths = [a for a in argv if not a.startswith("--")]
    expect_violation = "--expect-violation" in argv
    failed = False
    for path in paths:
        c = Judgement(read_trace(path))
        c.run()
        caught = c.flagged > 0 or c.found_durability_violation or c.found_divergence or c.found_two_primaries or \
            c.found_lost_majority_write or c.found_rolled_back_read or c.found_ttl_off_primary or \
            c.found_bad_read or c.found_bad_restore or c.found_primary_below_min_valid
        verdict_ok = c.t["verdict"]["ok"]
        if expect_violation:
            bad = not caught
        else:
            bad = bool(c.problems)
        status = "FAIL" if bad else "ok  "
        print("%s %s: %d events, %d recovery checks, %d TTL deletes, %d reads, %d restores decided; trace %s; %s" % (
            status, path, len(c.t["events"]), c.checks, c.ttl_deletes, c.reads, c.restores, "OK" if verdict_ok else "violations",
            "; ".join(c.problems) if c.problems else ("caught" if caught else "history agrees")))
        failed |= bad
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
