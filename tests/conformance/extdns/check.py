#!/usr/bin/env python3
"""check.py - after a round trip (loop.py), each source endpoint written and listed back as external-dns sees it.

Usage: check.py LABEL SOURCES.json OUTDIR [TRUTH [PROPS]]

For every endpoint of SOURCES.json:
  - AdjustEndpoints kept it, with every providerSpecific property of the provider's own (aws/..., alias, the
    cloudflare annotations) as the source gave it (a valueless one may come back "true"): an endpoint or property
    left out there is never asked for again by external-dns, so nothing else would show the loss;
  - GET /records after the first loop (OUTDIR/loop2.records.json) lists it under its name, type and set identifier
    with the adjusted targets (as a set), the TTL when one is configured and the providerSpecific (as a set), as
    external-dns's plan compares them, and its ownership TXT ("<type>-<name>", owner default);
  - with TRUTH (the provider's own view, "owner TTL TYPE RDATA [;; set=ID key=value ...]", read without dnsbatch):
    the provider holds it (name, type, set identifier), with each of its properties named in PROPS (the properties
    that provider stores) at the source's value.
Prints "ok - LABEL ..." / "not ok - LABEL ..." (with "#" details); exit 1 when any is not ok.
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from loop import differs, key_of, parse_labels, txt_name  # noqa: E402


OWN_PROPS = ("aws/", "alias", "external-dns.alpha.kubernetes.io/cloudflare-")


def props_of(ep):
    return {p["name"]: p.get("value") or "" for p in ep.get("providerSpecific") or []}


def lost_props(src, adj):
    """The provider's own properties of src that adj does not carry as given."""
    have = props_of(adj)
    lost = []
    for k, v in props_of(src).items():
        if k.startswith(OWN_PROPS) and not (have.get(k) == v or (v == "" and have.get(k) == "true")):
            lost.append("%s=%s (adjusted: %s)" % (k, v, have.get(k, "absent")))
    return lost


def read_truth(path):
    """{(owner, TYPE, set): {props}} from a truth file."""
    held = {}
    with open(path) as f:
        for line in f:
            rec, _, ann = line.rstrip("\n").partition(" ;; ")
            parts = rec.split()
            if len(parts) < 3:
                continue
            props = dict(kv.partition("=")[::2] for kv in ann.split())
            sid = props.pop("set", "")
            held[(parts[0].lower().rstrip("."), parts[2], sid)] = props
    return held


def truth_problem(src, held, stored):
    props = held.get(key_of(src))
    if props is None:
        return "the provider does not hold it"
    wrong = ["%s=%s (held: %s)" % (k, v, props.get(k, "absent")) for k, v in props_of(src).items()
             if k in stored and props.get(k) != (v or "true")]
    return "the provider holds it without " + ", ".join(wrong) if wrong else None


def check_truth(label, sources, truth_path, stored):
    held = read_truth(truth_path)
    bad = 0
    for src in sources:
        what = " ".join(filter(None, key_of(src)))
        problem = truth_problem(src, held, stored)
        print("%s - %s %s: the provider holds it (its own view, not dnsbatch's)" % ("not ok" if problem else "ok",
                                                                                    label, what))
        if problem:
            bad += 1
            print("#   " + problem)
    return bad


def main():
    label, sources_path, outdir = sys.argv[1:4]
    truth_path = sys.argv[4] if len(sys.argv) > 4 else None
    stored = set((sys.argv[5] if len(sys.argv) > 5 else "").split())
    with open(sources_path) as f:
        sources = json.load(f)
    with open(os.path.join(outdir, "loop1.adjusted.json")) as f:
        adjusted = {key_of(ep): ep for ep in json.load(f)}
    with open(os.path.join(outdir, "loop2.records.json")) as f:
        listed_all = json.load(f)
    listed = {key_of(ep): ep for ep in listed_all}
    bad = 0
    for src in sources:
        k = key_of(src)
        what = " ".join(filter(None, k))
        adj = adjusted.get(k)
        cur = listed.get(k)
        if adj is None:
            problem = ["AdjustEndpoints left it out"]
        elif lost_props(src, adj):
            problem = ["AdjustEndpoints dropped or changed its properties: " + "; ".join(lost_props(src, adj))]
        elif cur is None:
            problem = ["GET /records does not list it"]
        elif differs(adj, cur):
            problem = ["listed differently from what external-dns asked"]
        else:
            problem = []
        txt = listed.get((txt_name(k[0], k[1]), "TXT", k[2]))
        labels = parse_labels(txt["targets"][0]) if txt and txt.get("targets") else None
        if not problem and (labels is None or labels.get("owner") != "default"):
            problem = ["its ownership TXT %s is not listed" % txt_name(k[0], k[1])]
        if problem:
            bad += 1
            print("not ok - %s %s: written and listed back" % (label, what))
            print("#   %s" % problem[0])
            print("#   asked:  %s" % json.dumps(adj or src, sort_keys=True))
            print("#   listed: %s" % json.dumps(cur, sort_keys=True))
        else:
            print("ok - %s %s: written and listed back" % (label, what))
    if truth_path:
        bad += check_truth(label, sources, truth_path, stored)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
