#!/usr/bin/env python3
"""random_scn.py - one random fault schedule as a scenario (tests/conformance/README.md's format), for run.sh --random.

  random_scn.py --seed S --index I --provider P --caps "..." [--bodies DIR]

Draws, from (S, I, P) alone, a starting zone, a plan over it (creates with their registry TXT, updates and deletes
whose old RRset is what is held or stale, creates of what exists, a group spanning kinds) and 0 to 3 faults from
the vocabulary the provider can meet (its capabilities): lost replies, other writers before and after a write,
refusals (HTTP statuses with no body or the provider's `member-conflict` body, DNS rcodes, the memory provider's
statuses), failing reads, delays and an expiring credential. Other writers write values no plan holds
(198.51.100.0/24 and "other N"), so that what they wrote can be told from what the run wrote.

Nine schedules in ten run with --force: a zone of a few RRsets passes the safety thresholds (issue 33 §2) with
two deletes or updates, and a held zone sends nothing, so those schedules would test the threshold and not the
engine under faults (about 1 in 20 ended held). The tenth keeps the thresholds, so that a hold under faults is
still met. The choice is drawn from (S, I, P) too, on a stream of its own: the rest of a schedule is what it was.
"""
import argparse
import json
import os
import random

REG = '"heritage=external-dns,external-dns/owner=default,external-dns/resource=service/default/%s"'


def ep(name, typ, targets, ttl=300, owned=None):
    e = {"dnsName": name + ".example.com", "recordType": typ, "recordTTL": ttl, "targets": targets}
    if owned:
        e["labels"] = {"ownedRecord": owned + ".example.com"}
    return e


def draw_zone(rnd, names):
    """{name: (ttl, [addresses])} of A records held, each with its registry TXT at a-NAME."""
    held = {}
    for n in names:
        if rnd.random() < 0.5:
            held[n] = (rnd.choice([60, 300]), sorted({"192.0.2.%d" % rnd.randint(1, 250)
                                                      for _ in range(rnd.randint(1, 2))}))
    return held


def draw_plan(rnd, names, held):
    plan = {"create": [], "updateOld": [], "updateNew": [], "delete": []}
    for n in names:
        roll = rnd.random()
        addr = ["192.0.2.%d" % rnd.randint(1, 250)]
        if n not in held:
            if roll < 0.6:  # a new record with its registry TXT (one group)
                plan["create"] += [ep(n, "A", addr, owned=n), ep("a-" + n, "TXT", [REG % n], owned=n)]
            continue
        ttl, cur = held[n]
        if roll < 0.3:  # an update: its old RRset as held, or stale
            old = cur if rnd.random() < 0.8 else ["192.0.2.251"]
            new_ttl = ttl if rnd.random() < 0.7 else (600 if ttl != 600 else 60)
            plan["updateOld"].append(ep(n, "A", old, ttl=ttl))
            plan["updateNew"].append(ep(n, "A", addr if new_ttl == ttl or rnd.random() < 0.5 else cur, ttl=new_ttl))
        elif roll < 0.5:  # a delete of the record and its registry TXT
            old = cur if rnd.random() < 0.85 else ["192.0.2.252"]
            plan["delete"] += [ep(n, "A", old, ttl=ttl), ep("a-" + n, "TXT", [REG % n], ttl=300, owned=n)]
        elif roll < 0.6:  # a create of what exists (another value: a conflict; the same: already in effect)
            plan["create"].append(ep(n, "A", cur if rnd.random() < 0.3 else addr, ttl=ttl))
        elif roll < 0.7:  # a group spanning kinds: the A updated, an AAAA created beside it
            plan["updateOld"].append(ep(n, "A", cur, ttl=ttl))
            plan["updateNew"].append(ep(n, "A", addr, ttl=ttl))
            plan["create"].append(ep(n, "AAAA", ["2001:db8::%x" % rnd.randint(1, 4000)], owned=n))
    if not any(plan.values()):
        plan["create"].append(ep("fallback", "A", ["192.0.2.253"]))
    return {k: v for k, v in plan.items() if v}


def draw_faults(rnd, caps, names, bodies, writes_max):
    """Fault lines the provider's capabilities can meet."""
    out = []
    w = lambda: rnd.randint(1, writes_max)
    other = lambda k: ("%s 300 IN A 198.51.100.%d" % (rnd.choice(names), k) if rnd.random() < 0.7
                       else '%s 300 IN TXT "other %d"' % (rnd.choice(names), k))
    kinds = []
    if "lost-reply" in caps:
        kinds += ["lose"] * 3
    if "oob" in caps:
        kinds += ["oob-before", "oob-after", "lose+oob", "lose+oob"] if "lost-reply" in caps else ["oob-before"]
    if "refuse" in caps:
        kinds += ["refuse"] * 2
    if "fail-reads" in caps:
        kinds += ["fail-reads"]
    if "delay" in caps:
        kinds += ["delay"]
    if "expire-credential" in caps:
        kinds += ["expire"]
    for k in range(rnd.randint(0, 3) if kinds else 0):
        kind = rnd.choice(kinds)
        if kind == "lose":
            out.append("lose-reply %d" % w())
        elif kind == "lose+oob":
            n = w()
            out += ["lose-reply %d" % n, "oob-after %d %s" % (n, other(k + 1))]
        elif kind in ("oob-before", "oob-after"):
            out.append("%s %d %s" % (kind, w(), other(k + 1)))
        elif kind == "refuse":
            out.append(refusal(rnd, caps, bodies, w()))
        elif kind == "fail-reads":
            out.append(rnd.choice(["fail-reads %d %d" % (lambda a: (a, a + rnd.randint(0, 2)))(rnd.randint(1, 4)),
                                   "fail-reads-after %d %d" % (w(), rnd.randint(1, 3))]))
        elif kind == "delay":
            out.append("delay %d 0.%d" % (w(), rnd.randint(1, 3)))
        else:
            out.append("expire-credential %d" % rnd.randint(2, writes_max + 1))
    return out


def refusal(rnd, caps, bodies, n):
    if "dns" in caps:
        return "rcode %d %s" % (n, rnd.choice(["REFUSED", "SERVFAIL", "YXRRSET", "NXRRSET"]))
    if "http" in caps:
        choices = ["refuse %d %d -" % (n, s) for s in (500, 502, 503)]
        if bodies and os.path.exists(os.path.join(bodies, "member-conflict.status")):
            choices.append("refuse %d @ member-conflict" % n)
        if bodies and any(os.path.exists(os.path.join(bodies, "429" + e)) for e in ("", ".json", ".xml", ".txt")):
            choices.append("refuse %d 429 429 1" % n)
        return rnd.choice(choices)
    return "refuse %d %d" % (n, rnd.choice([409, 412, 429, 500, 503]))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--index", type=int, required=True)
    ap.add_argument("--provider", required=True)
    ap.add_argument("--caps", default="")
    ap.add_argument("--bodies")
    a = ap.parse_args()
    rnd = random.Random("%d/%d/%s" % (a.seed, a.index, a.provider))
    caps = set(a.caps.split())
    names = ["r%d" % i for i in range(rnd.randint(2, 8))]
    held = draw_zone(rnd, names)
    plan = draw_plan(rnd, names, held)
    groups = len({e["dnsName"].replace("a-", "", 1) for lst in plan.values() for e in lst})
    batch = rnd.choice([0, 0, 1, 2, 3])
    writes_max = max(2, (groups // batch if batch else 1) + 1)
    faults = draw_faults(rnd, caps, names, a.bodies, writes_max)
    force = random.Random("%d/%d/%s/force" % (a.seed, a.index, a.provider)).random() < 0.9
    zone = []
    for n, (ttl, addrs) in sorted(held.items()):
        zone += ["%s %d IN A %s" % (n, ttl, x) for x in addrs]
        zone.append("a-%s 300 IN TXT %s" % (n, REG % n))
    print("[about]\nrandom schedule seed %d index %d for %s%s" % (a.seed, a.index, a.provider,
                                                                   "" if force else " (the safety thresholds on)"))
    print("[zone]\n" + "\n".join(zone))
    print("[plan]\n" + json.dumps(plan))
    if faults:
        print("[faults]\n" + "\n".join(faults))
    # one line (run.sh reads the first); --force last, as the memory driver reads its flags in pairs (it has no
    # thresholds: they are the CLI's)
    flags = (["--batch-size %d" % batch] if batch else []) + (["--force"] if force else [])
    if flags:
        print("[flags]\n" + " ".join(flags))


if __name__ == "__main__":
    main()
