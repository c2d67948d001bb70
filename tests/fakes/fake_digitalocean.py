#!/usr/bin/env python3
"""fake_digitalocean.py - a DigitalOcean API v2 (domains and domain records) server over HTTPS for the digitalocean
provider's tests.

Serves, on a free loopback port (written to --port-file), for the tokens given with --token:
  GET    /v2/domains                              domains_list          (per_page, page)
  GET    /v2/domains/D                            domains_get           {"domain": {name, ttl, zone_file}}
  GET    /v2/domains/D/records                    domains_list_records  (name: a FQDN, type, per_page, page)
  POST   /v2/domains/D/records                    domains_create_record 201 {"domain_record": {...}}
  GET    /v2/domains/D/records/ID                 domains_get_record
  PUT    /v2/domains/D/records/ID                 domains_update_record 200 {"domain_record": {...}}
  PATCH  /v2/domains/D/records/ID                 domains_patch_record
  DELETE /v2/domains/D/records/ID                 domains_delete_record 204

Every request is checked against DigitalOcean's published OpenAPI description (digitalocean-domains-openapi.json
beside this file, transcribed from github.com/digitalocean/openapi, its commit in "x-source"): the operation must
exist, its path and query parameters be declared and of their schema (type, enum, minimum, maximum: per_page above
200 is off the schema), and a body match the operation's requestBody schema (python3-jsonschema; OpenAPI's
nullable read as a null allowed; a property the model does not declare, or a readOnly one such as id, is a problem
too). A body that is not JSON is answered 400 {"id": "bad_request"}, a query off the description 400, a body off the
schema 422 {"id": "unprocessable_entity"}; each is counted in stats.bad_schema with its problems, so a test can fail
on it. Every JSON reply of 2xx is checked against the operation's response schema too (stats.bad_response).

The create body's schema is an anyOf over the per-type models with an OpenAPI discriminator; it is checked as JSON
Schema reads it (any one model matching), because the discriminator's mapping would make flags and tag (CAA fields)
required on NS, SRV and TXT records, which DigitalOcean's own Go client (godo's DomainRecordEditRequest, tag
omitempty) never sends. The per-type requirements enforced (422 otherwise) are the models' required lists read
through the field descriptions (priority for MX and SRV, port for SRV, flags and tag for CAA; an SRV weight not sent is null).

Behaviour, as DigitalOcean documents it or as its users report it (the source named in each case):
- Auth: "Authorization: Bearer TOKEN" (the spec's bearer_auth); anything else 401 {"id": "unauthorized",
  "message": "Unable to authenticate you."} (shared/responses/unauthorized.yml).
- Records are per value with integer ids (domain_record.yml), names relative with "@" for the apex (the spec's
  examples); a name ending in "." is refused 422 (names are relative). Names are kept lower-case.
- Data: A an IPv4 address, AAAA an IPv6 address (422 otherwise). CNAME, MX, NS and SRV data are host names: a
  request must give them absolute, ending in ".", or "@" (422 "Data needs to end with a dot (.)": external-dns PR
  #624, doctl issue #919, terraform-provider-digitalocean #352); DigitalOcean keeps and lists them without the
  trailing dot, and the zone's own name as "@" (octodns PR #151; octodns-digitalocean adds the dot back on reading,
  an SRV target "." stays "."). A PUT whose merged record keeps a stored host name (no "data" in the body) is
  refused the same way, as doctl #919 reports. CAA: flags 0-255, tag issue, issuewild or iodef (domain_record.yml),
  an issue/issuewild value naming a domain must end with "." (octodns PR #692), kept as sent. TXT data as sent.
- TTL at least 30 (docs.digitalocean.com/glossary/ttl: "All DNS records require a minimum TTL value of 30
  seconds"), 422 otherwise; a record without ttl gets the domain's 1800 (the spec's examples).
- 422 {"id": "unprocessable_entity"} for a CNAME at the apex, a CNAME beside other records at its name ("CNAME records
  cannot share a name with other records"), another record beside a CNAME ("records cannot share a name with a CNAME
  record"; both messages as external-dns issues #4802 and #4495 quote them) and a duplicate record (the same name,
  type and RDATA: data and the type's priority, port, weight, flags, tag), as issue 37 states; --allow-duplicates
  holds duplicates instead (browsertrix PR #3508 reports duplicate A records made by repeated runs).
- The SOA record is listed (octodns-digitalocean's fixture lists it first) with an id; it can only have its ttl
  changed and cannot be deleted (the Domain Records tag's attribute table). Each domain starts with its SOA and
  the NS records ns1/ns2/ns3.digitalocean.com at the apex (the spec's zone_file example).
- Pagination (description.yml "Links & Pagination"): 20 per page by default, per_page up to 200; links.pages holds
  first and prev (after page 1), next and last (before the last page), URLs on the Host the request named; links is
  {} when there is one page; meta.total the number of objects.
- Filters: name (a fully qualified record name, e.g. sub.example.com; the apex is the domain's name) and type, alone
  or together (domains_list_records.yml).
- Rate limits per token (description.yml "Rate Limit"): each request counts for --hour-seconds (3600) toward
  --rate-hour (5000) and for --minute-seconds (60) toward --rate-minute (250). Every reply carries ratelimit-limit
  (the hourly limit), ratelimit-remaining (what the hour has left) and ratelimit-reset (epoch seconds when the
  oldest counted request expires). A request past the burst limit is answered 429 {"id": "too_many_requests",
  "message": "API Rate limit exceeded."} with ratelimit-remaining 0 and retry-after (seconds until the minute frees
  one); past the hourly limit 429 without retry-after. A refused request is not counted.
- Each request runs under one lock (a single writer): every request is atomic.

Scripted faults on the record writes (POST, PUT, PATCH, DELETE), one per write in order (--fault KIND[*N], or
POST /_fake/fault/KIND[/KIND...]): ok; 429 (retry-after --fault-retry-after seconds, nothing written); 500 (nothing
written); 500after / 502after (written, then the error); drop (written, then the connection closed without a reply:
a lost reply); delay (--fault-delay ms, then as ok); refuse (422, nothing written). --status-at N=STATUS answers the
N-th API request (any method, counted from 1) STATUS with DigitalOcean's error body for it, nothing done.
--endless-next KEY (domains, domain_records): every page of that listing, the last and past it (empty), links a next
page (a server whose pages never end).

Unauthenticated test hooks (no rate limit): GET /_fake/stats; GET /_fake/zone/D (every record as stored, by id);
POST /_fake/load/D {"records": [{type, name, data, ttl, priority, port, weight, flags, tag}]} (the domain holds
exactly these, its SOA and apex NS kept unless the list names apex NS records: a panel edit, unchecked);
POST /_fake/fault/KIND...; POST /_fake/status-at/N/STATUS.
"""
import argparse
import collections
import copy
import ipaddress
import json
import os
import re
import sys
import threading
import time
import urllib.parse

import fakehttp

import jsonschema

HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "digitalocean-domains-openapi.json")) as f:
    SPEC = json.load(f)
LOCK = threading.Lock()
TYPES = ("A", "AAAA", "CAA", "CNAME", "MX", "NS", "SOA", "SRV", "TXT")
HOSTNAME_TYPES = ("CNAME", "MX", "NS", "SRV")
FIELDS = ("priority", "port", "weight", "flags", "tag")
# the fields each type uses (domain_record.yml's descriptions; the others are null), and of those the ones a record
# of the type requires (domain_record_types.yml's required lists, read through the same descriptions)
USES = {"MX": ("priority",), "SRV": ("priority", "port", "weight"), "CAA": ("flags", "tag")}
REQUIRES = {"MX": ("priority",), "SRV": ("priority", "port"), "CAA": ("flags", "tag")}
ERRORS = {400: ("bad_request", "error parsing request body"), 401: ("unauthorized", "Unable to authenticate you."),
          404: ("not_found", "The resource you requested could not be found."),
          422: ("unprocessable_entity", "request payload validation failed"),
          429: ("too_many_requests", "API Rate limit exceeded."), 500: ("server_error", "Unexpected server-side error"),
          502: ("bad_gateway", "Bad Gateway"), 503: ("service_unavailable", "Service Unavailable")}
DOT = "Data needs to end with a dot (.)"


# ---- the OpenAPI description ---------------------------------------------------------------------

def json_schema(node, strict):
    """An OpenAPI 3.0 schema as JSON Schema: nullable adds null to the type; STRICT (requests): the properties a
    model lists are the only ones it takes (a response's allOf of several models is read as written)."""
    if isinstance(node, list):
        return [json_schema(v, strict) for v in node]
    if not isinstance(node, dict):
        return node
    out = {k: json_schema(v, strict) for k, v in node.items()}
    if out.pop("nullable", False) and "type" in out:
        out["type"] = [out["type"], "null"]
    if strict and "properties" in out and "additionalProperties" not in out:
        out["additionalProperties"] = False
    return out


COMPONENTS = {strict: json_schema(SPEC["components"], strict) for strict in (False, True)}
VALIDATORS = {}


def deref(node):
    while isinstance(node, dict) and "$ref" in node:
        kind, name = node["$ref"].split("/")[2:]
        node = SPEC["components"][kind][name]
    return node


def validator(schema, strict):
    """A Draft 4 validator of SCHEMA (one of the description's) whose local $refs resolve in its components."""
    key = (id(schema), strict)
    if key not in VALIDATORS:
        VALIDATORS[key] = jsonschema.Draft4Validator(dict(json_schema(schema, strict), components=COMPONENTS[strict]))
    return VALIDATORS[key]


def read_only(schema):
    """The readOnly properties a schema's models declare (a request may not send them)."""
    names = set()

    def walk(node):
        node = deref(node)
        if isinstance(node, dict):
            for k, v in node.get("properties", {}).items():
                if deref(v).get("readOnly"):
                    names.add(k)
            for key in ("allOf", "anyOf", "oneOf"):
                for v in node.get(key, []):
                    walk(v)
    walk(schema)
    return names


def find_operation(method, path):
    """(operation, path parameters as strings) for a request, or (None, None)."""
    for tmpl, item in SPEC["paths"].items():
        rx = "^" + re.sub(r"\\{(\w+)\\}", r"(?P<\1>[^/]+)", re.escape(tmpl)) + "$"
        m = re.match(rx, path)
        if m and method.lower() in item:
            return item[method.lower()], {k: urllib.parse.unquote(v) for k, v in m.groupdict().items()}
    return None, None


def param_problem(p, value):
    s = p.get("schema", {})
    if s.get("type") == "integer":
        if not re.fullmatch(r"-?\d+", value):
            return "%s=%r is not an integer" % (p["name"], value)
        if "minimum" in s and int(value) < s["minimum"]:
            return "%s=%s is below its minimum %d" % (p["name"], value, s["minimum"])
        if "maximum" in s and int(value) > s["maximum"]:
            return "%s=%s is above its maximum %d" % (p["name"], value, s["maximum"])
    if "enum" in s and value not in s["enum"]:
        return "%s=%r is not one of %s" % (p["name"], value, s["enum"])
    return None


def check_params(op, pathp, query):
    """Problems of the path and query parameters (a list)."""
    params = [deref(p) for p in op.get("parameters", [])]
    declared = {p["name"]: p for p in params if p["in"] == "query"}
    problems = ["query parameter %r is not declared" % k for k in query if k not in declared]
    for p in params:
        where = pathp if p["in"] == "path" else query
        if p.get("required") and p["name"] not in where:
            problems.append("required parameter %r missing" % p["name"])
        elif p["name"] in where:
            if p["in"] == "query" and len(where[p["name"]]) > 1:
                problems.append("query parameter %r given twice" % p["name"])
            v = where[p["name"]][0] if p["in"] == "query" else where[p["name"]]
            bad = param_problem(p, v)
            if bad:
                problems.append(bad)
    return problems


def messages(err):
    """An error's messages: for an anyOf none of whose models matched, what each model found (deduplicated)."""
    if not err.context:
        return [err.message]
    out = []
    for sub in err.context:
        m = "%s%s" % ("/".join(str(p) for p in sub.absolute_path) + ": " if sub.absolute_path else "", sub.message)
        if m not in out:
            out.append(m)
    return ["matches none of the record models: " + "; ".join(out)]


def check_body(op, raw):
    """(status, problems, body): 400 when the body is not JSON, 422 when it is off the schema, else (None, [], body)."""
    rb = op.get("requestBody")
    if not raw:
        return (422, ["the body is required"], None) if rb else (None, [], None)
    if rb is None:
        return 400, ["a body where the operation takes none"], None
    try:
        body = json.loads(raw)
    except ValueError as e:
        return 400, ["the body is not JSON: %s" % e], None
    schema = rb["content"]["application/json"]["schema"]
    problems = [m for e in validator(schema, True).iter_errors(body) for m in messages(e)]
    if isinstance(body, dict):
        problems += ["read-only %r sent" % k for k in sorted(read_only(schema)) if k in body]
    return (422 if problems else None), problems, body


def check_response(op, status, doc):
    resp = deref(op["responses"].get(str(status), {}))
    schema = resp.get("content", {}).get("application/json", {}).get("schema")
    return [] if schema is None else [e.message for e in validator(schema, False).iter_errors(doc)]


# ---- records ----------------------------------------------------------------------------------------

def host_data(zone, data):
    """A host name as DigitalOcean keeps it: no trailing dot, the zone's own name as "@"; None when not absolute."""
    if data == "@" or data == ".":
        return data
    if not data.endswith("."):
        return None
    data = data[:-1].lower()
    return "@" if data == zone else data


def rdata_key(r):
    return (r["name"], r["type"], r["data"]) + tuple(r.get(k) for k in FIELDS)


def record_problem(zone, rec):
    """Why DigitalOcean refuses one record (its final form, data already kept form), or None."""
    t, name, data = rec["type"], rec["name"], rec["data"]
    if t == "SOA":
        return "SOA records can only have their ttl changed"
    if not name or name.endswith(".") or ".." in name:
        return "Name must be relative to the domain, or @ for the domain itself"
    if not isinstance(rec.get("ttl"), int) or rec["ttl"] < 30:
        return "TTL must be at least 30 seconds"
    for k in FIELDS:
        if k in REQUIRES.get(t, ()) and rec.get(k) is None:
            return "%s is required for %s records" % (k.capitalize(), t)
    if not isinstance(data, str) or not data:
        return "Data is required"
    try:
        if t == "A":
            ipaddress.IPv4Address(data)
        if t == "AAAA":
            ipaddress.IPv6Address(data)
    except ValueError:
        return "Data must be a valid IP%s address" % ("v4" if t == "A" else "v6")
    if t == "CAA":
        if not 0 <= rec["flags"] <= 255:
            return "Flags must be between 0 and 255"
        if rec["tag"] not in ("issue", "issuewild", "iodef"):
            return "Tag must be one of issue, issuewild, iodef"
        if rec["tag"] != "iodef" and re.fullmatch(r"[A-Za-z0-9.-]*[A-Za-z0-9]", data):
            return DOT
    return None


def conflict(records, rec, own_id=None):
    """The 422 message when REC cannot join RECORDS (CNAME rules, duplicates), or None."""
    same = [r for i, r in records.items() if i != own_id and r["name"] == rec["name"]]
    if rec["type"] == "CNAME" and rec["name"] == "@":
        return "CNAME records cannot be created at the root of the domain (@)"
    if rec["type"] == "CNAME" and same:
        return "CNAME records cannot share a name with other records"
    if any(r["type"] == "CNAME" for r in same):
        return "records cannot share a name with a CNAME record"
    if not ALLOW_DUPLICATES and any(rdata_key(r) == rdata_key(rec) for r in same):
        return "A record with the same name, type and data already exists"
    return None


def record_doc(rec):
    """A record as DigitalOcean answers it: every attribute, null where the type uses none."""
    out = {"id": rec["id"], "type": rec["type"], "name": rec["name"], "data": rec["data"], "ttl": rec["ttl"]}
    for k in FIELDS:
        out[k] = rec.get(k) if k in USES.get(rec["type"], ()) else None
    return out


ALLOW_DUPLICATES = False


class State:
    def __init__(self, args):
        self.args = args
        self.zones = {}          # name -> {"ttl": int, "records": {id: rec}}
        self.next_id = 3352896   # the spec's example record id
        self.tokens = set()
        self.hits = {}           # token -> deque of epoch seconds of its counted requests (the last hour)
        self.faults = []
        self.status_at = {}      # API request number -> status
        self.problems = []
        self.stats = {k: 0 for k in ("requests", "reads", "writes", "creates", "updates", "deletes", "bad_schema",
                                     "bad_response", "auth_refused", "refused_422", "burst_limited",
                                     "hourly_limited", "faults", "dropped_replies", "not_found")}

    def new_id(self):
        self.next_id += 1
        return self.next_id

    def add_zone(self, name):
        z = {"ttl": 1800, "records": {}}
        self.zones[name] = z
        for rec in [{"type": "SOA", "name": "@", "data": "1800", "ttl": 1800}] + \
                [{"type": "NS", "name": "@", "data": "ns%d.digitalocean.com" % i, "ttl": 1800} for i in (1, 2, 3)]:
            rec["id"] = self.new_id()
            z["records"][rec["id"]] = rec


# ---- the server -----------------------------------------------------------------------------------

def error(status, message=None):
    eid, default = ERRORS.get(status, ("example_error", "some error message"))
    return {"id": eid, "message": message or default}


class Drop(Exception):
    """Close the connection without a reply."""


class Handler(fakehttp.Handler):
    server_version = "fake_digitalocean"
    methods = ("GET", "POST", "PUT", "PATCH", "DELETE")
    state = None

    def reply(self, status, doc, extra=()):
        heads = list(self.rate_heads) + list(extra)
        self.send_json(status, doc, heads)
        if doc is not None and 200 <= status < 300 and self.op is not None:
            bad = check_response(self.op, status, doc)
            if bad:
                self.state.stats["bad_response"] += 1
                self.state.problems += ["response %d: %s" % (status, b) for b in bad]

    # -- rate limits (description.yml "Rate Limit") --

    def rate_take(self, token):
        """Count this request for TOKEN; the rate-limit headers; (status 429 extra headers) when over a limit."""
        st, a, now = self.state, self.state.args, time.time()
        hits = st.hits.setdefault(token, collections.deque())
        while hits and hits[0] <= now - a.hour_seconds:
            hits.popleft()
        minute = [t for t in hits if t > now - a.minute_seconds]
        over = None
        if len(hits) >= a.rate_hour:
            over = "hourly"
        elif len(minute) >= a.rate_minute:
            over = "burst"
        else:
            hits.append(now)
        reset = int(hits[0] + a.hour_seconds + 0.999) if hits else int(now)
        left = 0 if over else a.rate_hour - len(hits)
        self.rate_heads = [("ratelimit-limit", str(a.rate_hour)), ("ratelimit-remaining", str(left)),
                           ("ratelimit-reset", str(reset))]
        if over == "burst":
            st.stats["burst_limited"] += 1
            return [("retry-after", str(max(1, int(minute[0] + a.minute_seconds - now + 0.999))))]
        if over == "hourly":
            st.stats["hourly_limited"] += 1
            return []
        return None

    def dispatch(self, method):
        st = self.state
        self.op, self.rate_heads = None, []
        url = urllib.parse.urlsplit(self.path)
        query = urllib.parse.parse_qs(url.query, keep_blank_values=True)
        raw = self.body()
        if url.path.startswith("/_fake/"):
            return self.hook(method, [urllib.parse.unquote(p) for p in url.path.split("/")[2:]], raw)
        fault = None
        with LOCK:
            st.stats["requests"] += 1
            auth = self.headers.get("Authorization", "")
            token = auth[7:] if auth.startswith("Bearer ") and auth[7:] in st.tokens else None
            limited = self.rate_take(token or "")
            if token is None:
                st.stats["auth_refused"] += 1
                return self.reply(401, error(401))
            if limited is not None:
                return self.reply(429, error(429), limited)
            forced = st.status_at.pop(st.stats["requests"], None)
            if forced:
                return self.reply(forced, error(forced))
            self.op, pathp = find_operation(method, url.path)
            if self.op is None:
                return self.reply(404, error(404))
            status, problems, body = check_body(self.op, raw)
            query_problems = check_params(self.op, pathp, query)
            if query_problems or problems:
                st.stats["bad_schema"] += 1
                st.problems += ["%s %s: %s" % (method, url.path, p) for p in query_problems + problems]
                return self.reply(400 if query_problems else status, error(400 if query_problems else status,
                                                                             "; ".join(query_problems + problems)))
            if method != "GET":
                st.stats["writes"] += 1
                fault = st.faults.pop(0) if st.faults else "ok"
                if fault != "ok":
                    st.stats["faults"] += 1
            if fault not in ("delay", None):
                return self.route(method, pathp, {k: v[0] for k, v in query.items()}, body, fault)
        if fault == "delay":
            time.sleep(st.args.fault_delay / 1000.0)
        with LOCK:
            return self.route(method, pathp, {k: v[0] for k, v in query.items()}, body, "ok")

    def route(self, method, pathp, query, body, fault):
        """One request of the API, under the lock; FAULT the write's scripted fault (or "ok" for reads)."""
        st = self.state
        if fault in ("429", "500", "refuse"):
            status = {"429": 429, "500": 500, "refuse": 422}[fault]
            extra = [("retry-after", str(st.args.fault_retry_after))] if status == 429 else []
            return self.reply(status, error(status, "scripted refusal" if fault == "refuse" else None), extra)
        opid = self.op["operationId"]
        if opid == "domains_list":
            return self.page("domains", [self.domain_doc(z) for z in sorted(st.zones)], query)
        zone = pathp["domain_name"].lower()
        if zone not in st.zones:
            st.stats["not_found"] += 1
            return self.reply(404, error(404))
        records = st.zones[zone]["records"]
        if opid == "domains_get":
            return self.reply(200, {"domain": self.domain_doc(zone)})
        if opid == "domains_list_records":
            return self.list_records(zone, records, query)
        if opid == "domains_create_record":
            return self.write(zone, records, None, body, fault)
        rid = int(pathp["domain_record_id"])
        if rid not in records:
            st.stats["not_found"] += 1
            return self.reply(404, error(404))
        if opid == "domains_get_record":
            st.stats["reads"] += 1
            return self.reply(200, {"domain_record": record_doc(records[rid])})
        if opid == "domains_delete_record":
            if records[rid]["type"] == "SOA":
                st.stats["refused_422"] += 1
                return self.reply(422, error(422, "SOA records cannot be deleted"))
            del records[rid]
            st.stats["deletes"] += 1
            return self.after(fault, 204, None)
        return self.write(zone, records, rid, body, fault, merge_data=(opid == "domains_update_record"))

    def after(self, fault, status, doc):
        """The reply of a write that landed, or the scripted fault after it."""
        if fault in ("500after", "502after"):
            status = int(fault[:3])
            return self.reply(status, error(status))
        if fault == "drop":
            self.state.stats["dropped_replies"] += 1
            self.close_connection = True
            self.connection.shutdown(2)
            return None
        return self.reply(status, doc)

    def write(self, zone, records, rid, body, fault, merge_data=False):
        """A create (RID None) or an update (PUT or PATCH: the body's attributes over the stored record's)."""
        st = self.state
        old = records.get(rid) if rid is not None else None
        rec = dict(old) if old else {"name": "@", "ttl": st.zones[zone]["ttl"]}
        for k in ("type", "name", "data", "ttl") + FIELDS:
            if k in body and body[k] is not None:
                rec[k] = body[k].lower() if k == "name" else body[k]
        if old and old["type"] == "SOA":  # its ttl only (the Domain Records tag's attribute table)
            sent = {k for k in body if body[k] is not None}
            why = "SOA records can only have their ttl changed" if not sent <= {"type", "ttl"} or \
                rec["type"] != "SOA" else (None if rec["ttl"] >= 30 else "TTL must be at least 30 seconds")
        else:
            why = self.data_problem(zone, rec, body, old, merge_data) or record_problem(zone, rec) or \
                conflict(records, rec, rid)
        if why:
            st.stats["refused_422"] += 1
            return self.reply(422, error(422, why))
        if old is None:
            rec["id"] = st.new_id()
            st.stats["creates"] += 1
        else:
            st.stats["updates"] += 1
        records[rec["id"]] = rec
        return self.after(fault, 201 if old is None else 200, {"domain_record": record_doc(rec)})

    @staticmethod
    def data_problem(zone, rec, body, old, merge_data):
        """A host name's data into its kept form (in REC), or the 422 message."""
        if rec.get("type") not in HOSTNAME_TYPES or not isinstance(rec.get("data"), str):
            return None
        if "data" not in body or body["data"] is None:
            # a stored host name merged into a PUT is checked as if sent (doctl #919); a PATCH keeps it
            return DOT if merge_data and old and rec["data"] not in ("@", ".") else None
        kept = host_data(zone, rec["data"])
        if kept is None:
            return DOT
        rec["data"] = kept
        return None

    def base(self):
        return "https://%s" % self.headers.get("Host", "127.0.0.1:%d" % self.server.server_address[1])

    def page(self, key, items, query, path="/v2/domains", extra=None):
        per = int(query.get("per_page", 20))
        page = int(query.get("page", 1))
        last = max(1, (len(items) + per - 1) // per)
        chunk = items[(page - 1) * per:page * per]

        def link(n):
            q = dict(extra or {}, page=n, per_page=per)
            return "%s%s?%s" % (self.base(), path, urllib.parse.urlencode(q))
        pages = {}
        if page > 1:
            pages.update(first=link(1), prev=link(min(page - 1, last)))
        if page < last:
            pages.update(next=link(page + 1), last=link(last))
        elif key in self.state.args.endless_next:  # a buggy or hostile server: next never ends
            pages.update(next=link(page + 1))
        return self.reply(200, {key: chunk, "links": {"pages": pages} if pages else {}, "meta": {"total": len(items)}})

    def list_records(self, zone, records, query):
        self.state.stats["reads"] += 1
        want = query.get("name", "").lower().rstrip(".")
        out = [record_doc(r) for _, r in sorted(records.items())
               if (not want or (zone if r["name"] == "@" else r["name"] + "." + zone) == want)
               and ("type" not in query or r["type"] == query["type"])]
        filters = {k: query[k] for k in ("name", "type") if k in query}
        return self.page("domain_records", out, query, "/v2/domains/%s/records" % zone, filters)

    def domain_doc(self, zone):
        z = self.state.zones[zone]
        lines = ["$ORIGIN %s." % zone, "$TTL %d" % z["ttl"],
                 "%s. IN SOA ns1.digitalocean.com. hostmaster.%s. 1415982609 10800 3600 604800 1800" % (zone, zone)]
        for _, r in sorted(z["records"].items()):
            if r["type"] == "SOA":
                continue
            owner = zone + "." if r["name"] == "@" else "%s.%s." % (r["name"], zone)
            data = r["data"]
            if r["type"] in HOSTNAME_TYPES:
                data = zone + "." if data == "@" else (data if data == "." else data + ".")
            if r["type"] == "TXT":
                data = json.dumps(data)
            # an SRV weight not sent is null (kept absent): its zone file line says 0
            pre = " ".join(str(r.get(k) or 0) for k in USES.get(r["type"], ()))
            lines.append("%s %d IN %s %s%s" % (owner, r["ttl"], r["type"], pre + " " if pre else "", data))
        return {"name": zone, "ttl": z["ttl"], "zone_file": "\n".join(lines) + "\n"}

    # -- the test's view --

    def hook(self, method, parts, raw):
        st = self.state
        with LOCK:
            if parts == ["stats"]:
                return self.send_json(200, dict(st.stats, problems=st.problems, faults_left=st.faults))
            if len(parts) >= 2 and parts[0] == "fault" and method == "POST":
                st.faults += parts[1:]
                return self.send_json(200, {"faults": st.faults})
            if len(parts) == 3 and parts[0] == "status-at" and method == "POST":
                st.status_at[int(parts[1])] = int(parts[2])
                return self.send_json(200, {"status_at": st.status_at})
            zone = parts[1].lower() if len(parts) == 2 else None
            if zone not in st.zones:
                return self.send_json(404, error(404, "no such hook or domain"))
            records = st.zones[zone]["records"]
            if parts[0] == "zone" and method == "GET":
                return self.send_json(200, {"domain_records": [record_doc(r) for _, r in sorted(records.items())]})
            if parts[0] == "load" and method == "POST":
                given = json.loads(raw or b"{}").get("records", [])
                apex_ns = any(r["type"] == "NS" and r["name"] == "@" for r in given)
                keep = {i: r for i, r in records.items()
                        if r["type"] == "SOA" or (r["type"] == "NS" and r["name"] == "@" and not apex_ns)}
                for r in given:
                    rec = {k: r.get(k) for k in ("type", "name", "data", "ttl") + FIELDS}
                    rec["id"] = st.new_id()
                    keep[rec["id"]] = rec
                st.zones[zone]["records"] = keep
                return self.send_json(204, None)
        return self.send_json(404, error(404, "no such hook"))


def main():
    global ALLOW_DUPLICATES
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    fakehttp.add_server_args(ap)
    ap.add_argument("--domain", action="append", default=[], help="a domain the account holds (example.com)")
    ap.add_argument("--token", action="append", default=[], help="a token the API accepts (Bearer)")
    ap.add_argument("--rate-hour", type=int, default=5000, help="requests per token per hour")
    ap.add_argument("--rate-minute", type=int, default=250, help="requests per token per minute (the burst limit)")
    ap.add_argument("--hour-seconds", type=float, default=3600, help="how long the hour lasts")
    ap.add_argument("--minute-seconds", type=float, default=60, help="how long the minute lasts")
    ap.add_argument("--allow-duplicates", action="store_true", help="hold two records of one name, type and RDATA")
    ap.add_argument("--fault", action="append", default=[], help="KIND or KIND*N, in order, one per record write")
    ap.add_argument("--fault-retry-after", type=int, default=1, help="seconds: the retry-after of a 429 fault")
    ap.add_argument("--fault-delay", type=float, default=1000, help="milliseconds a delay fault waits")
    ap.add_argument("--endless-next", action="append", default=[], choices=["domains", "domain_records"],
                    help="every page of this listing links a next page (past the last)")
    ap.add_argument("--status-at", action="append", default=[], help="N=STATUS: the N-th API request answered STATUS")
    args = ap.parse_args()
    ALLOW_DUPLICATES = args.allow_duplicates
    st = State(args)
    for d in args.domain:
        st.add_zone(d.rstrip(".").lower())
    st.tokens.update(args.token)
    for s in args.status_at:
        n, status = s.split("=", 1)
        st.status_at[int(n)] = int(status)
    return fakehttp.start(Handler, st, args, lazy_handshake=True, queue_size=128)


if __name__ == "__main__":
    sys.exit(main())
