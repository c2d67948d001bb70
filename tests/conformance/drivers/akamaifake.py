#!/usr/bin/env python3
"""akamaifake.py - the akamai conformance driver's other client of tests/fakes/fake_akamai.py.

Usage: akamaifake.py load ZONEFILE | truth | oob RECORD   (as cloudfake.py, whose helpers it uses)

Talks to the fake's own hooks, never through dnsbatch: load puts exactly the record sets of ZONEFILE in
example.com (the apex SOA and NS kept; a new zone version, as another client's submit makes), truth prints every
record the fake holds but the SOA, oob adds one record to its record set as another client's submit would (the
zone's version moves: a change list created before is stale). Environment: CF_URL, CF_CA, DNSBATCH.
"""
import os
import sys
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cloudfake as cf  # noqa: E402  (the shared helpers: zone-file parsing and canonical truth through ldns)

# The types Edge DNS holds (techdocs.akamai.com/edge-dns "Supported record types", those dnsbatch writes); a
# record of another type in a scenario's zone is left out, said on stderr.
cf.HOLDS["akamai"] = {"A", "AAAA", "CAA", "CNAME", "HINFO", "HTTPS", "MX", "NAPTR", "NS", "PTR", "SPF", "SRV",
                      "SSHFP", "SVCB", "TLSA", "TXT"}
ZONE = "example.com"


def k_load(records):
    keep, _ = cf.holdable("akamai", records)
    sets = [{"name": owner.rstrip("."), "type": t, "ttl": ttl, "rdata": rds}
            for (owner, t), (ttl, rds) in sorted(cf.rrsets_of(keep).items())]
    cf.must("akamai load", *cf.http("POST", "/_fake/load/" + ZONE, {"recordsets": sets}))


def k_truth():
    """The records, after the fake's own check: a request or reply off Akamai's OpenAPI document, or a signature
    refused, fails the truth (and so the scenario)."""
    st = cf.must("akamai stats", *cf.http("GET", "/_fake/stats"))
    if st["bad_schema"] or st["bad_response"] or st["auth_refused"]:
        sys.exit("akamaifake: the fake refused requests (schema %d, replies %d, signatures %d): %s" % (
            st["bad_schema"], st["bad_response"], st["auth_refused"], "; ".join(st["problems"])[:600]))
    doc = cf.must("akamai dump", *cf.http("GET", "/_fake/zone/" + urllib.parse.quote(ZONE)))
    return [(s["name"] + ".", s["ttl"], s["type"], rd, "") for s in doc["recordsets"] if s["type"] != "SOA"
            for rd in s["rdata"]]


def k_oob(owner, ttl, rtype, rdata):
    cf.must("akamai oob", *cf.http("POST", "/_fake/oob/" + ZONE,
                                   {"name": owner.rstrip("."), "type": rtype, "ttl": ttl, "rdata": rdata}))


cf.PROVIDERS["akamai"] = (k_load, k_truth, k_oob)

if __name__ == "__main__":
    sys.argv.insert(1, "akamai")
    cf.main()
