#!/usr/bin/env python3
"""dofake.py - the digitalocean conformance driver's other client of tests/fakes/fake_digitalocean.py.

Usage: dofake.py load ZONEFILE | truth | oob RECORD   (as cloudfake.py, whose helpers it uses)

Never through dnsbatch. load puts exactly the records of ZONEFILE in example.com through the fake's load hook (as a
panel edit would: DigitalOcean's forms, the SOA and apex NS kept); truth checks the fake refused no request off
DigitalOcean's OpenAPI description and answered none off it, then prints every record the fake holds but the SOA;
oob adds one record as another API client (its own token, CF_TOKEN: its requests spend no budget of dnsbatch's) with
POST /v2/domains/example.com/records, at the TTL the RRset already has, so the record joins it; DigitalOcean's
refusals (a CNAME beside other data, a duplicate) fail the oob as they would fail that client.
Environment: CF_URL, CF_CA, CF_TOKEN, DNSBATCH.

DigitalOcean's forms (fake_digitalocean.py says where each comes from): host names (CNAME, MX, NS and SRV data)
are kept without the trailing dot and the zone's own name as "@", so the truth adds the dot back (the zone for "@");
a CAA issue/issuewild value naming a domain is kept with the trailing dot DigitalOcean requires, printed without it
(the issuer domain it serves, RFC 8659 §4.2); a TXT record's data is one string, served as 255-octet
character-strings, so a TXT of several strings loads joined only when it is such a cut (all but the last 255
octets), and is left out otherwise (said on stderr, as run.sh reads it).
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cloudfake as cf  # noqa: E402  (the shared helpers: zone-file parsing and canonical truth through ldns)

# The types DigitalOcean holds (the Domain Records tag's attribute table, SOA aside)
cf.HOLDS["digitalocean"] = {"A", "AAAA", "CAA", "CNAME", "MX", "NS", "SRV", "TXT"}
ZONE = "example.com"
RECORDS = "/v2/domains/" + ZONE + "/records"
DOMAIN_VALUE = re.compile(r"[A-Za-z0-9.-]*[A-Za-z0-9]")


def auth():
    return {"Authorization": "Bearer " + cf.ENV["CF_TOKEN"]}


def kept_host(name):
    """A host name as DigitalOcean keeps it."""
    name = name.lower()
    if name == ".":
        return "."
    name = name.rstrip(".")
    return "@" if name == ZONE else name


def shown_host(data):
    return ZONE + "." if data == "@" else (data if data == "." else data + ".")


def record(owner, ttl, rtype, rdata):
    """One record in DigitalOcean's form from presentation RDATA, or None when it holds no such record."""
    f = rdata.split()
    rec = {"type": rtype, "name": cf.rel(owner), "ttl": ttl}
    if rtype in ("A", "AAAA"):
        rec["data"] = rdata
    elif rtype in ("CNAME", "NS"):
        rec["data"] = kept_host(f[0])
    elif rtype == "MX":
        rec.update(priority=int(f[0]), data=kept_host(f[1]))
    elif rtype == "SRV":
        rec.update(priority=int(f[0]), weight=int(f[1]), port=int(f[2]), data=kept_host(f[3]))
    elif rtype == "CAA":
        value = cf.txt_strings(rdata.split(None, 2)[2])[0]
        if f[1] in ("issue", "issuewild") and DOMAIN_VALUE.fullmatch(value):
            value += "."
        rec.update(flags=int(f[0]), tag=f[1], data=value)
    elif rtype == "TXT":
        strings = cf.txt_strings(rdata)
        if len(strings) > 1 and not all(len(s.encode()) == 255 for s in strings[:-1]):
            return None
        rec["data"] = "".join(strings)
    return rec


def rdata(r):
    """A record's presentation RDATA from the fields the fake keeps."""
    t, d = r["type"], r["data"]
    if t in ("CNAME", "NS"):
        return shown_host(d)
    if t == "MX":
        return "%d %s" % (r["priority"], shown_host(d))
    if t == "SRV":
        return "%d %d %d %s" % (r["priority"], r["weight"] or 0, r["port"], shown_host(d))
    if t == "CAA":
        value = d[:-1] if r["tag"] in ("issue", "issuewild") and d.endswith(".") else d
        return "%d %s %s" % (r["flags"], r["tag"], cf.quoted([value]))
    if t == "TXT":
        return cf.quoted([d])
    return d


def d_load(records):
    keep, _ = cf.holdable("digitalocean", records)
    out = []
    for (owner, rtype), (ttl, rds) in sorted(cf.rrsets_of(keep).items()):
        for rd in rds:
            rec = record(owner, ttl, rtype, rd)
            if rec is None:
                sys.stderr.write("dofake: a TXT of several strings DigitalOcean cannot hold: %s %s left out\n"
                                 % (owner, rtype))
                break
            out.append(rec)
    cf.must("digitalocean load", *cf.http("POST", "/_fake/load/" + ZONE, {"records": out}))


def d_truth():
    """The records, after the fake's own check: a request or reply off DigitalOcean's OpenAPI description fails the
    truth (and so the scenario)."""
    st = cf.must("digitalocean stats", *cf.http("GET", "/_fake/stats"))
    if st["bad_schema"] or st["bad_response"]:
        sys.exit("dofake: the fake found requests or replies off DigitalOcean's description (requests %d, replies "
                 "%d): %s" % (st["bad_schema"], st["bad_response"], "; ".join(st["problems"])[:600]))
    doc = cf.must("digitalocean dump", *cf.http("GET", "/_fake/zone/" + ZONE))
    return [(ZONE + "." if r["name"] == "@" else "%s.%s." % (r["name"], ZONE), r["ttl"], r["type"], rdata(r), "")
            for r in doc["domain_records"] if r["type"] != "SOA"]


def d_oob(owner, ttl, rtype, rdata_):
    fqdn = owner.rstrip(".")
    status, doc = cf.http("GET", "%s?name=%s&type=%s&per_page=200" % (RECORDS, fqdn, rtype), headers=auth())
    held = cf.must("digitalocean oob read", status, doc)["domain_records"]
    rec = record(owner, held[0]["ttl"] if held else ttl, rtype, rdata_)
    if rec is None:
        sys.exit("dofake: oob %s %s: a TXT DigitalOcean cannot hold" % (owner, rtype))
    if rtype in ("CNAME", "NS", "MX", "SRV"):  # a request names a host absolute (DigitalOcean's 422 otherwise)
        rec["data"] = shown_host(rec["data"])
    cf.must("digitalocean oob create", *cf.http("POST", RECORDS, rec, auth()), ok=(201,))


cf.PROVIDERS["digitalocean"] = (d_load, d_truth, d_oob)

if __name__ == "__main__":
    sys.argv.insert(1, "digitalocean")
    cf.main()
