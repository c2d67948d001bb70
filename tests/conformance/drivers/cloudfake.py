#!/usr/bin/env python3
"""cloudfake.py - the conformance drivers' other client of the cloud fakes (google, route53, cloudflare, azure).

Usage: cloudfake.py PROVIDER load ZONEFILE | truth | oob RECORD

Talks to the fake straight (never through dnsbatch), with a credential of its own, over the fake's documented API
(Cloud DNS changes.create, Route53 ChangeResourceRecordSets through boto3, Cloudflare's batch endpoint, Azure's
record-set PUT/DELETE) and reads the truth from the fake's own state dump (/_fake/zone/...):

  load ZONEFILE make the zone example.com. hold exactly the records of ZONEFILE (zone-file syntax, owners relative
                to example.com.), the fake's own SOA and apex NS kept
  truth         print every record the fake holds, "owner. TTL TYPE RDATA" (SOA left out), sorted, RDATA canonical
                as ldns prints it. A record that carries more than RDATA (a Route53 alias or routing policy, a
                Cloudflare proxiable record, an Azure record set dnsbatch cannot represent) is printed
                "owner. TTL TYPE RDATA ;; key=value ..." (judge.py's annotations: a set identifier as set=ID, the
                properties under external-dns's names; a Route53 alias with its target as RDATA and alias=true; an
                Azure alias record set with "<resource>.target-resource.invalid." as RDATA, alias=true and
                azure/target-resource=ID; an Azure record set without records is not printed), its RDATA as the fake
                holds it
  oob RECORD    another client adds RECORD (one zone-file line, owner relative to example.com.) to its RRset

Zone-file text is parsed, and presentation RDATA made canonical, by ldns through `$DNSBATCH records --provider
zonefile` on a zone file written here (the zone-file reader, not the provider under test); a TXT string longer
than 255 octets (Azure holds up to 1,024 in one) is cut into 255-octet character-strings first, as a DNS server
serves it.

Environment: CF_URL (the fake's base URL, https://127.0.0.1:PORT), CF_CA (the test CA), and per provider:
google CF_TOKEN (the fake's --static-token); route53 CF_KEY_ID, CF_SECRET; cloudflare CF_TOKEN (reaches every zone);
azure CF_SECRET (the client secret; tenant-0001, client-0001, sub-0001, rg-dns as in tests/integration/azure_fake.sh).
"""
import json
import os
import shlex
import ssl
import subprocess
import sys
import tempfile
import urllib.error
import urllib.parse
import urllib.request

ZONE = "example.com."
ENV = os.environ


def http(method, path, body=None, headers=None, form=False):
    """One request to the fake; (status, parsed JSON or None)."""
    ctx = ssl.create_default_context(cafile=ENV["CF_CA"])
    data = None
    hdrs = dict(headers or {})
    if body is not None:
        data = urllib.parse.urlencode(body).encode() if form else json.dumps(body).encode()
        hdrs["Content-Type"] = "application/x-www-form-urlencoded" if form else "application/json"
    req = urllib.request.Request(ENV["CF_URL"] + path, data=data, method=method, headers=hdrs)
    try:
        with urllib.request.urlopen(req, context=ctx, timeout=30) as r:
            raw = r.read()
            status = r.status
    except urllib.error.HTTPError as e:
        raw, status = e.read(), e.code
    try:
        doc = json.loads(raw) if raw.strip() else None
    except ValueError:
        doc = None
    return status, doc


def must(what, status, doc, ok=(200, 201, 204)):
    if status not in ok:
        sys.exit("cloudfake: %s: %d %s" % (what, status, json.dumps(doc)[:400]))
    return doc


SOA = "@ 3600 IN SOA ns1.example.com. hostmaster.example.com. 1 7200 3600 1209600 300\n"


def parse_zone(text):
    """Zone-file text (owners relative to example.com. unless absolute) into [(owner, ttl, type, rdata)] through
    ldns (`dnsbatch records --provider zonefile`); None when ldns refuses it."""
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "z")
        with open(path, "w", encoding="utf-8") as f:
            f.write("$ORIGIN example.com.\n$TTL 300\n" + SOA + text + "\n")
        run = subprocess.run([ENV.get("DNSBATCH", "build/dnsbatch"), "records", "--provider", "zonefile",
                              "--zonefile", "example.com=" + path], capture_output=True, text=True)
    if run.returncode != 0:
        return None
    out = []
    for line in run.stdout.splitlines():
        parts = line.split("\t")
        if len(parts) == 5 and not (parts[0].lower() == ZONE and parts[3] == "SOA"):
            out.append((parts[0].lower(), int(parts[1]), parts[3], parts[4]))
    return out


def read_records(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    out = parse_zone(text)
    if out is None:
        sys.exit("cloudfake: %s: not a zone file ldns reads" % path)
    return out


def print_truth(lines):
    """lines: (owner, ttl, type, rdata, extra); plain ones canonicalised through ldns, sorted, printed."""
    plain = [l for l in lines if not l[4]]
    canon = parse_zone("".join("%s %d IN %s %s\n" % l[:4] for l in plain)) if plain else []
    if canon is None:  # a record ldns refuses: every line as the fake holds it
        canon = [l[:4] for l in plain]
    out = ["%s %d %s %s" % c for c in canon]
    out += ["%s %d %s %s ;; %s" % l for l in lines if l[4]]
    for line in sorted(out):
        print(line)


def rrsets_of(records):
    """{(owner, type): (ttl, [rdata...])}; the apex's SOA and NS are the fake's own, left out."""
    sets = {}
    for owner, ttl, rtype, rdata in records:
        if owner == ZONE and rtype in ("SOA", "NS"):
            continue
        sets.setdefault((owner, rtype), (ttl, []))[1].append(rdata)
    return sets


def txt_strings(rdata):
    """A TXT RDATA in presentation form (quoted character-strings) into its strings."""
    return shlex.split(rdata, posix=True) if rdata.startswith('"') else [rdata]


def quoted(strings, size=255):
    """Strings as a TXT RDATA in presentation form, each cut into character-strings of at most 255 octets, as a
    server serves them."""
    out = []
    for s in strings:
        raw = s.encode()
        chunks = [raw[i:i + size] for i in range(0, len(raw), size)] or [b""]
        for c in chunks:
            out.append('"%s"' % c.decode(errors="replace").replace("\\", "\\\\").replace('"', '\\"'))
    return " ".join(out)


# The types each provider holds (its documentation; the fakes refuse the others). A record of another type in a
# scenario's zone (an unknown type, HINFO where the provider has none) cannot be held there: the loader says so on
# stderr and puts in its place, at the same owner, that provider's own kind of record set dnsbatch cannot represent
# (Azure: an alias record set with targetResource; Cloudflare: a PTR, which dnsbatch's cloudflare provider does not
# write), or, where the provider has none (Cloud DNS, Route53), leaves it out. (Cloud DNS documents HINFO, but the
# fake refuses its RDATA: left out here too.)
HOLDS = {
    "google": {"A", "AAAA", "CAA", "CNAME", "DNSKEY", "DS", "HTTPS", "IPSECKEY", "MX", "NAPTR", "NS", "PTR",
               "SPF", "SRV", "SSHFP", "SVCB", "TLSA", "TXT"},
    "route53": {"A", "AAAA", "CAA", "CNAME", "DS", "HTTPS", "MX", "NAPTR", "NS", "PTR", "SPF", "SRV", "SSHFP", "SVCB",
                "TLSA", "TXT"},
    "cloudflare": {"A", "AAAA", "CAA", "CNAME", "MX", "NS", "PTR", "SRV", "TXT"},
    "azure": {"A", "AAAA", "CAA", "CNAME", "MX", "NS", "PTR", "SRV", "TXT"},
}


def holdable(provider, records):
    """(the records the provider holds, the owners of those it cannot hold), the latter noted on stderr."""
    keep, owners = [], []
    for r in records:
        if r[2] in HOLDS[provider]:
            keep.append(r)
            continue
        sys.stderr.write("cloudfake: %s holds no %s record: %s %s left out\n" % (provider, r[2], r[0], r[2]))
        if r[0] not in owners:
            owners.append(r[0])
    return keep, owners


def rel(owner):
    return "@" if owner == ZONE else owner[:-len(ZONE) - 1]


# ---- google (fake_clouddns) -----------------------------------------------------------------------

G_BASE = "/dns/v1/projects/test-project/managedZones/example-com"


def g_auth():
    return {"Authorization": "Bearer " + ENV["CF_TOKEN"]}


def g_held():
    doc = must("google dump", *http("GET", "/_fake/zone/example-com"))
    return doc["rrsets"]


def g_change(additions, deletions):
    if additions or deletions:
        must("google changes.create", *http("POST", G_BASE + "/changes",
                                            {"kind": "dns#change", "additions": additions, "deletions": deletions},
                                            g_auth()))


def g_set(owner, rtype, ttl, rdatas):
    return {"kind": "dns#resourceRecordSet", "name": owner, "type": rtype, "ttl": ttl, "rrdatas": rdatas}


def g_load(records):
    want = rrsets_of(holdable("google", records)[0])
    dels = [s for s in g_held() if not (s["name"] == ZONE and s["type"] in ("SOA", "NS"))]
    g_change([], dels)
    g_change([g_set(o, t, ttl, rd) for (o, t), (ttl, rd) in sorted(want.items())], [])


def g_truth():
    return [(s["name"], s["ttl"], s["type"], rd, "") for s in g_held() if s["type"] != "SOA" for rd in s["rrdatas"]]


def g_oob(owner, ttl, rtype, rdata):
    held = [s for s in g_held() if s["name"] == owner and s["type"] == rtype]
    add = g_set(owner, rtype, ttl, (held[0]["rrdatas"] if held else []) + [rdata])
    if held:
        add["ttl"] = held[0]["ttl"]
    g_change([add], held)


# ---- route53 (fake_route53, through boto3) --------------------------------------------------------

def r_client():
    import boto3
    return boto3.client("route53", endpoint_url=ENV["CF_URL"], region_name="us-east-1", verify=ENV["CF_CA"],
                        aws_access_key_id=ENV["CF_KEY_ID"], aws_secret_access_key=ENV["CF_SECRET"])


def r_held(client):
    sets = []
    for page in client.get_paginator("list_resource_record_sets").paginate(HostedZoneId="ZEXAMPLE"):
        sets += page["ResourceRecordSets"]
    for s in sets:
        s["Name"] = s["Name"].replace("\\052", "*").lower()
    return sets


def r_change(client, changes):
    if changes:
        client.change_resource_record_sets(HostedZoneId="ZEXAMPLE", ChangeBatch={"Changes": changes})


def r_set(owner, rtype, ttl, rdatas):
    return {"Name": owner, "Type": rtype, "TTL": ttl, "ResourceRecords": [{"Value": v} for v in rdatas]}


def r_load(records):
    client = r_client()
    want = rrsets_of(holdable("route53", records)[0])
    dels = [{"Action": "DELETE", "ResourceRecordSet": s} for s in r_held(client)
            if not (s["Name"] == ZONE and s["Type"] in ("SOA", "NS"))]
    # Aliases first out, last in: an alias may target a record of the zone.
    r_change(client, sorted(dels, key=lambda c: "AliasTarget" not in c["ResourceRecordSet"]))
    r_change(client, [{"Action": "CREATE", "ResourceRecordSet": r_set(o, t, ttl, rd)}
                      for (o, t), (ttl, rd) in sorted(want.items())])


# Route53's routing fields under external-dns v0.22's providerSpecific names (provider/aws/aws.go)
ROUTING = (("Weight", "aws/weight"), ("Region", "aws/region"), ("Failover", "aws/failover"),
           ("MultiValueAnswer", "aws/multi-value-answer"), ("HealthCheckId", "aws/health-check-id"))
GEO = (("ContinentCode", "aws/geolocation-continent-code"), ("CountryCode", "aws/geolocation-country-code"),
       ("SubdivisionCode", "aws/geolocation-subdivision-code"))
PROXIMITY = (("AWSRegion", "aws/geoproximity-region"), ("LocalZoneGroup", "aws/geoproximity-local-zone-group"),
             ("Bias", "aws/geoproximity-bias"))


def r_extra(s):
    """The set identifier and properties of a routing or alias record set, as "key=value ..." or ""."""
    props = []
    if "SetIdentifier" in s:
        props.append("set=%s" % s["SetIdentifier"])
    for field, name in ROUTING:
        if field in s:
            v = s[field]
            props.append("%s=%s" % (name, str(v).lower() if isinstance(v, bool) else v))
    for table, got in ((GEO, s.get("GeoLocation") or {}), (PROXIMITY, s.get("GeoProximityLocation") or {})):
        props += ["%s=%s" % (name, got[field]) for field, name in table if field in got]
    where = (s.get("GeoProximityLocation") or {}).get("Coordinates")
    if where:
        props.append("aws/geoproximity-coordinates=%s,%s" % (where["Latitude"], where["Longitude"]))
    t = s.get("AliasTarget")
    if t:
        props += ["alias=true", "aws/evaluate-target-health=%s" % str(t["EvaluateTargetHealth"]).lower()]
    return " ".join(props)


def r_truth():
    out = []
    for s in r_held(r_client()):
        if s["Type"] == "SOA":
            continue
        if "AliasTarget" in s:  # Route53 lists an alias with no TTL: 300 as dnsbatch lists it back
            out.append((s["Name"], 300, s["Type"], s["AliasTarget"]["DNSName"].lower(), r_extra(s)))
            continue
        out += [(s["Name"], s["TTL"], s["Type"], rr["Value"], r_extra(s)) for rr in s["ResourceRecords"]]
    return out


def r_oob(owner, ttl, rtype, rdata):
    client = r_client()
    held = [s for s in r_held(client) if s["Name"] == owner and s["Type"] == rtype and "SetIdentifier" not in s]
    new = r_set(owner, rtype, held[0]["TTL"] if held else ttl,
                [r["Value"] for r in (held[0]["ResourceRecords"] if held else [])] + [rdata])
    r_change(client, [{"Action": "UPSERT", "ResourceRecordSet": new}])


# ---- cloudflare (fake_cloudflare) -----------------------------------------------------------------

CF_ZONE = "0123456789abcdef0123456789abcdef"


def c_auth():
    return {"Authorization": "Bearer " + ENV["CF_TOKEN"]}


def c_held():
    return must("cloudflare dump", *http("GET", "/_fake/zone/" + CF_ZONE))["records"]


def c_post(owner, ttl, rtype, rdata):
    """A record as Cloudflare's API takes it: content (and priority), or data for SRV and CAA."""
    name = owner.rstrip(".")
    f = rdata.split()
    if rtype in ("CNAME", "NS", "PTR"):
        return {"name": name, "type": rtype, "ttl": ttl, "content": rdata.rstrip(".")}
    if rtype == "MX":
        return {"name": name, "type": rtype, "ttl": ttl, "priority": int(f[0]), "content": f[1].rstrip(".")}
    if rtype == "SRV":
        return {"name": name, "type": rtype, "ttl": ttl, "data": {"priority": int(f[0]), "weight": int(f[1]),
                                                                  "port": int(f[2]), "target": f[3].rstrip(".")}}
    if rtype == "CAA":
        return {"name": name, "type": rtype, "ttl": ttl,
                "data": {"flags": int(f[0]), "tag": f[1], "value": shlex.split(rdata)[2]}}
    return {"name": name, "type": rtype, "ttl": ttl, "content": rdata}


def c_batch(body):
    if body.get("deletes") or body.get("posts"):
        must("cloudflare batch", *http("POST", "/client/v4/zones/%s/dns_records/batch" % CF_ZONE, body, c_auth()))


def c_load(records):
    keep, odd = holdable("cloudflare", records)
    dels = [{"id": r["id"]} for r in c_held() if not (r["name"] + "." == ZONE and r["type"] in ("SOA", "NS"))]
    c_batch({"deletes": dels})
    c_batch({"posts": [c_post(o, ttl, t, rd) for (o, t), (ttl, rds) in sorted(rrsets_of(keep).items())
                       for rd in rds] + [c_post(o, 300, "PTR", "unrepresentable.example.net.") for o in odd]})


def c_rdata(r):
    """A record's RDATA in presentation form, from the fields the fake keeps."""
    t, c, d = r["type"], r.get("content", ""), r.get("data") or {}
    if t in ("CNAME", "NS", "PTR"):
        return c + "."
    if t == "MX":
        return "%d %s." % (r.get("priority", 0), c)
    if t == "SRV" and d:
        return "%d %d %d %s." % (d["priority"], d["weight"], d["port"], d["target"])
    if t == "CAA" and d:
        return "%d %s %s" % (d["flags"], d["tag"], quoted([d["value"]]))
    if t == "TXT":
        return quoted(txt_strings(c))
    return c


CF_PROXIED = "external-dns.alpha.kubernetes.io/cloudflare-proxied"
CF_COMMENT = "external-dns.alpha.kubernetes.io/cloudflare-record-comment"


def c_truth():
    """A proxied record's flag and a record's comment (its blanks as %20) under external-dns's names, each only where
    it differs from the default (not proxied, no comment), as dnsbatch lists them back."""
    out = []
    for r in c_held():
        extra = []
        if r.get("proxied"):
            extra.append("%s=true" % CF_PROXIED)
        if r.get("comment"):
            extra.append("%s=%s" % (CF_COMMENT, r["comment"].replace(" ", "%20")))
        out.append((r["name"] + ".", r["ttl"], r["type"], c_rdata(r), " ".join(extra)))
    return out


def c_oob(owner, ttl, rtype, rdata):
    c_batch({"posts": [c_post(owner, ttl, rtype, rdata)]})


# ---- azure (fake_azure) ---------------------------------------------------------------------------

A_BASE = "/subscriptions/sub-0001/resourceGroups/rg-dns/providers/Microsoft.Network/dnsZones/example.com"
A_API = "?api-version=2018-05-01"
A_KEYS = {"A": "ARecords", "AAAA": "AAAARecords", "CNAME": "CNAMERecord", "MX": "MXRecords", "NS": "NSRecords",
          "PTR": "PTRRecords", "SRV": "SRVRecords", "TXT": "TXTRecords", "CAA": "caaRecords", "SOA": "SOARecord"}


def a_auth():
    status, doc = http("POST", "/tenant-0001/oauth2/v2.0/token",
                       {"grant_type": "client_credentials", "client_id": "client-0001",
                        "client_secret": ENV["CF_SECRET"], "scope": "https://management.azure.com/.default"},
                       form=True)
    return {"Authorization": "Bearer " + must("azure token", status, doc)["access_token"]}


def a_txt_value(strings):
    """A TXT record's value list as Azure holds it: a long string cut into 255-octet character-strings (every one
    but the last 255 octets long) is one string of up to 1,024 octets there, as Azure's portal and external-dns's
    azure provider write a DKIM key; other strings as they are."""
    if len(strings) > 1 and all(len(x.encode()) == 255 for x in strings[:-1]):
        joined = "".join(strings)
        if len(joined.encode()) <= 1024:
            return [joined]
    return strings


def a_record(rtype, rdata):
    """One record's Azure fields from presentation RDATA."""
    f = rdata.split()
    host = lambda v: v.rstrip(".")  # noqa: E731
    if rtype == "TXT":
        return {"value": a_txt_value(txt_strings(rdata))}
    if rtype == "CAA":
        return {"flags": int(f[0]), "tag": f[1], "value": shlex.split(rdata)[2]}
    return {"A": lambda: {"ipv4Address": f[0]}, "AAAA": lambda: {"ipv6Address": f[0]},
            "CNAME": lambda: {"cname": host(f[0])}, "NS": lambda: {"nsdname": host(f[0])},
            "PTR": lambda: {"ptrdname": host(f[0])},
            "MX": lambda: {"preference": int(f[0]), "exchange": host(f[1])},
            "SRV": lambda: {"priority": int(f[0]), "weight": int(f[1]), "port": int(f[2]), "target": host(f[3])}
            }[rtype]()


def a_props(rtype, ttl, rdatas):
    recs = [a_record(rtype, rd) for rd in rdatas]
    return {"TTL": ttl, A_KEYS[rtype]: recs[0] if rtype == "CNAME" else recs}


def a_listing(auth):
    sets, path = [], A_BASE + "/recordsets" + A_API
    while path:
        doc = must("azure list", *http("GET", path, headers=auth))
        sets += doc["value"]
        nxt = doc.get("nextLink")
        path = nxt[len(ENV["CF_URL"]):] if nxt else None
    return sets


def a_load(records):
    auth = a_auth()
    for s in a_listing(auth):
        rtype = s["type"].rsplit("/", 1)[1]
        if s["name"] == "@" and rtype in ("SOA", "NS"):
            continue
        must("azure delete", *http("DELETE", "%s/%s/%s%s" % (A_BASE, rtype, s["name"], A_API), headers=auth))
    keep, odd = holdable("azure", records)
    for (owner, rtype), (ttl, rds) in sorted(rrsets_of(keep).items()):
        must("azure put", *http("PUT", "%s/%s/%s%s" % (A_BASE, rtype, rel(owner), A_API),
                                {"properties": a_props(rtype, ttl, rds)}, auth))
    for owner in odd:  # an alias record set: its addresses are a public IP resource's, no records of its own
        ip = "/subscriptions/sub-0001/resourceGroups/rg-dns/providers/Microsoft.Network/publicIPAddresses/ip-" + \
            rel(owner).replace(".", "-").replace("*", "w")
        # through the fake's own writer (POST /_fake/put): its kept specification has no alias record sets
        must("azure alias put", *http("POST", "/_fake/put/example.com/AAAA/" + rel(owner),
                                      {"properties": {"TTL": 300, "targetResource": {"id": ip}}}))


def a_rdata(rtype, rec):
    host = lambda v: v if v.endswith(".") else v + "."  # noqa: E731
    return {"A": lambda: rec.get("ipv4Address"), "AAAA": lambda: rec.get("ipv6Address"),
            "CNAME": lambda: host(rec["cname"]), "NS": lambda: host(rec["nsdname"]),
            "PTR": lambda: host(rec["ptrdname"]), "MX": lambda: "%d %s" % (rec["preference"], host(rec["exchange"])),
            "SRV": lambda: "%d %d %d %s" % (rec["priority"], rec["weight"], rec["port"], host(rec["target"])),
            "TXT": lambda: quoted(rec["value"]),
            "CAA": lambda: "%d %s %s" % (rec["flags"], rec["tag"], quoted([rec["value"]]))}[rtype]()


def a_truth():
    out = []
    for s in a_listing(a_auth()):
        rtype = s["type"].rsplit("/", 1)[1]
        if rtype == "SOA":
            continue
        p = s["properties"]
        owner = p["fqdn"].lower()
        key = A_KEYS.get(rtype)
        recs = p.get(key) if key else None
        recs = [recs] if isinstance(recs, dict) else (recs or [])
        target = (p.get("targetResource") or {}).get("id")
        if target:  # an alias record set: its target resource as an alias's target name, the id as a property
            out.append((owner, p.get("TTL", 0), rtype, "%s.target-resource.invalid." % target.rsplit("/", 1)[1],
                        "alias=true azure/target-resource=%s" % target))
            continue
        out += [(owner, p.get("TTL", 0), rtype, a_rdata(rtype, rec), "") for rec in recs]
    return out


def a_oob(owner, ttl, rtype, rdata):
    auth = a_auth()
    path = "%s/%s/%s%s" % (A_BASE, rtype, rel(owner), A_API)
    status, doc = http("GET", path, headers=auth)
    if status == 200:
        props = doc["properties"]
        key = A_KEYS[rtype]
        if rtype == "CNAME":
            props[key] = a_record(rtype, rdata)
        else:
            props[key] = props.get(key, []) + [a_record(rtype, rdata)]
        props = {k: v for k, v in props.items() if k in ("TTL", key, "metadata")}
        must("azure oob put", *http("PUT", path, {"properties": props}, dict(auth, **{"If-Match": doc["etag"]})))
    else:
        must("azure oob put", *http("PUT", path, {"properties": a_props(rtype, ttl, [rdata])},
                                    dict(auth, **{"If-None-Match": "*"})))


PROVIDERS = {"google": (g_load, g_truth, g_oob), "route53": (r_load, r_truth, r_oob),
             "cloudflare": (c_load, c_truth, c_oob), "azure": (a_load, a_truth, a_oob)}


def main():
    if len(sys.argv) < 3 or sys.argv[1] not in PROVIDERS:
        sys.exit(__doc__.split("\n\n")[1])
    load, truth, oob = PROVIDERS[sys.argv[1]]
    verb = sys.argv[2]
    if verb == "load" and len(sys.argv) == 4:
        load(read_records(sys.argv[3]))
    elif verb == "truth":
        print_truth(truth())
    elif verb == "oob" and len(sys.argv) == 4:
        recs = parse_zone(sys.argv[3])
        if not recs:
            sys.exit("cloudfake: oob %r: not a record ldns reads" % sys.argv[3])
        for owner, ttl, rtype, rdata in recs:
            oob(owner, ttl, rtype, rdata)
    else:
        sys.exit(__doc__.split("\n\n")[1])


if __name__ == "__main__":
    main()
