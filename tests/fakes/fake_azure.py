#!/usr/bin/env python3
"""fake_azure.py - a fake of Azure DNS (Microsoft.Network/dnsZones, api-version 2018-05-01, or with --private
Microsoft.Network/privateDnsZones, api-version 2018-09-01) and of the token endpoints.

Serves over HTTPS on a free loopback port (written to --port-file):
  GET    /subscriptions/S/resourceGroups/G/providers/Microsoft.Network/dnsZones            Zones_ListByResourceGroup
  GET    .../dnsZones/Z/recordsets?$top=N                                                 RecordSets_ListByDnsZone (nextLink)
  GET    .../dnsZones/Z/TYPE/NAME                                                         RecordSets_Get (404 NotFound)
  PUT    .../dnsZones/Z/TYPE/NAME    If-None-Match: * / If-Match: ETAG                     RecordSets_CreateOrUpdate
  DELETE .../dnsZones/Z/TYPE/NAME    If-Match: ETAG                                       RecordSets_Delete
  POST   /TENANT/oauth2/v2.0/token   client secret or client assertion (federated token)
  GET    /metadata/identity/oauth2/token   (IMDS; header Metadata: true)
  GET    /_fake/stats (max_per_second: the most API requests in any second), /_fake/zone/Z; POST /_fake/put/Z/TYPE/NAME (another client's write)
  POST   /_fake/fault/KIND[/KIND...]   faults appended, as --fault gives them

With --private the paths are .../privateDnsZones (PrivateZones_ListByResourceGroup), .../privateDnsZones/Z/ALL
(RecordSets_List) and .../privateDnsZones/Z/TYPE/NAME, the bodies in the private spelling (ttl, aRecords, ...), checked
against azure-privatedns-2018-09-01.json.

Every record set has an ETag (a fresh UUID at each write). If-None-Match: * fails with 412 when the record set
exists; If-Match fails with 412 when it is absent or holds another ETag, as Azure applies them. Every request body
and query is checked against the definitions kept from Azure's REST specification (azure-dns-2018-05-01.json,
beside this file, with its source named) by python3-jsonschema, strictly: a property the specification does not
define is an error too. A request that fails the check is answered 400 and counted in stats.bad_schema.

Faults (--fault KIND[*N], consumed in order, one per record-set write): ok (no fault), 429 (Retry-After:
--fault-retry-after seconds, default 1; nothing written), 500after / 502after (written, then the error), race
(another client rewrites the record set just before: the write's If-Match then fails), refuse (400 BadRequest,
nothing written), delay (--fault-delay milliseconds, then as ok), 502before (502, nothing written: a reply that
tells nothing of the write's fate).

Error bodies: ARM's CloudError {"error": {"code", "message"}} by default; --error-shape bare answers every API error
in the DNS resource provider's own shape {"code", "message"} (as the Azure CLI and azure-sdk-for-go meet it on
record-set requests, e.g. a 404 NotFound).

A TXT record's value[] strings hold at most 1,024 octets each (Azure's documented limit; the REST specification
sets none): a longer one is answered 400 BadRequest, nothing written (stats.txt_too_long).

Token faults: --token-fail N (repeatable) answers the N-th token request (counting client-credentials and IMDS
requests from 1) 500 temporarily_unavailable, as the identity platform does when it is down.

The subscription's quota (--hourly-reads, --hourly-writes; an "hour" lasts --hour-seconds): a bucket per kind that
refills evenly over the hour; every API reply says what remains in x-ms-ratelimit-remaining-subscription-reads or
-writes, and a request that finds its bucket empty is answered 429 with Retry-After (stats.quota_429).

Tokens expire: a token is honoured --token-valid seconds (default: the --token-lifetime its reply announces);
after that the API answers 401 ExpiredAuthenticationToken (stats.expired).
"""
import argparse
import collections
import copy
import json
import os
import shlex
import sys
import threading
import time
import urllib.parse
import uuid

import fakehttp

import jsonschema

LOCK = threading.RLock()
HERE = os.path.dirname(os.path.abspath(__file__))


class Flavour:
    """What differs between public (dnsZones) and private (privateDnsZones) zones."""
    PUBLIC = dict(spec="azure-dns-2018-05-01.json", api="2018-05-01", zones="dnsZones", listing="recordsets",
                  op_list="RecordSets_ListByDnsZone", op_zones="Zones_ListByResourceGroup", ttl="TTL",
                  type_prefix="Microsoft.Network/dnszones/",
                  keys={"A": "ARecords", "AAAA": "AAAARecords", "MX": "MXRecords", "NS": "NSRecords",
                        "PTR": "PTRRecords", "SRV": "SRVRecords", "TXT": "TXTRecords", "CNAME": "CNAMERecord",
                        "SOA": "SOARecord", "CAA": "caaRecords"})
    PRIVATE = dict(spec="azure-privatedns-2018-09-01.json", api="2018-09-01", zones="privateDnsZones", listing="ALL",
                   op_list="RecordSets_List", op_zones="PrivateZones_ListByResourceGroup", ttl="ttl",
                   type_prefix="Microsoft.Network/privateDnsZones/",
                   keys={"A": "aRecords", "AAAA": "aaaaRecords", "MX": "mxRecords", "PTR": "ptrRecords",
                         "SRV": "srvRecords", "TXT": "txtRecords", "CNAME": "cnameRecord", "SOA": "soaRecord"})


F = Flavour.PUBLIC
SPEC_FILE = os.path.join(HERE, F["spec"])
API = F["api"]
RECORD_KEYS = F["keys"]


def strict(schema):
    """The specification's schema with additionalProperties false wherever properties are listed."""
    s = copy.deepcopy(schema)

    def walk(node):
        if isinstance(node, dict):
            if "properties" in node and "additionalProperties" not in node:
                node["additionalProperties"] = False
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)
    walk(s)
    return s


class State:
    def __init__(self, args):
        self.args = args
        with open(SPEC_FILE) as f:
            self.spec = json.load(f)
        defs = strict(self.spec["definitions"])
        self.recordset_schema = {"definitions": defs, "$ref": "#/definitions/RecordSet"}
        self.validator = jsonschema.Draft4Validator(self.recordset_schema)
        self.zones = {}          # name -> {(relname, TYPE): {"props": {...}, "etag": str}}
        self.faults = []
        self.tokens = {}         # token -> monotonic time it stops being honoured
        self.stats = {"requests": 0, "writes": 0, "lists": 0, "gets": 0, "zone_lists": 0, "tokens": 0,
                      "bad_schema": 0, "bad_auth": 0, "expired": 0, "status": {}, "token_kinds": {},
                      "precondition_failed": 0, "max_in_flight": 0, "quota_429": 0, "max_per_second": 0,
                      "schema_errors": [], "txt_too_long": 0, "token_requests": 0, "token_failed": 0}
        self.in_flight = 0
        self.recent = collections.deque()  # monotonic times of the API requests of the last second
        now = time.monotonic()
        # kind -> [level, last refill time, capacity]
        self.quota = {k: [float(n), now, float(n)] for k, n in (("reads", args.hourly_reads),
                                                                ("writes", args.hourly_writes)) if n}

    def quota_take(self, kind):
        """(remaining, retry_after): one request of this kind taken from its bucket, or retry_after > 0."""
        b = self.quota.get(kind)
        if b is None:
            return None, 0
        now = time.monotonic()
        rate = b[2] / self.args.hour_seconds
        b[0] = min(b[2], b[0] + (now - b[1]) * rate)
        b[1] = now
        if b[0] < 1:
            return 0, max(1, int((1 - b[0]) / rate + 0.999))
        b[0] -= 1
        return int(b[0]), 0


def check_query(st, op, query):
    """Every query parameter known to the operation, the required ones present, integers where typed."""
    params = st.spec["queryParameters"][op]
    problems = []
    for name, values in query.items():
        if name == "$skipToken" and op in (F["op_list"], F["op_zones"]):
            continue  # the opaque token of a nextLink, written by this fake
        p = params.get(name)
        if p is None:
            problems.append("unknown query parameter %s" % name)
        elif p["type"] == "integer" and not values[0].isdigit():
            problems.append("%s is not an integer" % name)
    for name, p in params.items():
        if p["required"] and name not in query:
            problems.append("missing query parameter %s" % name)
    if query.get("api-version", [API])[0] != API:
        problems.append("api-version %s" % query["api-version"][0])
    return problems


def check_body(st, rtype, body):
    try:
        doc = json.loads(body)
    except ValueError as e:
        return None, ["not JSON: %s" % e]
    problems = [e.message for e in st.validator.iter_errors(doc)]
    props = doc.get("properties", {}) if isinstance(doc, dict) else {}
    for key in ("id", "name", "type", "etag"):
        if isinstance(doc, dict) and key in doc:
            problems.append("%s sent in a request body" % key)
    if isinstance(props, dict):
        for key in ("fqdn", "provisioningState"):
            if key in props:
                problems.append("read-only %s sent" % key)
        held = [k for k in RECORD_KEYS.values() if k in props]
        if held != [RECORD_KEYS[rtype]]:
            problems.append("a %s record set holding %s" % (rtype, held))
        if F["ttl"] not in props:
            problems.append("no %s" % F["ttl"])
    return doc, problems


def canon_values(rtype, props):
    v = props.get(RECORD_KEYS[rtype])
    return v if isinstance(v, list) else [v]


ERROR_SHAPE = "wrapped"
TXT_VALUE_MAX = 1024  # octets in one TXTRecords[].value[] string


def error(code, message):
    """An error body in the shape chosen (--error-shape)."""
    if ERROR_SHAPE == "bare":
        return {"code": code, "message": message}
    return {"error": {"code": code, "message": message}}


class Handler(fakehttp.Handler):
    server_version = "fake_azure"
    state = None

    quota_header = None

    def reply(self, status, doc, headers=()):
        body = json.dumps(doc).encode() if doc is not None else b""
        if self.quota_header:
            headers = list(headers) + [self.quota_header]
        with LOCK:
            s = self.state.stats["status"]
            s[str(status)] = s.get(str(status), 0) + 1
        ctype = "application/json; charset=utf-8" if doc is not None else None
        self.send_bytes(status, body, ctype, [("x-ms-request-id", str(uuid.uuid4()))] + list(headers))

    def dispatch(self, method):
        url = urllib.parse.urlsplit(self.path)
        parts = [urllib.parse.unquote(p) for p in url.path.split("/")[1:]]
        query = urllib.parse.parse_qs(url.query, keep_blank_values=True)
        body = self.body()
        if parts[:1] == ["_fake"]:
            return self.fake_api(method, parts[1:], body)
        if parts[:4] == ["metadata", "identity", "oauth2", "token"]:
            return self.imds(query)
        if len(parts) == 4 and parts[1:] == ["oauth2", "v2.0", "token"] and method == "POST":
            return self.token(parts[0], body)
        with LOCK:
            self.state.stats["requests"] += 1
            self.state.in_flight += 1
            self.state.stats["max_in_flight"] = max(self.state.stats["max_in_flight"], self.state.in_flight)
            now, recent = time.monotonic(), self.state.recent
            recent.append(now)
            while recent[0] <= now - 1.0:
                recent.popleft()
            self.state.stats["max_per_second"] = max(self.state.stats["max_per_second"], len(recent))
        self.quota_header = None
        try:
            if self.authorised() and self.quota(method):
                self.api(method, url, parts, query, body)
        finally:
            with LOCK:
                self.state.in_flight -= 1

    def quota(self, method):
        kind = "reads" if method == "GET" else "writes"
        with LOCK:
            remaining, retry = self.state.quota_take(kind)
            if retry:
                self.state.stats["quota_429"] += 1
        if remaining is None:
            return True
        self.quota_header = ("x-ms-ratelimit-remaining-subscription-" + kind, str(remaining))
        if retry:
            self.reply(429, error("TooManyRequests", "The subscription's %s quota is spent." % kind),
                       [("Retry-After", str(retry))])
            return False
        return True

    def api(self, method, url, parts, query, body):
        if self.state.args.latency:
            time.sleep(self.state.args.latency / 1000.0)
        if len(parts) < 6 or parts[0] != "subscriptions" or parts[2] != "resourceGroups" or \
                parts[4:6] != ["providers", "Microsoft.Network"]:
            return self.reply(404, error("InvalidResourceType", "no such resource"))
        if parts[1] != self.state.args.subscription:
            return self.reply(404, error("SubscriptionNotFound", "The subscription '%s' could not be found." % parts[1]))
        if parts[3].lower() != self.state.args.resource_group.lower():
            return self.reply(404, error("ResourceGroupNotFound",
                                         "Resource group '%s' could not be found." % parts[3]))
        rest = parts[6:]
        if rest == [F["zones"]] and method == "GET":
            return self.list_zones(query)
        if len(rest) >= 2 and rest[0] == F["zones"] and rest[1] not in self.state.zones:
            return self.reply(404, error("ParentResourceNotFound", "The Resource 'Microsoft.Network/%s/%s' under "
                                         "resource group '%s' was not found." % (F["zones"], rest[1], parts[3])))
        if len(rest) == 3 and rest[0] == F["zones"] and rest[2] == F["listing"] and method == "GET":
            return self.list_rrsets(rest[1], query)
        if len(rest) == 4 and rest[0] == F["zones"] and rest[2] in RECORD_KEYS and method == "GET":
            return self.get_rrset(rest[1], rest[2], rest[3].lower(), query)
        if len(rest) == 4 and rest[0] == F["zones"] and rest[2] in RECORD_KEYS and method in ("PUT", "DELETE"):
            return self.write(method, rest[1], rest[2], rest[3].lower(), query, body)
        return self.reply(400, error("BadRequest", "no such operation %s %s" % (method, url.path)))

    def bad(self, problems):
        with LOCK:
            self.state.stats["bad_schema"] += 1
            self.state.stats["schema_errors"].append(problems[:3])
        self.reply(400, error("InvalidRequestContent", "; ".join(problems)))

    # ---- auth ----

    def authorised(self):
        h = self.headers.get("Authorization", "")
        until = self.state.tokens.get(h[7:]) if h.startswith("Bearer ") else None
        if until is not None and time.monotonic() >= until:
            with LOCK:
                self.state.stats["expired"] += 1
            self.reply(401, error("ExpiredAuthenticationToken", "The access token expiry UTC time is earlier than "
                                  "current UTC time."))
            return False
        if until is not None:
            if self.state.args.forbidden:
                self.reply(403, error("AuthorizationFailed", "The client does not have authorization to perform "
                                      "action 'Microsoft.Network/dnszones/read'."))
                return False
            return True
        with LOCK:
            self.state.stats["bad_auth"] += 1
        self.reply(401, error("InvalidAuthenticationToken", "The access token is invalid."))
        return False

    def issue(self, kind):
        tok = "tok-" + uuid.uuid4().hex
        valid = self.state.args.token_valid or self.state.args.token_lifetime
        with LOCK:
            self.state.tokens[tok] = time.monotonic() + valid
            self.state.stats["tokens"] += 1
            k = self.state.stats["token_kinds"]
            k[kind] = k.get(kind, 0) + 1
        return tok

    def token_down(self):
        """Is this token request one --token-fail names? Then it is answered 500."""
        with LOCK:
            self.state.stats["token_requests"] += 1
            down = self.state.stats["token_requests"] in self.state.args.token_fail
            if down:
                self.state.stats["token_failed"] += 1
        if down:
            self.reply(500, {"error": "temporarily_unavailable", "error_description": "AADSTS90033: A transient "
                             "error has occurred. Please try again."})
        return down

    def token(self, tenant, body):
        a = self.state.args
        if self.token_down():
            return
        form = urllib.parse.parse_qs(body.decode(), keep_blank_values=True)
        f = {k: v[0] for k, v in form.items()}
        ok_common = tenant == a.tenant and f.get("grant_type") == "client_credentials" and \
            f.get("client_id") == a.client_id and f.get("scope") == "https://management.azure.com/.default"
        kind = None
        if ok_common and a.client_secret and f.get("client_secret") == a.client_secret:
            kind = "secret"
        elif ok_common and a.federated_token and f.get("client_assertion") == a.federated_token and \
                f.get("client_assertion_type") == "urn:ietf:params:oauth:client-assertion-type:jwt-bearer":
            kind = "workload"
        if kind is None:
            return self.reply(401, {"error": "invalid_client", "error_description": "AADSTS7000215: Invalid client."})
        self.reply(200, {"token_type": "Bearer", "expires_in": self.state.args.token_lifetime,
                         "access_token": self.issue(kind)})

    def imds(self, query):
        a = self.state.args
        if self.token_down():
            return
        q = {k: v[0] for k, v in query.items()}
        if self.headers.get("Metadata") != "true" or not a.imds or q.get("resource") != "https://management.azure.com/" \
                or q.get("api-version") != "2018-02-01" or q.get("client_id", "") != a.imds_client_id:
            return self.reply(400, {"error": "invalid_request", "error_description": "Identity not found"})
        self.reply(200, {"access_token": self.issue("imds"), "expires_in": str(a.token_lifetime),
                         "token_type": "Bearer", "resource": q["resource"]})

    # ---- zones and record sets ----

    def base(self):
        a = self.state.args
        return "https://127.0.0.1:%d/subscriptions/%s/resourceGroups/%s/providers/Microsoft.Network/%s" % (
            self.server.server_address[1], a.subscription, a.resource_group, F["zones"])

    def list_zones(self, query):
        problems = check_query(self.state, F["op_zones"], query)
        if problems:
            return self.bad(problems)
        with LOCK:
            self.state.stats["zone_lists"] += 1
            value = [{"id": "/x/%s/%s" % (F["zones"], z), "name": z, "type": "Microsoft.Network/" + F["zones"],
                      "location": "global",
                      "properties": {"numberOfRecordSets": len(r)}} for z, r in sorted(self.state.zones.items())]
        self.reply(200, {"value": value})

    def rrset_doc(self, zone, key, rs):
        name, rtype = key
        props = dict(rs["props"])
        props["fqdn"] = (zone + ".") if name == "@" else "%s.%s." % (name, zone)
        if F is Flavour.PRIVATE:
            props.setdefault("isAutoRegistered", False)
        else:
            props["provisioningState"] = "Succeeded"
        return {"id": "%s/%s/%s/%s" % (self.base(), zone, rtype, name), "name": name,
                "type": F["type_prefix"] + rtype, "etag": rs["etag"], "properties": props}

    def list_rrsets(self, zone, query):
        problems = check_query(self.state, F["op_list"], query)
        if problems:
            return self.bad(problems)
        top = int(query.get("$top", ["100"])[0])
        size = min(top, self.state.args.page_size)
        skip = int(query.get("$skipToken", ["0"])[0])
        with LOCK:
            self.state.stats["lists"] += 1
            keys = sorted(self.state.zones[zone])
            value = [self.rrset_doc(zone, k, self.state.zones[zone][k]) for k in keys[skip:skip + size]]
        doc = {"value": value}
        if skip + size < len(keys):
            doc["nextLink"] = "%s/%s/%s?api-version=%s&$top=%d&$skipToken=%d" % (
                self.base(), zone, F["listing"], API, top, skip + size)
        self.reply(200, doc)

    def get_rrset(self, zone, rtype, name, query):
        problems = check_query(self.state, "RecordSets_Get", query)
        if problems:
            return self.bad(problems)
        with LOCK:
            self.state.stats["gets"] += 1
            rs = self.state.zones[zone].get((name, rtype))
            doc = self.rrset_doc(zone, (name, rtype), rs) if rs else None
        if doc is None:
            return self.reply(404, error("NotFound", "The resource record '%s' does not exist in resource group '%s' "
                                         "of subscription '%s'." % (name, self.state.args.resource_group,
                                                                    self.state.args.subscription)))
        self.reply(200, doc)

    def write(self, method, zone, rtype, name, query, body):
        op = "RecordSets_CreateOrUpdate" if method == "PUT" else "RecordSets_Delete"
        problems = check_query(self.state, op, query)
        for h in ("If-Match", "If-None-Match"):
            if self.headers.get(h) is not None and h not in self.state.spec["headers"][op]:
                problems.append("header %s on %s" % (h, op))
        doc = None
        if method == "PUT":
            doc, more = check_body(self.state, rtype, body)
            problems += more
        elif body:
            problems.append("a body on DELETE")
        if problems:
            return self.bad(problems)
        with LOCK:
            self.state.stats["writes"] += 1
            fault = self.state.faults.pop(0) if self.state.faults else "ok"
        if fault == "delay":
            time.sleep(self.state.args.fault_delay / 1000.0)
        if method == "PUT" and rtype == "TXT" and self.txt_too_long(doc):
            return
        self.write_locked(method, zone, rtype, name, doc, fault)

    def txt_too_long(self, doc):
        """A TXT value[] string over Azure's limit: refused as Azure does (400), nothing written."""
        values = [v for r in doc["properties"].get(RECORD_KEYS["TXT"], []) for v in r.get("value", [])]
        longest = max([len(v.encode()) for v in values] or [0])
        if longest <= TXT_VALUE_MAX:
            return False
        with LOCK:
            self.state.stats["txt_too_long"] += 1
        self.reply(400, error("BadRequest", "The length of a TXT record value string (%d) exceeds the maximum "
                              "of %d characters." % (longest, TXT_VALUE_MAX)))
        return True

    def write_locked(self, method, zone, rtype, name, doc, fault):
        if fault == "429":
            return self.reply(429, error("TooManyRequests", "throttled"),
                              [("Retry-After", str(self.state.args.fault_retry_after))])
        if fault == "502before":
            return self.reply(502, error("BadGateway", "scripted failure before commit"))
        if fault == "refuse":
            return self.reply(400, error("BadRequest", "The record set %s/%s was refused (scripted)." % (rtype, name)))
        key = (name, rtype)
        with LOCK:
            records = self.state.zones[zone]
            if fault == "race" and key in records:
                props = dict(records[key]["props"])
                props[F["ttl"]] = props.get(F["ttl"], 0) + 1
                records[key] = {"props": props, "etag": str(uuid.uuid4())}
            held = records.get(key)
            if_match, if_none = self.headers.get("If-Match"), self.headers.get("If-None-Match")
            failed = None
            if if_none == "*" and held is not None:
                failed = "The Record set %s exists already and hence cannot be created again." % name
            elif if_match is not None and (held is None or (if_match != "*" and if_match != held["etag"])):
                failed = "The Record set %s has been modified (etag mismatch)." % name
            if failed:
                self.state.stats["precondition_failed"] += 1
            elif method == "PUT" and self.cname_clash(records, name, rtype):
                failed = "cname"
            elif method == "PUT":
                records[key] = {"props": doc["properties"], "etag": str(uuid.uuid4())}
                out = self.rrset_doc(zone, key, records[key])
            else:
                records.pop(key, None)
        if failed == "cname":
            return self.reply(409, error("Conflict", "The record set could not be created because a CNAME record "
                                         "set and another record set cannot share the name %s." % name))
        if failed:
            return self.reply(412, error("PreconditionFailed", failed))
        if fault in ("500after", "502after"):
            return self.reply(int(fault[:3]), error("InternalServerError", "scripted failure after commit"))
        if method == "PUT":
            return self.reply(201 if held is None else 200, out, [("ETag", out["etag"])])
        self.reply(200 if held is not None else 204, None)

    @staticmethod
    def cname_clash(records, name, rtype):
        others = [t for (n, t) in records if n == name and t != rtype]
        return bool(others) and (rtype == "CNAME" or "CNAME" in others)

    # ---- the test's view ----

    def fake_api(self, method, parts, body):
        st = self.state
        if parts == ["stats"]:
            with LOCK:
                return self.reply(200, st.stats)
        if len(parts) == 2 and parts[0] == "zone" and parts[1] in st.zones:
            with LOCK:
                lines = []
                for (name, rtype), rs in sorted(st.zones[parts[1]].items()):
                    lines.append({"name": name, "type": rtype, "ttl": rs["props"].get(F["ttl"]),
                                  "records": canon_values(rtype, rs["props"]), "etag": rs["etag"]})
            return self.reply(200, {"rrsets": lines})
        if len(parts) >= 2 and parts[0] == "fault" and method == "POST":
            with LOCK:
                st.faults += parts[1:]
            return self.reply(200, {"faults": st.faults})
        if len(parts) == 4 and parts[0] == "put" and method == "POST" and parts[1] in st.zones:
            with LOCK:
                st.zones[parts[1]][(parts[3].lower(), parts[2])] = {"props": json.loads(body)["properties"],
                                                                   "etag": str(uuid.uuid4())}
            return self.reply(200, {})
        self.reply(404, error("NotFound", "no such fake endpoint"))


def seed(st, path):
    """Lines "ZONE NAME TYPE JSON-PROPERTIES"."""
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            zone, name, rtype, props = line.split(None, 3)
            st.zones[zone][(name.lower(), rtype)] = {"props": json.loads(props), "etag": str(uuid.uuid4())}


def record_of(rtype, rdata):
    """One record's Azure fields from presentation RDATA (of the simple forms the example zone holds)."""
    if "\\" in rdata:
        raise ValueError("escapes are not read here: %s" % rdata)
    f = shlex.split(rdata) if rtype in ("TXT", "CAA") else rdata.split()
    name = lambda v: v.rstrip(".")  # noqa: E731
    return {"A": lambda: {"ipv4Address": f[0]}, "AAAA": lambda: {"ipv6Address": f[0]},
            "CNAME": lambda: {"cname": name(f[0])}, "NS": lambda: {"nsdname": name(f[0])},
            "PTR": lambda: {"ptrdname": name(f[0])}, "MX": lambda: {"preference": int(f[0]), "exchange": name(f[1])},
            "SRV": lambda: {"priority": int(f[0]), "weight": int(f[1]), "port": int(f[2]), "target": name(f[3])},
            "TXT": lambda: {"value": f}, "CAA": lambda: {"flags": int(f[0]), "tag": f[1], "value": f[2]}}[rtype]()


def seed_records(st, path):
    """Lines "ZONE OWNER TTL TYPE RDATA" (OWNER absolute), as `dnsbatch records` prints them."""
    for zone, owner, ttl, rtype, rdata in fakehttp.seed_lines(path):
        owner = owner.rstrip(".").lower()
        name = "@" if owner == zone else owner[:-len(zone) - 1]
        if rtype not in RECORD_KEYS:
            continue  # a type the flavour does not hold (no NS or CAA in private zones)
        rs = st.zones[zone].setdefault((name, rtype), {"props": {F["ttl"]: int(ttl)}, "etag": str(uuid.uuid4())})
        rec = record_of(rtype, rdata)
        if rtype == "CNAME":
            rs["props"][RECORD_KEYS["CNAME"]] = rec
        else:
            rs["props"].setdefault(RECORD_KEYS[rtype], []).append(rec)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    fakehttp.add_server_args(ap)
    ap.add_argument("--subscription", default="sub-0001")
    ap.add_argument("--resource-group", default="rg-dns")
    ap.add_argument("--zone", action="append", default=[], help="a zone name (example.com)")
    ap.add_argument("--seed", help='file of "ZONE NAME TYPE {properties}" lines')
    ap.add_argument("--seed-records", help='file of "ZONE OWNER TTL TYPE RDATA" lines')
    ap.add_argument("--tenant", default="tenant-0001")
    ap.add_argument("--client-id", default="client-0001")
    ap.add_argument("--client-secret", default="")
    ap.add_argument("--federated-token", default="")
    ap.add_argument("--imds", action="store_true", help="answer IMDS token requests")
    ap.add_argument("--imds-client-id", default="", help="the user-assigned identity IMDS requests must name")
    ap.add_argument("--token-lifetime", type=int, default=3600, help="the expires_in of a token reply, seconds")
    ap.add_argument("--token-valid", type=float, default=0,
                    help="seconds a token is honoured (default: its lifetime; less: revoked early)")
    ap.add_argument("--private", action="store_true", help="serve privateDnsZones (api-version 2018-09-01)")
    ap.add_argument("--hourly-reads", type=int, default=0, help="the subscription's reads per hour (0: no quota)")
    ap.add_argument("--hourly-writes", type=int, default=0, help="the subscription's writes per hour (0: no quota)")
    ap.add_argument("--hour-seconds", type=float, default=3600, help="how long the quota's hour lasts")
    ap.add_argument("--forbidden", action="store_true", help="every token is refused 403 by the API")
    ap.add_argument("--fault", action="append", default=[], help="KIND or KIND*N, in order")
    ap.add_argument("--fault-retry-after", type=int, default=1, help="seconds: the Retry-After of a 429 fault")
    ap.add_argument("--fault-delay", type=float, default=1000, help="milliseconds a delay fault waits")
    ap.add_argument("--error-shape", choices=("wrapped", "bare"), default="wrapped",
                    help='API error bodies as {"error": {"code", "message"}} or {"code", "message"}')
    ap.add_argument("--token-fail", type=int, action="append", default=[],
                    help="the N-th token request (from 1) is answered 500; repeatable")
    ap.add_argument("--page-size", type=int, default=3)
    ap.add_argument("--latency", type=float, default=0, help="milliseconds before each API reply")
    args = ap.parse_args()

    global F, SPEC_FILE, API, RECORD_KEYS, ERROR_SHAPE
    F = Flavour.PRIVATE if args.private else Flavour.PUBLIC
    ERROR_SHAPE = args.error_shape
    SPEC_FILE, API, RECORD_KEYS = os.path.join(HERE, F["spec"]), F["api"], F["keys"]
    st = State(args)
    soa = {"host": "ns1-01.azure-dns.com.", "email": "azuredns-hostmaster.microsoft.com", "serialNumber": 1,
           "refreshTime": 3600, "retryTime": 300, "expireTime": 2419200,
           ("minimumTtl" if args.private else "minimumTTL"): 300}
    for z in args.zone:
        st.zones[z] = {("@", "SOA"): {"props": {F["ttl"]: 3600, RECORD_KEYS["SOA"]: soa}, "etag": str(uuid.uuid4())}}
    st.faults += fakehttp.faults(args.fault)
    if args.seed:
        seed(st, args.seed)
    if args.seed_records:
        seed_records(st, args.seed_records)
    Handler.state = st
    # The handshake in the connection's own thread: one slow or silent client does not stall accept().
    return fakehttp.serve(Handler, args, lazy_handshake=True, queue_size=128)


if __name__ == "__main__":
    sys.exit(main())
