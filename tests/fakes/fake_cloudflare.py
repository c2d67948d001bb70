#!/usr/bin/env python3
"""fake_cloudflare.py - a Cloudflare API v4 (DNS records) server over HTTPS for the cloudflare provider's tests.

Every request body is checked against Cloudflare's published OpenAPI schema
(tests/fakes/cloudflare-schema.json, extracted from cloudflare/api-schemas:
its header names the commit) with python3-jsonschema, and a member the
schema does not declare for that record type (or a read-only one: id,
created_on, ...) is refused too: a wrong type or an unknown field is
answered 400 and counted ("bad_schema"), so the test fails.

Serves, for credentials given on the command line (an API token reaching
some zones, or a global key with its email reaching all; others 403 code
10000 "Authentication error"; a zone outside a token's 403 code 9109):
GET /zones (paginated), GET /zones/ID, GET /zones/ID/dns_records (name and
type filters, paginated with result_info), and POST
/zones/ID/dns_records/batch: deletes, then patches, puts and posts, in one
transaction; the first failing operation refuses the whole batch with
Cloudflare's reply shape ({"success": false, "errors": [{"code",
"message", "source": {"pointer"}}]}, each error checked against the
schema's dns-records_response-info) and the codes Cloudflare answers for
single records: 81044 no such record id, 81058 an identical record exists,
81053 a CNAME where an A/AAAA/CNAME is, 81054 any other record where a
CNAME is, or a CNAME where any other record is (Cloudflare holds no CNAME
beside other data, RFC 1034 §3.6.2, the apex included: it flattens a CNAME
there), 9005 A content not IPv4, 1004 DNS Validation Error. The error names
its operation in one of the documented forms (--error-names): "pointer"
(default) its source.pointer "/posts/2"; "message" the message
("posts[2]: An identical record already exists."); "id" a delete's record
id in the message (a post's by its pointer). SRV and CAA records are
written and listed with their "data" object (content is read-only for
them, as the schema says); the listing gives content too. A per-token rate
limit (--rate N per --rate-window seconds, a sliding window) answers 429
code 971 with Retry-After; Ratelimit ("default";r=LEFT;t=SECONDS until one
frees) and Ratelimit-Policy ("default";q=N;w=WINDOW) on every reply.
Scripted faults on the batch endpoint, one per batch in order (--fault
KIND[*N]): 429 (Retry-After: --fault-retry-after seconds, default 1), 500
(before commit), 502after (commit, then 502), race (before the batch runs,
another client creates the record of --race "NAME TYPE CONTENT"), racedel
(before the batch runs, another client deletes the records of --race).
Unauthenticated test hooks: GET /_fake/stats, GET /_fake/zone/ID.
"""
import argparse
import ipaddress
import json
import os
import secrets
import sys
import threading
import time
import urllib.parse

import fakehttp

import jsonschema

HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "cloudflare-schema.json")) as f:
    SCHEMA = json.load(f)
SCHEMAS = SCHEMA["components"]["schemas"]
LOCK = threading.Lock()


def server_assigned():
    """The members only Cloudflare writes: readOnly ones, and the id it gives a new record."""
    names = {"id"}
    for s in SCHEMAS.values():
        for k, v in s.get("properties", {}).items():
            if v.get("readOnly"):
                names.add(k)
    return names


def request_view(schema, assigned):
    """OpenAPI's request semantics: a required member the server assigns is required in responses only.
    (In the 2024 schema one dns-records_dns-record serves a create's request and its response.)"""
    if isinstance(schema, dict):
        out = {k: request_view(v, assigned) for k, v in schema.items()}
        if isinstance(out.get("required"), list):
            out["required"] = [r for r in out["required"] if r not in assigned]
        return out
    if isinstance(schema, list):
        return [request_view(v, assigned) for v in schema]
    return schema


SCHEMA = request_view(SCHEMA, server_assigned())
SCHEMAS = SCHEMA["components"]["schemas"]


# ---- the schema check ---------------------------------------------------------------------------

VALIDATORS = {}


def validator(name):
    """A validator of a component schema that resolves its $refs, made once (they are slow to make)."""
    if name not in VALIDATORS:
        VALIDATORS[name] = jsonschema.Draft4Validator(dict(SCHEMAS[name], components=SCHEMA["components"]))
    return VALIDATORS[name]


def declared(record_schema):
    """Members a record type declares (its allOf parts, $refs followed), read-only ones apart."""
    out, readonly = set(), set()
    parts = [record_schema]
    while parts:
        s = parts.pop()
        if "$ref" in s:
            parts.append(SCHEMAS[s["$ref"].split("/")[-1]])
            continue
        parts += s.get("allOf", [])
        for k, v in s.get("properties", {}).items():
            (readonly if v.get("readOnly") else out).add(k)
    return out, readonly


def check_post(post, path):
    """dns-records_dns-record is a oneOf of one schema per type, each fixing its type: a post is valid
    under it exactly when it is valid under its own type's schema (and the object-level rest)."""
    if not isinstance(post, dict):
        return ["%s: not an object" % path]
    kind = SCHEMAS.get("dns-records_%sRecord" % post.get("type"))
    if kind is None:
        return ["%s: no record schema for type %r" % (path, post.get("type"))]
    problems = ["%s: %s" % (path, e.message) for e in validator("dns-records_%sRecord" % post["type"]).iter_errors(post)]
    ok, readonly = declared(kind)
    # The object-level rest requires content, which SRV's and CAA's own schemas declare read-only: OpenAPI
    # holds a read-only required member to responses only.
    outer = {k: v for k, v in SCHEMAS["dns-records_dns-record"].items() if k != "oneOf"}
    outer["required"] = [r for r in outer.get("required", []) if r not in readonly]
    problems += ["%s: %s" % (path, e.message) for e in jsonschema.Draft4Validator(outer).iter_errors(post)]
    for k in post:
        if k in readonly or k not in ok:
            problems.append("%s: member %r is not in Cloudflare's %s schema" % (path, k, post.get("type")))
    return problems


def check_batch(body):
    """The problems of a batch body, [] when it is Cloudflare's."""
    envelope = {k: v for k, v in body.items() if k != "posts"}  # the posts one by one below
    problems = ["batch: %s" % e.message for e in validator("dns-records_dns-request-batch-object").iter_errors(envelope)]
    if not isinstance(body.get("posts", []), list):
        problems.append("batch: posts is not an array")
    if problems:
        return problems
    problems = ["batch: member %r is not in the schema" % k for k in body
                if k not in SCHEMAS["dns-records_dns-request-batch-object"]["properties"]]
    for i, d in enumerate(body.get("deletes", [])):
        problems += ["deletes[%d]: member %r is not in the schema" % (i, k) for k in d if k != "id"]
    for i, p in enumerate(body.get("posts", [])):
        problems += check_post(p, "posts[%d]" % i)
    if body.get("patches") or body.get("puts"):
        problems.append("batch: patches and puts are not used by dnsbatch (the fake does not model them)")
    return problems


# ---- state ----------------------------------------------------------------------------------------

class State:
    def __init__(self, args):
        self.args = args
        self.zones = {}        # id -> {"name": "example.com", "records": {rid: record}}
        self.tokens = {}       # token -> set of zone ids, or None for all
        self.keys = {}         # (key, email) -> None (all zones)
        self.faults = []
        self.hits = {}         # credential -> [times]
        self.stats = {"requests": 0, "reads": 0, "batches": 0, "batches_refused": 0, "bad_schema": 0,
                      "rate_limited": 0, "auth_refused": 0, "operations": 0, "connections": 0}
        self.problems = []


def new_id():
    return secrets.token_hex(16)


def seed(st, path):
    with open(path) as f:
        for line in f:
            parts = line.split()
            if not parts or parts[0].startswith("#"):
                continue
            zid, name, ttl, rtype, content = parts[:5]
            rec = {"id": new_id(), "name": name.rstrip(".").lower(), "type": rtype, "content": content,
                   "ttl": int(ttl), "proxied": False}
            if len(parts) > 5:
                rec["priority"] = int(parts[5])
            st.zones[zid]["records"][rec["id"]] = rec


def cf_error(code, message, pointer=None):
    error = {"code": code, "message": message}
    if pointer:
        error["source"] = {"pointer": pointer}
    # The fake's own answers are checked against the schema too: a wrong one fails the test that meets it.
    jsonschema.Draft4Validator(SCHEMAS["dns-records_response-info"]).validate(error)
    return {"success": False, "errors": [error], "messages": [], "result": None}


def batch_error(code, message, kind, index, record_id, form):
    """A refused batch's reply, the failing operation (kind "posts"/"deletes", index) named in the given form."""
    if form == "message":
        return cf_error(code, "%s[%d]: %s" % (kind, index, message))
    if form == "id" and record_id:
        return cf_error(code, "Record %s: %s" % (record_id, message))
    return cf_error(code, message, "/%s/%d" % (kind, index))


def data_content(rtype, data):
    """(content, priority) Cloudflare lists for an SRV or CAA record written with data."""
    if rtype == "SRV":
        return "%d %d %s" % (data["weight"], data["port"], data["target"]), data["priority"]
    value = data["value"].replace("\\", "\\\\").replace('"', '\\"')
    return '%d %s "%s"' % (data["flags"], data["tag"], value), None


def valid_content(rec):
    """None, or (code, message) as Cloudflare refuses the record's content."""
    t, c = rec["type"], rec.get("content", "")
    try:
        if t == "A":
            ipaddress.IPv4Address(c)
        elif t == "AAAA":
            ipaddress.IPv6Address(c)
    except ValueError:
        return (9005, "Content for A record must be a valid IPv4 address.") if t == "A" else \
            (1004, "DNS Validation Error")
    if t in ("CNAME", "NS", "MX", "PTR") and (not c or " " in c):
        return 1004, "DNS Validation Error"
    d = rec.get("data") or {}
    if t == "SRV" and not (all(isinstance(d.get(k), (int, float)) for k in ("priority", "weight", "port")) and
                           d.get("target")):
        return 1004, "DNS Validation Error"
    if t == "CAA" and not (isinstance(d.get("flags"), (int, float)) and d.get("tag") and isinstance(d.get("value"), str)):
        return 1004, "DNS Validation Error"
    return None


def post_conflict(records, rec):
    """None, or (code, message) when the zone refuses to hold rec beside its records."""
    same = [r for r in records.values() if r["name"] == rec["name"]]
    for r in same:
        if r["type"] == rec["type"] and r["content"] == rec["content"] and r.get("priority") == rec.get("priority"):
            return 81058, "An identical record already exists."
    if rec["type"] == "CNAME" and any(r["type"] in ("A", "AAAA", "CNAME") for r in same):
        return 81053, "An A, AAAA, or CNAME record with that host already exists."
    if rec["type"] == "CNAME" and same:
        return 81054, "A CNAME record cannot exist on the same name as any other record type."
    if rec["type"] != "CNAME" and any(r["type"] == "CNAME" for r in same):
        return 81054, "A CNAME record with that host already exists."
    return None


def run_batch(zone, body):
    """Apply a batch to a copy: (records, None, result) on success, (None, (code, message, kind, index, record id),
    None) on the first error."""
    records = {k: dict(v) for k, v in zone["records"].items()}
    result = {"deletes": [], "posts": []}
    for i, d in enumerate(body.get("deletes", [])):
        if d["id"] not in records:
            return None, (81044, "Record does not exist.", "deletes", i, d["id"]), None
        result["deletes"].append(records.pop(d["id"]))
    for i, p in enumerate(body.get("posts", [])):
        rec = {"id": new_id(), "name": p["name"].rstrip(".").lower(), "type": p["type"], "content": p.get("content"),
               "ttl": p.get("ttl", 1), "proxied": p.get("proxied", False)}
        for k in ("priority", "comment", "data"):
            if k in p:
                rec[k] = p[k]
        bad = valid_content(rec)
        if not bad and "data" in rec:
            rec["content"], prio = data_content(rec["type"], rec["data"])
            if prio is not None:
                rec["priority"] = prio
        bad = bad or post_conflict(records, rec)
        if bad:
            return None, (bad[0], bad[1], "posts", i, None), None
        records[rec["id"]] = rec
        result["posts"].append(rec)
    return records, None, result


# ---- the server -----------------------------------------------------------------------------------

class Handler(fakehttp.Handler):
    server_version = "fake_cloudflare"
    methods = ("GET", "POST")
    state = None

    def setup(self):
        super().setup()
        with LOCK:
            self.state.stats["connections"] += 1

    def reply(self, status, doc, extra=None):
        a = self.state.args
        # Cloudflare's form (developers.cloudflare.com/fundamentals/api/reference/limits, "Rate limiting
        # headers"): Ratelimit "name";r=REMAINING;t=SECONDS-TO-RESET, Ratelimit-Policy "name";q=QUOTA;w=WINDOW.
        heads, left = [], self.remaining()
        if left is not None:
            heads.append(("Ratelimit", '"default";r=%d;t=%d' % left))
        heads.append(("Ratelimit-Policy", '"default";q=%d;w=%d' % (a.rate, a.rate_window)))
        self.send_json(status, doc, heads + list((extra or {}).items()))

    def credential(self):
        """(name, zones or None for all), or None when the request carries no valid credential."""
        st = self.state
        auth = self.headers.get("Authorization", "")
        if auth.startswith("Bearer "):
            tok = auth[7:]
            return (tok, st.tokens[tok]) if tok in st.tokens else None
        key, email = self.headers.get("X-Auth-Key"), self.headers.get("X-Auth-Email")
        if key and (key, email) in st.keys:
            return key, None
        return None

    def remaining(self):
        """(requests left, seconds until one frees) of this request's credential, or None (none known)."""
        st, cred = self.state, getattr(self, "cred_name", None)
        if cred is None:
            return None
        now = time.monotonic()
        hits = [t for t in st.hits.get(cred, []) if t > now - st.args.rate_window]
        reset = hits[0] + st.args.rate_window - now if hits else st.args.rate_window
        return max(0, st.args.rate - len(hits)), max(1, int(reset + 0.999))

    def rate_limited(self, cred):
        """Seconds to wait when cred is over its budget, else None (the request is counted)."""
        st, now = self.state, time.monotonic()
        hits = [t for t in st.hits.get(cred, []) if t > now - st.args.rate_window]
        if len(hits) >= st.args.rate:
            st.stats["rate_limited"] += 1
            return max(1, int(hits[0] + st.args.rate_window - now + 1))
        hits.append(now)
        st.hits[cred] = hits
        return None

    def dispatch(self, method):
        st = self.state
        self.cred_name = None  # the handler serves several requests of one connection
        url = urllib.parse.urlsplit(self.path)
        parts = [p for p in url.path.split("/") if p]
        query = dict(urllib.parse.parse_qsl(url.query))
        raw = self.body() if method == "POST" else b""
        if parts[:1] == ["_fake"]:
            return self.hook(parts)
        with LOCK:
            st.stats["requests"] += 1
            cred = self.credential()
            if cred is None:
                st.stats["auth_refused"] += 1
                return self.reply(403, cf_error(10000, "Authentication error"))
            self.cred_name = cred[0]
            wait = self.rate_limited(cred[0])
            if wait:
                return self.reply(429, cf_error(971, "Please wait and consider throttling your request speed"),
                                  {"Retry-After": str(wait)})
            if parts[:1] != ["client"] or parts[1:2] != ["v4"]:
                return self.reply(404, cf_error(7003, "Could not route to %s" % url.path))
            return self.route(method, parts[2:], query, raw, cred[1])

    def route(self, method, parts, query, raw, reach):
        st = self.state
        if parts == ["zones"] and method == "GET":
            zones = [{"id": z, "name": v["name"]} for z, v in sorted(st.zones.items()) if reach is None or z in reach]
            return self.page(zones, query, 2)
        if len(parts) < 2 or parts[0] != "zones" or parts[1] not in st.zones:
            return self.reply(404, cf_error(7003, "Could not route to /%s" % "/".join(parts)))
        zid, zone = parts[1], st.zones[parts[1]]
        if reach is not None and zid not in reach:
            st.stats["auth_refused"] += 1
            return self.reply(403, cf_error(9109, "Unauthorized to access requested resource"))
        if parts[2:] == [] and method == "GET":
            return self.reply(200, {"success": True, "errors": [], "messages": [],
                                    "result": {"id": zid, "name": zone["name"], "status": "active"}})
        if parts[2:] == ["dns_records"] and method == "GET":
            st.stats["reads"] += 1
            recs = sorted(zone["records"].values(), key=lambda r: (r["name"], r["type"], r["content"]))
            recs = [r for r in recs if ("name" not in query or r["name"] == query["name"].lower())
                    and ("type" not in query or r["type"] == query["type"])]
            return self.page(recs, query, st.args.page_size)
        if parts[2:] == ["dns_records", "batch"] and method == "POST":
            return self.batch(zone, raw)
        return self.reply(404, cf_error(7003, "Could not route to /%s" % "/".join(parts)))

    def page(self, items, query, size):
        size = min(size, int(query.get("per_page", 100)))
        page = int(query.get("page", 1))
        total = max(1, (len(items) + size - 1) // size)
        chunk = items[(page - 1) * size:page * size]
        return self.reply(200, {"success": True, "errors": [], "messages": [], "result": chunk,
                                "result_info": {"page": page, "per_page": size, "count": len(chunk),
                                                "total_count": len(items), "total_pages": total}})

    def batch(self, zone, raw):
        st = self.state
        st.stats["batches"] += 1
        try:
            body = json.loads(raw)
        except ValueError:
            body = None
        problems = check_batch(body) if isinstance(body, dict) else ["batch: the body is not a JSON object"]
        if problems:
            st.stats["bad_schema"] += 1
            st.problems += problems
            return self.reply(400, cf_error(1004, "DNS Validation Error: " + "; ".join(problems)))
        fault = st.faults.pop(0) if st.faults else None
        if fault == "429":
            return self.reply(429, cf_error(971, "Please wait and consider throttling your request speed"),
                              {"Retry-After": str(st.args.fault_retry_after)})
        if fault == "500":
            return self.reply(500, cf_error(10001, "Internal error"))
        if fault == "race":
            name, rtype, content = st.args.race.split()
            rec = {"id": new_id(), "name": name.rstrip(".").lower(), "type": rtype, "content": content, "ttl": 300,
                   "proxied": False}
            zone["records"][rec["id"]] = rec
        if fault == "racedel":
            name, rtype, content = st.args.race.split()
            zone["records"] = {k: r for k, r in zone["records"].items()
                               if (r["name"], r["type"], r["content"]) != (name.rstrip(".").lower(), rtype, content)}
        records, error, result = run_batch(zone, body)
        if error:
            st.stats["batches_refused"] += 1
            return self.reply(400, batch_error(*error, st.args.error_names))
        zone["records"] = records
        st.stats["operations"] += len(body.get("deletes", [])) + len(body.get("posts", []))
        if fault == "502after":
            return self.reply(502, cf_error(10002, "Bad gateway"))
        return self.reply(200, {"success": True, "errors": [], "messages": [], "result": result})

    def hook(self, parts):
        st = self.state
        with LOCK:
            if parts[1:] == ["stats"]:
                return self.reply(200, dict(st.stats, problems=st.problems))
            if len(parts) == 3 and parts[1] == "zone" and parts[2] in st.zones:
                return self.reply(200, {"records": sorted(st.zones[parts[2]]["records"].values(),
                                                          key=lambda r: (r["name"], r["type"], r["content"]))})
        return self.reply(404, cf_error(7003, "no such hook"))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    fakehttp.add_server_args(ap)
    ap.add_argument("--zone", action="append", default=[], help="ID=NAME")
    ap.add_argument("--token", action="append", default=[], help="TOKEN=ZONEID,ZONEID or TOKEN=* (every zone)")
    ap.add_argument("--api-key", action="append", default=[], help="KEY:EMAIL of a global key (every zone)")
    ap.add_argument("--seed", help='file of "ZONEID NAME TTL TYPE CONTENT [PRIORITY]" lines')
    ap.add_argument("--fault", action="append", default=[], help="KIND or KIND*N, in order")
    ap.add_argument("--fault-retry-after", type=int, default=1, help="seconds: the Retry-After of a 429 fault")
    ap.add_argument("--race", default="", help='"NAME TYPE CONTENT": the record another client creates')
    ap.add_argument("--error-names", choices=("pointer", "message", "id"), default="pointer",
                    help="how a refused batch's error names its operation")
    ap.add_argument("--page-size", type=int, default=3)
    ap.add_argument("--rate", type=int, default=1200, help="requests per window per credential")
    ap.add_argument("--rate-window", type=int, default=300, help="seconds")
    args = ap.parse_args()

    st = State(args)
    for z in args.zone:
        zid, name = z.split("=", 1)
        st.zones[zid] = {"name": name.rstrip(".").lower(), "records": {}}
    for t in args.token:
        tok, zones = t.split("=", 1)
        st.tokens[tok] = None if zones == "*" else set(zones.split(","))
    for k in args.api_key:
        key, email = k.split(":", 1)
        st.keys[(key, email)] = None
    return fakehttp.start(Handler, st, args, seed)


if __name__ == "__main__":
    sys.exit(main())
