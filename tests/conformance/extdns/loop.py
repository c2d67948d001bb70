#!/usr/bin/env python3
"""loop.py - external-dns v0.22's sync loop with its default TXT registry, against a webhook provider, N times.

Usage: loop.py BASE_URL SOURCES.json LOOPS OUTDIR

SOURCES.json holds the endpoints external-dns's sources make (what the cluster asks for), each with its
providerSpecific and setIdentifier, and labels {"resource": ...}. Each loop does what controller.RunOnce does with
--registry=txt --txt-owner-id=default (no prefix, no suffix, no cache), --managed-record-types covering every type
of SOURCES, and the webhook provider (read from external-dns v0.22: registry/txt/registry.go, plan/plan.go,
endpoint/labels.go, registry/mapper/mapper.go; none of its code is copied here):
  1. POST /adjustendpoints with the desired endpoints (the provider's AdjustEndpoints);
  2. GET /records, then the registry's Records(): each TXT whose value parses as labels ("heritage=external-dns,...")
     is an ownership record: its name less the "<type>-" affix names the endpoint it owns (by name, type and set
     identifier), whose labels it gives; every other record is an endpoint; an owned endpoint whose ownership TXT
     is not listed gets the property txt/force-update=true (so it is planned again);
  3. the plan: a desired endpoint with no current one is a create; one whose current one this owner owns and whose
     targets (as sets), configured TTL or providerSpecific (as a set) differ is an update (the owner inherited);
     a current endpoint this owner owns and nothing desires is a delete; endpoints of other owners are left alone;
  4. the registry's ApplyChanges: each created endpoint gets labels owner=default (+ its source's) and, when no
     ownership TXT is listed under its name, one: name "<type>-<name>", the labels serialized with quotes, TTL unset,
     the endpoint's set identifier and **its providerSpecific copied**, labels {"ownedRecord": name}; updates and
     deletes carry the TXT records to replace (deletes and updateOld with the value listed);
  5. POST /records with the changes, when there are any (204 is success, as the webhook client takes it).
Reuses tests/integration/extdns_loop.py's requests (Go's headers, the webhook media type, 15 s) and comparison.

Writes OUTDIR/loopN.adjusted.json, .records.json, .plan.json (N from 1) and prints one line per loop:
"loop N: W writes (C changes) status S: NAME TYPE [SET] ..." (the endpoints planned), "-" when nothing was posted.
"""
import copy
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "integration"))
from extdns_loop import call, differs  # noqa: E402  (tests/integration/extdns_loop.py)

OWNER = "default"
HERITAGE = "external-dns"
FORCE = "txt/force-update"


def norm(name):
    return name.rstrip(".").lower()


def key_of(ep):
    return (norm(ep["dnsName"]), ep["recordType"], ep.get("setIdentifier") or "")


def parse_labels(value):
    """The labels of an ownership TXT value, or None when it is not one (endpoint.NewLabelsFromString)."""
    text = value.strip()
    if len(text) >= 2 and text[0] == '"' and text[-1] == '"':
        text = text[1:-1]
    labels, heritage = {}, None
    for token in text.split(","):
        k, sep, v = token.partition("=")
        if not sep:
            return None
        if k == "heritage":
            heritage = v
        elif k.startswith(HERITAGE + "/"):
            labels[k[len(HERITAGE) + 1:]] = v
    return labels if heritage == HERITAGE else None


def serialize(labels):
    """Labels.SerializePlain(true): heritage first, then the keys sorted, quoted."""
    tokens = ["heritage=" + HERITAGE] + ["%s/%s=%s" % (HERITAGE, k, labels[k]) for k in sorted(labels)]
    return '"%s"' % ",".join(tokens)


def txt_name(name, rtype):
    """The affix mapper's ToTXTName with no prefix or suffix: '<type>-' before the first label."""
    first, dot, rest = name.partition(".")
    return rtype.lower() + "-" + first + dot + rest


def endpoint_of_txt(name):
    """The mapper's ToEndpointName: (name, type) that an ownership TXT's name stands for, type '' for the legacy
    form."""
    first, dot, rest = name.partition(".")
    typ, dash, bare = first.partition("-")
    if dash and typ.upper() in ("A", "AAAA", "CNAME", "NS", "MX", "SRV", "TXT", "NAPTR", "CAA", "DNAME", "PTR"):
        return bare + dot + rest, typ.upper()
    return name, ""


def registry_records(listed):
    """Records(): (endpoints with labels, the names of the ownership TXT records listed, their values by key)."""
    labels_of, txt_names, stored, endpoints = {}, set(), {}, []
    for ep in listed:
        labels = parse_labels(ep["targets"][0]) if ep["recordType"] == "TXT" and ep.get("targets") else None
        if labels is None:
            endpoints.append(copy.deepcopy(ep))
            continue
        name, rtype = endpoint_of_txt(norm(ep["dnsName"]))
        labels_of[(name, rtype, ep.get("setIdentifier") or "")] = labels
        txt_names.add(norm(ep["dnsName"]))
        stored[key_of(ep)] = ep["targets"][0]
    for ep in endpoints:
        name, rtype, sid = key_of(ep)
        labels = labels_of.get((name, rtype, sid)) or (labels_of.get((name, "", sid)) if rtype != "AAAA" else None)
        ep["labels"] = dict(ep.get("labels") or {}, **(labels or {}))
        if txt_names and ep["labels"].get("owner") == OWNER and txt_name(name, rtype) not in txt_names:
            ep["providerSpecific"] = (ep.get("providerSpecific") or []) + [{"name": FORCE, "value": "true"}]
    return endpoints, stored


def ownership_txt(ep, stored=None):
    """generateTXTRecord: the ownership TXT of an endpoint (the listed value for a removal)."""
    labels = {k: v for k, v in (ep.get("labels") or {}).items() if k != "ownedRecord"}
    txt = {"dnsName": txt_name(norm(ep["dnsName"]), ep["recordType"]), "targets": [serialize(labels)],
           "recordType": "TXT", "labels": {"ownedRecord": norm(ep["dnsName"])}}
    if ep.get("setIdentifier"):
        txt["setIdentifier"] = ep["setIdentifier"]
    if ep.get("providerSpecific"):
        txt["providerSpecific"] = copy.deepcopy(ep["providerSpecific"])
    if stored and key_of(txt) in stored:
        txt["targets"] = [stored[key_of(txt)]]
    return txt


def plan(adjusted, current):
    """plan.Calculate for one owner: (create, updateOld, updateNew, delete)."""
    have = {key_of(ep): ep for ep in current}
    want = {key_of(ep): ep for ep in adjusted}
    create, old, new, delete = [], [], [], []
    for k, ep in want.items():
        cur = have.get(k)
        if cur is None:
            create.append(ep)
        elif (cur.get("labels") or {}).get("owner") == OWNER and differs(ep, cur):
            upd = copy.deepcopy(ep)
            upd["labels"] = dict(upd.get("labels") or {}, owner=OWNER)
            old.append(cur)
            new.append(upd)
    for k, cur in have.items():
        if k not in want and (cur.get("labels") or {}).get("owner") == OWNER:
            delete.append(cur)
    return create, old, new, delete


def apply_changes(create, old, new, delete, stored):
    """The TXT registry's ApplyChanges: the changes with their ownership TXT records."""
    out = {"create": [], "updateOld": [], "updateNew": [], "delete": []}
    for ep in create:
        ep = copy.deepcopy(ep)
        ep["labels"] = dict(ep.get("labels") or {}, owner=OWNER)
        out["create"].append(ep)
        txt = ownership_txt(ep)
        if key_of(txt) not in stored:
            out["create"].append(txt)
    for ep in delete:
        out["delete"] += [ep, ownership_txt(ep, stored)]
    for ep in old:
        out["updateOld"] += [ep, ownership_txt(ep, stored)]
    for ep in new:
        out["updateNew"] += [ep, ownership_txt(ep)]
    return {k: v for k, v in out.items() if v}


def one_loop(base, sources, n, outdir):
    status, adjusted = call(base, "POST", "/adjustendpoints", sources)
    if status != 200:
        sys.exit("loop %d: POST /adjustendpoints: %d" % (n, status))
    status, listed = call(base, "GET", "/records")
    if status != 200:
        sys.exit("loop %d: GET /records: %d" % (n, status))
    current, stored = registry_records(listed)
    create, old, new, delete = plan(adjusted, current)
    changes = apply_changes(create, old, new, delete, stored)
    for suffix, doc in (("adjusted", adjusted), ("records", listed), ("plan", changes)):
        with open(os.path.join(outdir, "loop%d.%s.json" % (n, suffix)), "w") as f:
            json.dump(doc, f, indent=1)
    planned = [" ".join(filter(None, key_of(ep))) for ep in create + new + delete]
    if not changes:
        return "loop %d: 0 writes (0 changes) status -" % n
    status, _ = call(base, "POST", "/records", changes)
    return "loop %d: 1 writes (%d changes) status %d: %s" % (n, len(planned), status, "; ".join(planned))


def main():
    base, sources_path, loops, outdir = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    with open(sources_path) as f:
        sources = json.load(f)
    for n in range(1, loops + 1):
        print(one_loop(base, sources, n, outdir), flush=True)


if __name__ == "__main__":
    main()
