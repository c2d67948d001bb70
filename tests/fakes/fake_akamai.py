#!/usr/bin/env python3
"""fake_akamai.py - an Akamai Edge DNS API (config-dns v2) server over HTTPS for the akamai provider's tests.

Every request is checked against Akamai's published OpenAPI document (tests/fakes/akamai-config-dns-v2.json: the
paths served here, copied unchanged from akamai/akamai-apis apis/config-dns/v2/openapi.json, commit named in its
"x-dnsbatch-source"): the operation must exist, its required query parameters be given, no undeclared parameter
sent, each parameter of its declared type or enum, and a body match the operation's requestBody schema
(python3-jsonschema). A request that does not is answered 400 and counted ("bad_schema"), so the test fails. Every
JSON reply of 2xx is checked against the operation's response schema too ("bad_response").

Every request's EdgeGrid signature (EG1-HMAC-SHA256) is recomputed by Akamai's own Node library (npm
akamai-edgegrid, through akamai_edgegrid_check.js) when --edgegrid-node is given, and compared; a wrong signature,
an unknown client token, a nonce used twice or a timestamp more than 30 s off is answered 401 (problem details).

Serves, per API client (its client token): GET /zones (contractIds, paginated), GET /zones/Z/recordsets (page,
pageSize, sortBy, types, search: a name or RDATA containing it), the change lists of that client, one per zone
(POST /changelists?zone=, 409 when one exists; GET /changelists; DELETE /changelists/Z; POST
.../recordsets/add-change: ADD refused 409 when the record set exists in the list, EDIT and DELETE when it does
not; RDATA refused 400 with errors[] naming the field when the type's syntax is broken; POST .../submit: 409
"stale" when the zone's version moved since the list was created, else every change applied at once and the list
removed). Errors are RFC 7807 problem details (application/problem+json). A rate limit per client (--rate N per
--rate-window s) answers 429 with X-RateLimit-Limit, X-RateLimit-Remaining and X-RateLimit-Next (ISO 8601).

Scripted faults on submit, one per submit in order (--fault KIND[*N]): 429 (X-RateLimit-Next --fault-retry-after
seconds ahead), 500 (nothing applied), 502after (applied, then 502), drop (applied, then the connection closed
without a reply: a lost reply), race (another client's write to --race "NAME TYPE RDATA" lands first: the list is
stale), auth (401). --refuse NAME: an ADD or EDIT at NAME is refused 400, its errors[] naming it (a record Edge
DNS will not hold, which the client cannot foresee).

Unauthenticated test hooks: GET /_fake/stats; GET /_fake/zone/Z; POST /_fake/load/Z {"recordsets": [...]} (the
zone holds exactly these, its apex SOA and NS kept); POST /_fake/oob/Z {name, type, ttl, rdata} (another client adds
a record: the zone's version moves); POST /_fake/leftover/Z?client=TOKEN {name, type, ttl, rdata} (a change list
left by a crash, holding one ADD).
"""
import argparse
import datetime
import ipaddress
import json
import os
import re
import subprocess
import ssl
import sys
import threading
import time
import urllib.parse
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import jsonschema

HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "akamai-config-dns-v2.json")) as f:
    SPEC = json.load(f)
BASE = "/config-dns/v2"
LOCK = threading.Lock()
TYPES = {"A", "AAAA", "CAA", "CNAME", "DS", "HINFO", "HTTPS", "LOC", "MX", "NAPTR", "NS", "PTR", "RP", "SOA", "SPF",
         "SRV", "SSHFP", "SVCB", "TLSA", "TXT"}
PROBLEM = "https://problems.luna.akamaiapis.net/authoritative-dns/"
REFUSE = set()  # --refuse: names whose ADD or EDIT is refused 400 (a record Edge DNS will not hold)


# ---- the OpenAPI document ------------------------------------------------------------------------

def find_operation(method, path):
    """(operation, path template, path parameters) of the spec for a request, or None."""
    for tmpl, item in SPEC["paths"].items():
        rx = "^" + re.sub(r"\\{(\w+)\\}", r"(?P<\1>[^/]+)", re.escape(tmpl)) + "$"
        m = re.match(rx, path)
        if m and method.lower() in item:
            return item[method.lower()], tmpl, {k: urllib.parse.unquote(v) for k, v in m.groupdict().items()}
    return None


def check_param(p, value):
    s = p.get("schema", {})
    if s.get("type") == "integer" and not re.fullmatch(r"-?\d+", value):
        return "%s=%r is not an integer" % (p["name"], value)
    if s.get("type") == "boolean" and value not in ("true", "false"):
        return "%s=%r is not a boolean" % (p["name"], value)
    if "enum" in s and value not in s["enum"]:
        return "%s=%r is not one of %s" % (p["name"], value, s["enum"])
    return None


def check_request(method, path, query, raw):
    """Problems of a request against the spec (a list, empty when it conforms), and the operation."""
    found = find_operation(method, path)
    if found is None:
        return ["%s %s: no such operation in the OpenAPI document" % (method, path)], None
    op, tmpl, _ = found
    params = SPEC["paths"][tmpl].get("parameters", []) + op.get("parameters", [])
    declared = {p["name"]: p for p in params if p["in"] == "query"}
    problems = ["%s %s: query parameter %r is not declared" % (method, tmpl, k) for k in query if k not in declared]
    for name, p in declared.items():
        if p.get("required") and name not in query:
            problems.append("%s %s: required query parameter %r missing" % (method, tmpl, name))
        elif name in query and check_param(p, query[name]):
            problems.append("%s %s: %s" % (method, tmpl, check_param(p, query[name])))
    rb = op.get("requestBody")
    if rb and rb.get("required") and not raw:
        problems.append("%s %s: the body is required" % (method, tmpl))
    if raw:
        schema = (rb or {}).get("content", {}).get("application/json", {}).get("schema")
        try:
            body = json.loads(raw)
        except ValueError:
            body = None
        if schema is None:
            problems.append("%s %s: a body where the operation takes none" % (method, tmpl))
        elif body is None:
            problems.append("%s %s: the body is not JSON" % (method, tmpl))
        else:
            problems += ["%s %s: body: %s" % (method, tmpl, e.message)
                         for e in jsonschema.Draft4Validator(schema).iter_errors(body)]
    return problems, op


def check_response(op, status, doc):
    schema = op["responses"].get(str(status), {}).get("content", {}).get("application/json", {}).get("schema")
    if schema is None:
        return []
    return [e.message for e in jsonschema.Draft4Validator(schema).iter_errors(doc)]


# ---- EdgeGrid --------------------------------------------------------------------------------------

class NodeSigner:
    """akamai-edgegrid's generateAuth through akamai_edgegrid_check.js, one process kept for the fake's life."""

    def __init__(self, node):
        self.proc = subprocess.Popen([node, os.path.join(HERE, "akamai_edgegrid_check.js")], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True)
        self.lock = threading.Lock()

    def authorization(self, **req):
        with self.lock:
            self.proc.stdin.write(json.dumps(req) + "\n")
            self.proc.stdin.flush()
            out = json.loads(self.proc.stdout.readline())
        if "error" in out:
            raise ValueError(out["error"])
        return out["authorization"]


def parse_auth(header):
    if not header.startswith("EG1-HMAC-SHA256 "):
        return None
    fields = dict(kv.split("=", 1) for kv in header[16:].split(";") if "=" in kv)
    return fields if {"client_token", "access_token", "timestamp", "nonce", "signature"} <= set(fields) else None


def problem(status, kind, title, detail, errors=None):
    doc = {"type": PROBLEM + kind, "title": title, "detail": detail, "status": status,
           "instance": "/config-dns/v2/" + str(uuid.uuid4()), "problemId": str(uuid.uuid4())}
    if errors:
        doc["errors"] = errors
    return doc


# ---- records ----------------------------------------------------------------------------------------

def rdata_problem(rtype, rdata):
    """Why Edge DNS would refuse one RDATA string of a type (the syntax a few types check), or None."""
    if rtype == "A":
        try:
            ipaddress.IPv4Address(rdata)
        except ValueError:
            return "Invalid IPv4 address %r" % rdata
    if rtype == "AAAA":
        try:
            ipaddress.IPv6Address(rdata)
        except ValueError:
            return "Invalid IPv6 address %r" % rdata
    if rtype == "TXT" and not rdata.startswith('"'):
        return "TXT rdata must be quoted character-strings"
    if rtype in ("CNAME", "NS", "PTR") and (" " in rdata or not rdata):
        return "Invalid domain name %r" % rdata
    return None


def norm(name):
    return name.rstrip(".").lower()


class State:
    def __init__(self, args):
        self.args = args
        self.zones = {}        # name -> {"contract", "version", "sets": {(name, type): {"ttl", "rdata"}}}
        self.clients = {}      # client token -> (access token, secret)
        self.lists = {}        # (client token, zone) -> {"base", "changes": [...], "tag", "modified"}
        self.nonces = set()
        self.hits = {}
        self.faults = []
        self.problems = []
        self.stats = {k: 0 for k in ("requests", "connections", "auth_refused", "bad_schema", "bad_response",
                                     "reads", "zone_reads", "creates", "creates_refused", "adds", "adds_refused",
                                     "submits", "submits_stale", "applied", "deletes", "leftovers_submitted",
                                     "rate_limited", "signatures_checked_node", "nonces_reused")}


def apply_change(sets, ch):
    """One add-change over a zone view (a dict); a problem (status, kind, title, detail, errors) or None."""
    key = (norm(ch["name"]), ch["type"])
    if ch["op"] == "ADD" and key in sets:
        return 409, "recordSetExists", "Conflict", "Record set %s %s already exists" % (key[0], key[1]), None
    if ch["op"] in ("EDIT", "DELETE") and key not in sets:
        return 409, "recordSetNotFound", "Conflict", "Record set %s %s does not exist" % (key[0], key[1]), None
    if ch["op"] == "DELETE":
        del sets[key]
        return None
    for i, rd in enumerate(ch.get("rdata") or []):
        why = rdata_problem(ch["type"], rd)
        if why:
            return 400, "invalidRecordSet", "Bad Request", "Invalid record set %s %s" % key, \
                [{"type": PROBLEM + "invalidRdata", "title": "Invalid rdata", "field": "rdata[%d]" % i,
                  "detail": "%s %s: %s" % (key[0], key[1], why)}]
    if key[0] in REFUSE:
        return 400, "invalidRecordSet", "Bad Request", "Invalid record set", \
            [{"type": PROBLEM + "invalidRecordSet", "title": "Invalid record set", "field": "name",
              "detail": "%s %s: the name is reserved by policy" % key}]
    if not ch.get("rdata") or "ttl" not in ch:
        return 400, "invalidRecordSet", "Bad Request", "Record set %s %s needs ttl and rdata" % key, None
    if ch["type"] not in TYPES:
        return 400, "invalidRecordSet", "Bad Request", "Record type %s is not supported" % ch["type"], None
    sets[key] = {"ttl": ch["ttl"], "rdata": list(ch["rdata"])}
    return None


def cname_problem(sets):
    names = {}
    for (n, t) in sets:
        names.setdefault(n, set()).add(t)
    for n, ts in sorted(names.items()):
        if "CNAME" in ts and len(ts) > 1:
            return "CNAME %s cannot coexist with other record sets" % n
    return None


# ---- the server -----------------------------------------------------------------------------------

def iso(ts):
    return datetime.datetime.fromtimestamp(ts, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


class Drop(Exception):
    """Close the connection without a reply."""


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "fake_akamai"
    state = None
    signer = None

    def log_message(self, fmt, *args):
        if self.state.args.log:
            with open(self.state.args.log, "a") as f:
                f.write("%s\n" % (fmt % args))

    def setup(self):
        super().setup()
        with LOCK:
            self.state.stats["connections"] += 1

    def reply(self, status, doc=None, extra=None):
        body = json.dumps(doc).encode() if doc is not None else b""
        self.send_response(status)
        if doc is not None:
            self.send_header("Content-Type", "application/problem+json" if status >= 400 else "application/json")
        self.send_header("Content-Length", str(len(body)))
        for k, v in (extra or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)
        if doc is not None and 200 <= status < 300 and getattr(self, "op", None):
            bad = check_response(self.op, status, doc)
            if bad:
                self.state.stats["bad_response"] += 1
                self.state.problems += ["response %d: %s" % (status, b) for b in bad]

    def do_GET(self):
        self.dispatch("GET")

    def do_POST(self):
        self.dispatch("POST")

    def do_DELETE(self):
        self.dispatch("DELETE")

    def verify(self, method, raw):
        """The client token of a correctly signed request, or a 401 problem."""
        st = self.state
        f = parse_auth(self.headers.get("Authorization", ""))
        if f is None or f["client_token"] not in st.clients:
            return None, problem(401, "-/pep-authn/deny", "Not authorized", "Invalid authorization client token")
        access, secret, host = st.clients[f["client_token"]]
        if f["access_token"] != access:
            return None, problem(401, "-/pep-authn/deny", "Not authorized", "Invalid authorization access token")
        try:
            ts = datetime.datetime.strptime(f["timestamp"], "%Y%m%dT%H:%M:%S+0000").replace(
                tzinfo=datetime.timezone.utc).timestamp()
        except ValueError:
            return None, problem(401, "-/pep-authn/deny", "Not authorized", "Invalid timestamp")
        if abs(ts - time.time()) > 30:
            return None, problem(401, "-/pep-authn/request-error", "Bad request", "Timestamp is invalid. Too old?")
        if f["nonce"] in st.nonces:  # a resend (libcurl's, after a connection closed without a reply)
            st.stats["nonces_reused"] += 1
            return None, problem(401, "-/pep-authn/deny", "Not authorized", "Invalid authorization nonce: used")
        st.nonces.add(f["nonce"])
        if self.signer:
            want = self.signer.authorization(method=method, base="https://" + (host or self.headers.get("Host", "")),
                                             path=self.path, body=raw.decode("utf-8", "replace") if raw else "",
                                             client_token=f["client_token"], client_secret=secret,
                                             access_token=access, timestamp=f["timestamp"], nonce=f["nonce"])
            st.stats["signatures_checked_node"] += 1
            if want != self.headers.get("Authorization"):
                return None, problem(401, "-/pep-authn/deny", "Not authorized",
                                     "The signature does not match")
        return f["client_token"], None

    def rate_limited(self, client):
        """The 429's headers when the client is over its budget, else None (the request is counted)."""
        st, now = self.state, time.time()
        hits = [t for t in st.hits.get(client, []) if t > now - st.args.rate_window]
        if len(hits) >= st.args.rate:
            st.stats["rate_limited"] += 1
            return {"X-RateLimit-Limit": str(st.args.rate), "X-RateLimit-Remaining": "0",
                    "X-RateLimit-Next": iso(hits[0] + st.args.rate_window)}
        hits.append(now)
        st.hits[client] = hits
        return None

    def dispatch(self, method):
        st = self.state
        self.op = None
        url = urllib.parse.urlsplit(self.path)
        query = dict(urllib.parse.parse_qsl(url.query, keep_blank_values=True))
        n = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(n) if n else b""
        if url.path.startswith("/_fake/"):
            return self.hook(method, url.path.split("/")[2:], query, raw)
        with LOCK:
            st.stats["requests"] += 1
            client, refusal = self.verify(method, raw)
            if refusal:
                st.stats["auth_refused"] += "nonce: used" not in refusal["detail"]
                return self.reply(401, refusal)
            limited = self.rate_limited(client)
            if limited:
                return self.reply(429, problem(429, "rateLimitExceeded", "Too Many Requests",
                                               "Rate limit exceeded"), limited)
            if not url.path.startswith(BASE + "/"):
                return self.reply(404, problem(404, "notFound", "Not Found", "No such resource"))
            path = url.path[len(BASE):]
            problems, self.op = check_request(method, path, query, raw)
            if problems:
                st.stats["bad_schema"] += 1
                st.problems += problems
                return self.reply(400, problem(400, "badRequest", "Bad Request", "; ".join(problems)))
            try:
                return self.route(method, path, query, raw, client)
            except Drop:
                self.close_connection = True
                self.connection.shutdown(2)

    def route(self, method, path, query, raw, client):
        st = self.state
        parts = [urllib.parse.unquote(p) for p in path.split("/") if p]
        if parts == ["zones"]:
            return self.zones(query)
        if parts == ["changelists"] and method == "GET":
            return self.reply(200, {"changeLists": [self.list_meta(z, l) for (c, z), l in sorted(st.lists.items())
                                                    if c == client]})
        if parts == ["changelists"] and method == "POST":
            return self.create(client, norm(query["zone"]))
        zone = norm(parts[1]) if len(parts) > 1 else ""
        if zone not in st.zones:
            return self.reply(404, problem(404, "notFound", "Not Found", "Zone %s does not exist" % zone))
        if parts[0] == "zones" and parts[2:] == ["recordsets"]:
            return self.recordsets(zone, query)
        lst = st.lists.get((client, zone))
        if lst is None:
            return self.reply(404, problem(404, "notFound", "Not Found", "Change list for %s does not exist" % zone))
        if parts[2:] == [] and method == "DELETE":
            del st.lists[(client, zone)]
            st.stats["deletes"] += 1
            return self.reply(204)
        if parts[2:] == [] and method == "GET":
            return self.reply(200, self.list_meta(zone, lst))
        if parts[2:] == ["recordsets", "add-change"]:
            return self.add(zone, lst, json.loads(raw))
        if parts[2:] == ["submit"]:
            return self.submit(client, zone, lst)
        return self.reply(404, problem(404, "notFound", "Not Found", "No such resource"))

    def page(self, items, query):
        size = min(int(query.get("pageSize", 25)), self.state.args.page_size)
        page = int(query.get("page", 1))
        if query.get("showAll") == "true":
            return items, {"page": 1, "pageSize": max(1, len(items)), "totalElements": len(items)}
        return items[(page - 1) * size:page * size], {"page": page, "pageSize": size, "totalElements": len(items)}

    def zones(self, query):
        st = self.state
        contracts = set(query["contractIds"].split(",")) if query.get("contractIds") else None
        zs = [{"zone": z, "type": "PRIMARY", "contractId": v["contract"], "activationState": "ACTIVE",
               "versionId": str(uuid.UUID(int=v["version"])), "lastModifiedDate": v["modified"],
               "lastModifiedBy": "dnsbatch-test"}
              for z, v in sorted(st.zones.items()) if contracts is None or v["contract"] in contracts]
        chunk, meta = self.page(zs, query)
        meta["showAll"] = query.get("showAll") == "true"
        if contracts:
            meta["contractIds"] = sorted(contracts)
        return self.reply(200, {"metadata": meta, "zones": chunk})

    def recordsets(self, zone, query):
        st = self.state
        st.stats["reads"] += 1
        if "search" not in query:
            st.stats["zone_reads"] += 1
        types = query["types"].split(",") if query.get("types") else []
        search = query.get("search", "").lower()
        sets = [{"name": n, "type": t, "ttl": v["ttl"], "rdata": list(v["rdata"])}
                for (n, t), v in sorted(st.zones[zone]["sets"].items())
                if (not types or t in types) and (not search or search in n or
                                                  any(search in r.lower() for r in v["rdata"]))]
        chunk, meta = self.page(sets, query)
        meta.update(zone=zone, types=types)
        return self.reply(200, {"metadata": meta, "recordsets": chunk})

    def list_meta(self, zone, lst):
        return {"zone": zone, "changeTag": lst["tag"], "zoneVersionId": str(uuid.UUID(int=lst["base"])),
                "stale": lst["base"] != self.state.zones[zone]["version"], "lastModifiedDate": lst["modified"]}

    def create(self, client, zone):
        st = self.state
        if zone not in st.zones:
            return self.reply(404, problem(404, "notFound", "Not Found", "Zone %s does not exist" % zone))
        if (client, zone) in st.lists:
            st.stats["creates_refused"] += 1
            return self.reply(409, problem(409, "changeListExists", "Conflict",
                                           "A change list already exists for zone %s" % zone))
        st.stats["creates"] += 1
        st.lists[(client, zone)] = {"base": st.zones[zone]["version"], "changes": [], "tag": str(uuid.uuid4()),
                                    "modified": iso(time.time()), "leftover": False}
        return self.reply(201, self.list_meta(zone, st.lists[(client, zone)]),
                          {"Location": BASE + "/changelists/" + zone})

    def view(self, zone, lst):
        """The zone as the list sees it: its base version's record sets (kept per version) with its changes."""
        sets = {k: dict(v) for k, v in self.state.zones[zone]["history"][lst["base"]].items()}
        for ch in lst["changes"]:
            apply_change(sets, ch)
        return sets

    def add(self, zone, lst, ch):
        st = self.state
        st.stats["adds"] += 1
        sets = self.view(zone, lst)
        bad = apply_change(sets, ch)
        if bad:
            st.stats["adds_refused"] += 1
            return self.reply(bad[0], problem(bad[0], bad[1], bad[2], bad[3], bad[4]))
        lst["changes"].append(ch)
        lst["tag"], lst["modified"] = str(uuid.uuid4()), iso(time.time())
        return self.reply(204)

    def submit(self, client, zone, lst):
        st, z = self.state, self.state.zones[zone]
        st.stats["submits"] += 1
        fault = st.faults.pop(0) if st.faults else None
        if fault == "429":
            return self.reply(429, problem(429, "rateLimitExceeded", "Too Many Requests", "Rate limit exceeded"),
                              {"X-RateLimit-Limit": str(st.args.rate), "X-RateLimit-Remaining": "0",
                               "X-RateLimit-Next": iso(time.time() + st.args.fault_retry_after)})
        if fault == "500":
            return self.reply(500, problem(500, "serverError", "Server error", "An internal error occurred."))
        if fault == "auth":
            return self.reply(401, problem(401, "-/pep-authn/deny", "Not authorized", "Invalid credentials"))
        if fault == "race":
            name, rtype, rdata = st.args.race.split(None, 2)
            self.commit(zone, [{"name": name, "type": rtype, "op": "ADD", "ttl": 300, "rdata": [rdata]}])
        if lst["base"] != z["version"]:
            st.stats["submits_stale"] += 1
            return self.reply(409, problem(409, "staleChangeList", "Change list is stale",
                                           "The change list for %s is stale: zone version has changed" % zone))
        sets = self.view(zone, lst)
        why = cname_problem(sets)
        if why:
            return self.reply(400, problem(400, "invalidRecordSet", "Bad Request", why))
        if lst.get("leftover"):
            st.stats["leftovers_submitted"] += 1
        self.commit(zone, lst["changes"])
        del st.lists[(client, zone)]
        st.stats["applied"] += len(lst["changes"])
        if fault == "502after":
            return self.reply(502, problem(502, "badGateway", "Bad Gateway", "Bad gateway"))
        if fault == "drop":
            raise Drop()
        return self.reply(204)

    def commit(self, zone, changes):
        z = self.state.zones[zone]
        sets = {k: dict(v) for k, v in z["sets"].items()}
        for ch in changes:
            apply_change(sets, ch)
        z["version"] += 1
        z["sets"] = sets
        z["modified"] = iso(time.time())
        z["history"][z["version"]] = {k: dict(v) for k, v in sets.items()}

    def hook(self, method, parts, query, raw):
        st = self.state
        with LOCK:
            if parts == ["stats"]:
                return self.reply(200, dict(st.stats, problems=st.problems, lists=len(st.lists)))
            zone = norm(parts[1]) if len(parts) > 1 else ""
            if zone not in st.zones:
                return self.reply(404, problem(404, "notFound", "Not Found", "no such hook or zone"))
            z = st.zones[zone]
            if parts[0] == "zone":
                return self.reply(200, {"recordsets": [{"name": n, "type": t, "ttl": v["ttl"], "rdata": v["rdata"]}
                                                       for (n, t), v in sorted(z["sets"].items())]})
            body = json.loads(raw or b"{}")
            if parts[0] == "load":  # the zone holds exactly these record sets, its apex SOA and NS kept
                sets = {k: v for k, v in z["sets"].items() if k[0] == zone and k[1] in ("SOA", "NS")}
                for r in body["recordsets"]:
                    sets[(norm(r["name"]), r["type"])] = {"ttl": r["ttl"], "rdata": list(r["rdata"])}
                z["version"] += 1
                z["sets"] = sets
                z["history"][z["version"]] = {k: dict(v) for k, v in sets.items()}
                return self.reply(204)
            if parts[0] == "oob":
                key = (norm(body["name"]), body["type"])
                held = z["sets"].get(key)
                ch = dict(body, op="EDIT" if held else "ADD",
                          rdata=(held["rdata"] if held else []) + [body["rdata"]],
                          ttl=held["ttl"] if held else body["ttl"])
                self.commit(zone, [ch])
                return self.reply(204)
            if parts[0] == "leftover":
                st.lists[(query["client"], zone)] = {"base": z["version"], "changes": [dict(body, op="ADD",
                                                     rdata=[body["rdata"]])], "tag": str(uuid.uuid4()),
                                                     "modified": iso(time.time()), "leftover": True}
                return self.reply(204)
        return self.reply(404, problem(404, "notFound", "Not Found", "no such hook"))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--cert", required=True)
    ap.add_argument("--key", required=True)
    ap.add_argument("--zone", action="append", default=[], help="NAME[=CONTRACT] (default contract C-1)")
    ap.add_argument("--client", action="append", default=[],
                    help="CLIENT_TOKEN:ACCESS_TOKEN:SECRET_FILE[:HOST], an API client; its signatures are for HOST "
                    "(its .edgerc host), else for the Host header")
    ap.add_argument("--edgegrid-node", help="node: check every signature with npm akamai-edgegrid "
                    "(tests/fakes/node_modules)")
    ap.add_argument("--fault", action="append", default=[], help="KIND or KIND*N, in order")
    ap.add_argument("--fault-retry-after", type=int, default=1, help="seconds: a 429 fault's X-RateLimit-Next")
    ap.add_argument("--race", default="", help='"NAME TYPE RDATA": the record another client adds')
    ap.add_argument("--page-size", type=int, default=3, help="the most a page holds (the client asks its pageSize)")
    ap.add_argument("--rate", type=int, default=100000, help="requests per window per client")
    ap.add_argument("--rate-window", type=int, default=60, help="seconds")
    ap.add_argument("--refuse", action="append", default=[],
                    help="NAME: its ADD or EDIT refused 400, errors[] naming it")
    ap.add_argument("--log")
    args = ap.parse_args()
    REFUSE.update(norm(n) for n in args.refuse)

    st = State(args)
    for z in args.zone:
        name, _, contract = z.partition("=")
        name = norm(name)
        sets = {(name, "SOA"): {"ttl": 86400, "rdata": ["a1-1.akam.net. hostmaster.akamai.com. 1 3600 600 604800 300"]},
                (name, "NS"): {"ttl": 86400, "rdata": ["a1-1.akam.net.", "a2-2.akam.net."]}}
        st.zones[name] = {"contract": contract or "C-1", "version": 1, "sets": sets, "modified": iso(time.time()),
                          "history": {1: {k: dict(v) for k, v in sets.items()}}}
    for c in args.client:
        token, access, path, host = (c.split(":", 3) + [""])[:4]
        with open(path) as f:
            st.clients[token] = (access, f.read().strip(), host)
    for f in args.fault:
        kind, _, n = f.partition("*")
        st.faults += [kind] * (int(n) if n else 1)
    Handler.state = st
    if args.edgegrid_node:
        Handler.signer = NodeSigner(args.edgegrid_node)
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(args.cert, args.key)
    server.socket = ctx.wrap_socket(server.socket, server_side=True)
    tmp = args.port_file + ".tmp"
    with open(tmp, "w") as f:
        f.write("%d\n" % server.server_address[1])
    os.rename(tmp, args.port_file)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    sys.exit(main())
