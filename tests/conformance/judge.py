#!/usr/bin/env python3
"""judge.py - the conformance invariants (tests/conformance/README.md), from what the provider truly holds.

  judge.py --provider P --scenario S --plan PLAN --before FILE --after FILE --drops DROPLOG --summary JSON
           [--faults FILE] [--rc N] [--stderr FILE] [--caps "..."] [--props "name ..."] [--ttl-loose "name=value ..."]
           [--origin example.com.]

--before/--after: the driver's truth (drv_truth), one record a line: "owner. TTL TYPE RDATA", optionally followed by
" ;; key=value ..." (a set identifier as set=ID, and the properties the provider stores for the RRset, e.g.
aws/weight=10 alias=true). Every outcome is taken from what dnsbatch reported: a change in the drop log is dropped or
failed as its line says; every other change was reported applied or already_applied (the summary's counts say how
many). Then (README, "The invariants"), with G the change groups as the engine makes them (applier/engine/group.c):
  1. a change reported applied or already_applied: its RRset holds its desired state after the run;
  2. a group reported dropped: its whole desired state is not in effect, and nothing of it landed (each RRset it
     touches is as it was before, the scenario's out-of-band records aside);
  3. a group is whole: one outcome class for all its changes (applied/already_applied, dropped, failed), and its
     RRsets all as before or all as desired (a `rollback` named on stderr aside, for a failed group);
  4. the drop log matches the outcomes: each line is one change of the plan, and its dropped/failed lines count
     what the summary counts; the summary accounts for every change;
  5. nothing outside the plan changed, but for the out-of-band writes.
The out-of-band records (oob-before and oob-after lines of --faults) are taken out of the RRsets they were added to before any
comparison: whether an RRset-replacing write kept them or not is no outcome of this run; nor is the TTL of an
RRset another writer added to (a DNS server gives the whole RRset the TTL of the last record added).
Prints one "ok - P S CHECK" / "not ok - P S CHECK" line per check (with "#" detail lines); exit 1 on any not ok.
"""
import argparse
import json
import sys

import dns.name
import dns.rdata
import dns.rdataclass
import dns.rdatatype
import dns.tokenizer

ROOT = dns.name.root
ROUTING = ("aws/", "alias")  # properties that never make sense on a TXT but as a set's routing policy
# properties that make no sense on a TXT (external-dns copies them onto its registry TXT): ignored there
ALIAS_PROPS = ("alias", "aws/evaluate-target-health", "external-dns.alpha.kubernetes.io/cloudflare-proxied")


class Judge:
    def __init__(self, provider, scenario):
        self.provider, self.scenario = provider, scenario
        self.failed = 0

    def check(self, name, good, *detail):
        if good:
            print("ok - %s %s %s" % (self.provider, self.scenario, name))
        else:
            self.failed += 1
            print("not ok - %s %s %s" % (self.provider, self.scenario, name))
            for d in detail:
                for line in str(d).splitlines():
                    print("#   " + line)


##### names and RDATA ###############################################################################################

def canon_name(text, origin=ROOT):
    """An owner name: absolute, lower case, with its trailing dot."""
    return dns.name.from_text(text.strip(), origin).to_text().lower()


def txt_value(rd):
    return b"".join(rd.strings)


def rdata_key(rtype, text, origin=ROOT, alias=False):
    """A comparable form of one RDATA: TXT as its joined octets (a value may be split into 255-octet strings),
    an alias's target as a name, anything else as its canonical wire form (names lower-cased)."""
    if alias:
        return ("alias", canon_name(text, origin))
    t = dns.rdatatype.from_text(rtype)
    if t == dns.rdatatype.TXT and not text.lstrip().startswith('"'):
        return ("txt", text.encode("utf-8"))
    rd = dns.rdata.from_text(dns.rdataclass.IN, t, text, origin=origin)
    if t == dns.rdatatype.TXT:
        return ("txt", txt_value(rd))
    return ("wire", rd.to_digestable(ROOT))


def split_annotations(line):
    """(record, {key: value}) of a truth line: " ;; key=value ..." outside quotes ends the record."""
    inq = esc = False
    for i, ch in enumerate(line):
        if esc:
            esc = False
        elif ch == "\\":
            esc = True
        elif ch == '"':
            inq = not inq
        elif not inq and line.startswith(" ;; ", i):
            props = {}
            for kv in line[i + 4:].split():
                k, _, v = kv.partition("=")
                props[k] = v
            return line[:i], props
    return line, {}


class RRset:
    """The RDATA set and TTL of one (owner, type, set identifier), with the properties the provider stores."""

    def __init__(self):
        self.ttl = None
        self.rdata = {}     # key -> display text
        self.props = {}

    def __repr__(self):
        p = " ".join("%s=%s" % kv for kv in sorted(self.props.items()))
        return "TTL %s %s%s" % (self.ttl, sorted(self.rdata.values()), " ;; " + p if p else "")


def read_truth(path):
    """{(owner, TYPE, set): RRset} from a driver's truth file."""
    zone = {}
    with open(path, encoding="utf-8") as f:
        for n, raw in enumerate(f, 1):
            raw = raw.rstrip("\n")
            if not raw.strip() or raw.startswith("#"):
                continue
            rec, props = split_annotations(raw)
            parts = rec.split(None, 3)
            if len(parts) < 4:
                raise ValueError("%s:%d: not 'owner TTL TYPE RDATA': %r" % (path, n, raw))
            owner, ttl, rtype, text = parts
            rtype = rtype.upper()
            if rtype == "SOA":
                continue
            sid = props.pop("set", "")
            key = (canon_name(owner), rtype, sid)
            rs = zone.setdefault(key, RRset())
            rs.ttl = int(ttl) if rs.ttl is None else min(rs.ttl, int(ttl))
            is_alias = props.get("alias") == "true" and rtype in ("A", "AAAA")
            rs.rdata[rdata_key(rtype, text, alias=is_alias)] = text
            rs.props.update(props)
    return zone


def read_oob(path, origin):
    """The out-of-band records of the fault file: [(owner, TYPE, rdata key)]."""
    recs = []
    if not path:
        return recs
    with open(path, encoding="utf-8") as f:
        for line in f:
            w = line.split(None, 2)
            if len(w) < 3 or w[0] not in ("oob-before", "oob-after"):
                continue
            tok = dns.tokenizer.Tokenizer(w[2])
            owner = canon_name(tok.get_string(), origin)
            t = tok.get()
            if t.value.isdigit():
                t = tok.get()
            if t.value.upper() == "IN":
                t = tok.get()
            rtype = t.value.upper()
            rest = w[2].split(t.value, 1)[1].strip()
            recs.append((owner, rtype, rdata_key(rtype, rest, origin)))
    return recs


##### the plan, its changes and groups ##############################################################################

def ep_props(ep):
    return {p.get("name"): (p.get("value") or "true") if p.get("value") in (None, "") else p.get("value")
            for p in ep.get("providerSpecific") or []}


def ep_key(ep):
    return (canon_name(ep["dnsName"]), ep["recordType"].upper(), ep.get("setIdentifier") or "")


def ep_rrset(ep, stored_props):
    """The RRset an endpoint asks for: its targets, its TTL (None: not set) and the stored properties it names."""
    rs = RRset()
    ttl = ep.get("recordTTL")
    rs.ttl = int(ttl) if ttl else None
    props = ep_props(ep)
    rtype = ep["recordType"].upper()
    is_alias = props.get("alias") == "true" and rtype in ("A", "AAAA")
    for t in ep.get("targets") or []:
        rs.rdata[rdata_key(rtype, t, alias=is_alias)] = t
    keep = {k: v for k, v in props.items() if k in stored_props}
    if rtype == "TXT":  # external-dns copies providerSpecific onto its registry TXT: routing only with a set
        keep = {k: v for k, v in keep.items()
                if k not in ALIAS_PROPS and (not k.startswith(ROUTING) or ep.get("setIdentifier"))}
    rs.props = keep
    return rs


class Change:
    def __init__(self, index, kind, old, new):
        self.index, self.kind, self.old, self.new = index, kind, old, new
        self.outcome = None   # applied (or already_applied), dropped, failed
        self.group = None

    def ep(self):
        return self.old if self.kind == "delete" else self.new

    def owned(self):
        for ep in (self.new, self.old):
            if ep and (ep.get("labels") or {}).get("ownedRecord"):
                try:
                    return canon_name(ep["labels"]["ownedRecord"])
                except Exception:
                    return None
        return None

    def ident(self):
        """What identifies the change in the drop log: its kind and endpoints, targets as a set."""
        def one(ep):
            if ep is None:
                return None
            k = ep_key(ep)
            try:
                return (k, tuple(sorted(ep_rrset(ep, ()).rdata)))
            except Exception:
                return (k, tuple(sorted(str(t) for t in ep.get("targets") or [])))
        return (self.kind, one(self.old), one(self.new))

    def text(self):
        ep = self.ep()
        return "%s %s %s%s %s" % (self.kind, ep["dnsName"], ep["recordType"],
                                  " set " + ep["setIdentifier"] if ep.get("setIdentifier") else "",
                                  ep.get("targets"))


def plan_lists(doc):
    def get(*names):
        for n in names:
            if doc.get(n):
                return doc[n]
        return []
    return get("create", "Create"), get("updateOld", "UpdateOld"), get("updateNew", "UpdateNew"), \
        get("delete", "Delete")


def plan_changes(doc):
    create, uold, unew, delete = plan_lists(doc)
    changes = []
    for ep in create:
        changes.append(Change(len(changes), "create", None, ep))
    for o, n in zip(uold, unew):
        changes.append(Change(len(changes), "update", o, n))
    for ep in delete:
        changes.append(Change(len(changes), "delete", ep, None))
    return changes


def make_groups(changes):
    """Groups as applier/engine/group.c makes them: union over (owner, set id), the ownedRecord label joined with
    the change's set id, an update whose set id moved joined to its old set, a set joined to its owner's plain key."""
    parent = list(range(len(changes)))

    def find(i):
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    def union(a, b):
        a, b = find(a), find(b)
        if a != b:
            parent[max(a, b)] = min(a, b)

    seen = {}

    def join(key, i):
        if key in seen:
            union(seen[key], i)
        seen[key] = i

    named = []                  # (change, its endpoint, its owner) for each change whose name reads
    for c in changes:
        ep = c.ep()
        try:
            named.append((c, ep, canon_name(ep["dnsName"])))
        except Exception:
            continue
    for c, ep, owner in named:
        sid = ep.get("setIdentifier") or None
        join((owner, sid), c.index)
        if c.owned():
            join((c.owned(), sid), c.index)
        if c.kind == "update":
            old_sid = c.old.get("setIdentifier") or None
            if old_sid != sid:
                join((canon_name(c.old["dnsName"]), old_sid), c.index)
    for c, ep, owner in named:
        if ep.get("setIdentifier") and (owner, None) in seen:
            union(seen[(owner, None)], c.index)
    groups = {}
    for c in changes:
        c.group = find(c.index)
        groups.setdefault(c.group, []).append(c)
    return list(groups.values())


def desired_state(group, stored_props):
    """{(owner, TYPE, set): RRset or None (absent)} the group leaves when it lands."""
    want = {}
    for c in group:
        if c.kind in ("delete", "update"):
            want.setdefault(ep_key(c.old), None)
    for c in group:
        if c.kind in ("create", "update"):
            want[ep_key(c.new)] = ep_rrset(c.new, stored_props)
    return want


##### comparisons ###################################################################################################

def without_oob(rs, key, oob):
    """rs less the out-of-band records at key; None when nothing is left."""
    if rs is None:
        return None
    drop = {k for (o, t, k) in oob if (o, t) == key[:2]}
    if not drop:
        return rs
    out = RRset()
    out.ttl, out.props = None, rs.props  # another writer's add may set the RRset's TTL: not this run's doing
    out.rdata = {k: v for k, v in rs.rdata.items() if k not in drop}
    return out if out.rdata else None


def touched_by_oob(key, oob):
    return any((o, t) == key[:2] for (o, t, _) in oob)


def holds(have, want, loose_ttl, was=None):
    """Whether the RRset `have` is the desired `want` (None: absent): True, False, or None when it cannot be told
    (another writer's add set the RRset's TTL, and the change's RDATA is what was held before: only its TTL moved)."""
    if want is None:
        return have is None
    if have is None:
        return False
    if set(have.rdata) != set(want.rdata):
        return False
    for k, v in want.props.items():
        if have.props.get(k) != v:
            return False
    if want.ttl is None or loose_ttl:
        return True
    if have.ttl is None:
        return None if was is not None and set(was.rdata) == set(want.rdata) else True
    return have.ttl == want.ttl


def same(a, b):
    """Two truths of one RRset alike (TTL, RDATA, properties)."""
    if a is None or b is None:
        return a is None and b is None
    return set(a.rdata) == set(b.rdata) and a.props == b.props and (a.ttl == b.ttl or None in (a.ttl, b.ttl))


def ttl_loose_for(ep, rules):
    props = ep_props(ep) if ep else {}
    for r in rules:
        k, _, v = r.partition("=")
        if props.get(k) == (v or "true"):
            return True
    return False


##### the drop log and the summary ##################################################################################

def drop_ident(change):
    if "create" in change:
        return Change(0, "create", None, change["create"][0]).ident()
    if "delete" in change:
        return Change(0, "delete", change["delete"][0], None).ident()
    return Change(0, "update", change["updateOld"][0], change["updateNew"][0]).ident()


def assign_outcomes(j, changes, drops_path):
    """Each drop log line to one change of the plan (its outcome); the others applied. @return (dropped, failed)"""
    lines = []
    with open(drops_path, encoding="utf-8") as f:
        for n, raw in enumerate(f, 1):
            if raw.strip():
                try:
                    lines.append(json.loads(raw))
                except ValueError as e:
                    j.check("the drop log's line %d is JSON" % n, False, e)
    by_ident = {}
    for c in changes:
        by_ident.setdefault(c.ident(), []).append(c)
    unmatched = []
    counted = {"dropped": 0, "failed": 0}
    for d in lines:
        outcome = d.get("outcome")
        if outcome in counted:
            counted[outcome] += 1
        try:
            cands = by_ident.get(drop_ident(d.get("change") or {}), [])
        except Exception:
            cands = []
        free = [c for c in cands if c.outcome is None]
        if not free or outcome not in counted:
            unmatched.append(d)
            continue
        free[0].outcome = outcome
        free[0].drop = d
    for c in changes:
        if c.outcome is None:
            c.outcome = "applied"
    j.check("the drop log: each line is one change of the plan", not unmatched,
            *[json.dumps(d.get("change")) + " " + str(d.get("outcome")) for d in unmatched])
    return counted


##### main ##########################################################################################################

def scheduled_faults(path):
    """The fault lines of --faults (blank lines and comments aside); [] without the file."""
    if not path:
        return []
    with open(path, encoding="utf-8") as f:
        return [ln.split() for ln in f if ln.strip() and not ln.lstrip().startswith("#")]


def main():
    ap = argparse.ArgumentParser()
    for a in ("provider", "scenario", "plan", "before", "after", "drops", "summary"):
        ap.add_argument("--" + a, required=True)
    ap.add_argument("--faults")
    ap.add_argument("--rc", default="")
    ap.add_argument("--stderr")
    ap.add_argument("--caps", default="")
    ap.add_argument("--props", default="", help="the providerSpecific names the provider stores (and the truth shows)")
    ap.add_argument("--ttl-loose", default="", help="name=value properties whose records' TTL the provider rewrites")
    ap.add_argument("--origin", default="example.com.")
    a = ap.parse_args()
    j = Judge(a.provider, a.scenario)
    origin = dns.name.from_text(a.origin)
    stored = set(a.props.split())
    loose_rules = a.ttl_loose.split()

    with open(a.plan, encoding="utf-8") as f:
        changes = plan_changes(json.load(f))
    before, after = read_truth(a.before), read_truth(a.after)
    oob = read_oob(a.faults, origin)
    stderr = open(a.stderr, encoding="utf-8", errors="replace").read() if a.stderr else ""

    # 4. the summary accounts for every change, and the drop log for what it counts
    try:
        with open(a.summary, encoding="utf-8") as f:
            summary = json.load(f)
    except (OSError, ValueError) as e:
        summary = None
        if a.rc != "2":  # exit 2 prints no summary: nothing was sent (checked below with 5)
            j.check("the summary is printed (exit %s)" % a.rc, False, e, stderr[-1500:])
    if a.rc == "2":  # exit 2 (a setup fault: nothing was sent) claims no outcome, in the summary or the drop log
        with open(a.drops, encoding="utf-8") as f:
            lines = [ln for ln in f if ln.strip()]
        # ... but a zone a safety threshold holds (issue 33 §2) tells each change failed, reason held: no claim
        held = (summary is not None and summary.get("submissions", 0) == 0 and
                summary.get("failed") == summary.get("changes") and
                all(o.get("outcome") == "held" for o in summary.get("outcomes", [{}])) and
                all(json.loads(ln).get("reason") == "held" for ln in lines))
        j.check("exit 2 claims nothing (no summary, no drop log line; or every change held)",
                (summary is None and not lines) or held,
                "summary: %s" % (json.dumps(summary)[:400] if summary is not None else "none"),
                *[ln.rstrip("\n")[:400] for ln in lines[:5]])
        # ... and has a cause: a fault the scenario scheduled (a refused credential, a TSIG or DNS refusal) or a
        # hold. Exit 2 on a scenario without faults is the driver's or the provider's own setup failing (an unknown
        # flag, a provider that cannot start), which would otherwise pass as "nothing claimed, nothing changed".
        j.check("exit 2 has a cause: a fault the scenario scheduled, or a hold", held or bool(scheduled_faults(a.faults)),
                "no fault was scheduled; dnsbatch said:", *stderr.strip().splitlines()[-5:])
    counted = assign_outcomes(j, changes, a.drops)
    if summary is not None:
        s = summary
        total = s.get("applied", 0) + s.get("already_applied", 0) + s.get("dropped", 0) + s.get("failed", 0)
        j.check("the summary accounts for every change", s.get("changes") == len(changes) == total,
                "plan %d changes, summary %s" % (len(changes), json.dumps(s)[:400]))
        j.check("the drop log matches the outcomes",
                counted["dropped"] == s.get("dropped") and
                (counted["failed"] == s.get("failed") or s.get("failed", 0) > 1000),
                "drop log: %d dropped, %d failed; summary: %s dropped, %s failed" %
                (counted["dropped"], counted["failed"], s.get("dropped"), s.get("failed")))

    groups = make_groups(changes)
    touched = set()
    bad1, bad2, bad3 = [], [], []
    for g in groups:
        want = desired_state(g, stored)
        touched.update(want)
        loose = any(ttl_loose_for(c.new, loose_rules) for c in g)
        now = {k: without_oob(after.get(k), k, oob) for k in want}
        was = {k: without_oob(before.get(k), k, oob) for k in want}
        in_effect = {k: holds(now[k], want[k], loose, was[k]) for k in want}
        classes = {("in effect" if c.outcome == "applied" else c.outcome) for c in g}
        names = "; ".join(c.text() + " -> " + c.outcome for c in g)
        state = "\n".join("%s %s%s: wanted %s, before %s, after %s" % (k[0], k[1], " set " + k[2] if k[2] else "",
                          want[k], was[k], now[k]) for k in sorted(want))
        if summary is None:  # no outcome was reported: only 5 (and exit 2's nothing sent) can be judged
            if not all(same(now[k], was[k]) for k in want):
                bad3.append("exit %s without a summary, yet the plan's RRsets changed:\n%s" % (a.rc, state))
            continue
        wrong = [c.text() for c in g if c.outcome == "applied" and in_effect[ep_key(c.ep())] is False]
        if wrong:  # 1
            bad1.append("reported applied/already_applied, not in effect: " + "; ".join(wrong) + "\n" + state)
        if classes == {"dropped"}:  # 2
            if all(v is True for v in in_effect.values()):
                bad2.append("group dropped, its whole desired state in effect: " + names + "\n" + state)
            landed = [k for k in want if not same(now[k], was[k]) and in_effect[k] is True]
            if landed:
                bad2.append("group dropped, part of it landed (%s): %s\n%s" %
                            (", ".join("%s %s" % k[:2] for k in landed), names, state))
        if len(classes) > 1:  # 3
            bad3.append("one group, outcomes %s: %s" % (sorted(classes), names))
        as_was = all(same(now[k], was[k]) for k in want)
        as_wanted = all(v is not False for v in in_effect.values())
        if not (as_was or as_wanted) and not (classes == {"failed"} and "rollback" in stderr):
            bad3.append("group half applied (neither as before nor as desired): " + names + "\n" + state)
    j.check("1 no change reported applied that is not in effect", not bad1, *bad1)
    j.check("2 no change reported dropped whose desired state is in effect", not bad2, *bad2)
    j.check("3 every group whole", not bad3, *bad3)

    # 5. nothing outside the plan changed, but for the out-of-band writes
    stray = []
    for k in sorted(set(before) | set(after)):
        if k in touched:
            continue
        if not same(without_oob(after.get(k), k, oob), without_oob(before.get(k), k, oob)):
            stray.append("%s %s: before %s, after %s" % (k[0], k[1], before.get(k), after.get(k)))
        elif touched_by_oob(k, oob) and after.get(k) is None and before.get(k) is not None:
            stray.append("%s %s: lost" % k[:2])
    j.check("5 nothing outside the plan changed", not stray, *stray)
    if j.failed:
        d = [c.text() + " -> " + c.outcome for c in changes]
        print("#   outcomes: " + "; ".join(d)[:3000])
    return 1 if j.failed else 0


if __name__ == "__main__":
    sys.exit(main())
