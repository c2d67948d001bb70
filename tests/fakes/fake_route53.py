#!/usr/bin/env python3
"""fake_route53.py - a Route53 (2013-04-01) server over HTTPS for the aws provider's tests.

Python, unlike the Cloud DNS fake: every request is checked with AWS's own
code, and that code is botocore (Debian python3-botocore), so the fake runs
where botocore runs. Its SigV4 signature is recomputed with
botocore.auth.SigV4Auth from the headers the client says it signed, and a
ChangeResourceRecordSets body is validated against botocore's route53
service model (element names, order, required members, enums, ranges): a
signing or schema mistake is refused (403 SignatureDoesNotMatch, 400
InvalidInput) and counted, so the test fails. The fake's own replies are
checked against the model's output shapes too (counted as bad_reply).

Zones are created as Route53 creates them, an SOA and NS at the apex.
Serves: ChangeResourceRecordSets (atomic; DELETE must match TTL and values,
or an alias's AliasTarget; CNAME exclusivity, none at the apex; an alias's
target checked as Route53 checks it: in the zone its HostedZoneId names, one
of a few AWS-owned zones or a zone of the fake's, where the target must
exist, and no CloudFront target evaluating health; values checked (A, AAAA,
quoted TXT); the real InvalidChangeBatch message texts, every failing change
in one reply; the 1000-record and 32,000-character limits as AWS counts
them: fake_route53_rules.py), GetChange (PENDING for --insync-after polls of
each change, then INSYNC), GetHostedZone, ListHostedZones (Marker always; an
unknown marker refused) and ListResourceRecordSets (small pages, names
escaped with \\052 for '*'), STS AssumeRoleWithWebIdentity, a container-credentials
endpoint and IMDSv2, all on one port. Scripted faults on
ChangeResourceRecordSets, one per request in order (--fault KIND[*N]):
throttle, prior (PriorRequestNotComplete), 500 (before commit), 502after
(commit, then 502), expired (the request's credentials expire now).
With --policy FILE (an IAM policy document), each Route53 operation is
allowed only when an Allow statement names its action (route53:Name, * and
? globs) and a resource matching its ARN, as IAM evaluates them (Deny
statements and conditions are not modelled); otherwise 403 AccessDenied,
counted as "denied".
Unsigned test hooks: GET /_fake/stats, GET /_fake/zone/ID.
"""
import copy
import argparse
import datetime
import fnmatch
import json
import secrets
import sys
import threading
import time
import urllib.parse
import xml.etree.ElementTree as ET

import fakehttp

import botocore.loaders
from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials

import fake_route53_rules as rules

NS = "https://route53.amazonaws.com/doc/2013-04-01/"
STS_NS = "https://sts.amazonaws.com/doc/2011-06-15/"
MODEL = botocore.loaders.Loader().load_service_model("route53", "service-2")
LOCK = threading.Lock()


def q(tag):
    return "{%s}%s" % (NS, tag)


# ---- the model check ----------------------------------------------------------------------------

def validate(elem, shape_name, path):
    """Check an element against a botocore shape; return a list of problems."""
    shape = MODEL["shapes"][shape_name]
    kind = shape["type"]
    text = (elem.text or "").strip()
    if kind == "structure":
        members = [(name, m) for name, m in shape["members"].items() if "location" not in m]
        order = {m.get("locationName", name): (i, name, m) for i, (name, m) in enumerate(members)}
        problems, last, seen = [], -1, set()
        for child in elem:
            tag = child.tag.split("}", 1)[-1]
            if tag not in order:
                problems.append("%s: %s is not a member of %s" % (path, tag, shape_name))
                continue
            i, name, m = order[tag]
            if i < last or (i == last and MODEL["shapes"][m["shape"]]["type"] != "list"):
                problems.append("%s: %s out of the model's order" % (path, tag))
            last = i
            seen.add(name)
            problems += validate(child, m["shape"], path + "/" + tag)
        for req in shape.get("required", []):
            if req not in seen and "location" not in shape["members"][req]:
                problems.append("%s: required %s missing" % (path, req))
        return problems
    if kind == "list":
        member = shape["member"]
        tag = member.get("locationName", "member")
        items = list(elem)
        problems = ["%s: %s where %s was expected" % (path, c.tag.split("}", 1)[-1], tag)
                    for c in items if c.tag.split("}", 1)[-1] != tag]
        if len(items) < shape.get("min", 0):
            problems.append("%s: fewer than %d items" % (path, shape["min"]))
        for k, c in enumerate(items):
            problems += validate(c, member["shape"], "%s/%s[%d]" % (path, tag, k))
        return problems
    if kind == "string":
        if "enum" in shape and text not in shape["enum"]:
            return ["%s: %r is not one of %s" % (path, text, shape_name)]
        if len(text) < shape.get("min", 0) or len(text) > shape.get("max", 1 << 30):
            return ["%s: length %d outside %s's bounds" % (path, len(text), shape_name)]
        return []
    if kind in ("long", "integer"):
        try:
            v = int(text)
        except ValueError:
            return ["%s: %r is not an integer" % (path, text)]
        if v < shape.get("min", -(1 << 63)) or v > shape.get("max", 1 << 63):
            return ["%s: %d out of range" % (path, v)]
        return []
    if kind == "boolean":
        return [] if text in ("true", "false") else ["%s: %r is not a boolean" % (path, text)]
    return []


def reply_problems(root, op):
    """The fake's own reply against the operation's output shape in botocore's model (required members, order)."""
    out = MODEL["operations"][op]["output"]
    return validate(root, out["shape"], root.tag.split("}")[-1])


def validate_request(body):
    op = MODEL["operations"]["ChangeResourceRecordSets"]["input"]
    try:
        root = ET.fromstring(body)
    except ET.ParseError as e:
        return None, ["not XML: %s" % e]
    want = "{%s}%s" % (op["xmlNamespace"]["uri"], op["locationName"])
    if root.tag != want:
        return None, ["root %s, expected %s" % (root.tag, want)]
    return root, validate(root, op["shape"], op["locationName"])


# ---- the zone data ------------------------------------------------------------------------------

def canon(name):
    name = name.replace("\\052", "*").lower()
    return name if name.endswith(".") else name + "."


def escaped(name):
    return name.replace("*", "\\052")


def order_key(name, rtype, sid=""):
    return (".".join(reversed(name.rstrip(".").split("."))), rtype, sid)


# A ResourceRecordSet's routing elements (SetIdentifier ... MultiValueAnswer before TTL; HealthCheckId after),
# kept as XML text in the request's order (the model's, checked by validate_request) to be listed back as sent.
ROUTING_HEAD = ("SetIdentifier", "Weight", "Region", "GeoLocation", "Failover", "MultiValueAnswer")
ROUTING_TAIL = ("HealthCheckId", "CidrRoutingConfig", "GeoProximityLocation")


def bare(e):
    """An element's XML text without the request's namespace (the reply declares it on its root)."""
    e = copy.deepcopy(e)
    for d in e.iter():
        d.tag = d.tag.split("}")[-1]
    return ET.tostring(e, encoding="unicode")


def routing_of(rs):
    head = [bare(e) for e in rs if e.tag.split("}")[-1] in ROUTING_HEAD]
    tail = [bare(e) for e in rs if e.tag.split("}")[-1] in ROUTING_TAIL]
    return (head, tail) if head or tail else None


def in_zone(name, apex):
    return name == apex or name.endswith("." + apex)


# AWS-owned hosted zones an alias may target (id -> apex), as AWS's General Reference lists them.
AWS_ZONES = {
    "Z35SXDOTRQ7X7K": "us-east-1.elb.amazonaws.com.",   # Application and Classic Load Balancers, us-east-1
    "Z26RNL4JYFTOTI": "elb.us-east-1.amazonaws.com.",   # Network Load Balancers, us-east-1
    "Z32O12XQLNTSW2": "eu-west-1.elb.amazonaws.com.",   # Application and Classic Load Balancers, eu-west-1
    "Z2FDTNDATAQYW2": "cloudfront.net.",                # CloudFront
    "Z2BJ6XQ5FK7U4H": "awsglobalaccelerator.com.",      # Global Accelerator
}


def rrset_copy(rr):
    return dict(rr, values=list(rr["values"]))


def stored(ttl, values, alias, routing):
    rr = {"ttl": None, "values": [], "alias": alias} if alias else {"ttl": ttl, "values": values}
    if routing:
        rr["routing"] = routing
    return rr


class State:
    def __init__(self, args):
        self.args = args
        # id -> {"apex", "private", "rrsets": {(name, type): {"ttl", "values"[, "alias": {"zone", "dns", "health"}]}}};
        # an alias has ttl None and no values
        self.zones = {}
        self.keys = {}   # access key -> {"secret", "token", "expires"}
        self.faults = []
        self.stats = {k: 0 for k in ("requests", "api_requests", "changes", "changes_ok", "refused_conflict",
                                     "bad_signature", "bad_schema", "creds_issued", "expired_refused",
                                     "signed_multi_param", "list_rrsets", "list_zones", "throttled", "connections",
                                     "get_change", "get_change_pending", "denied", "refused_limit", "bad_reply")}
        self.problems = []
        self.change_ids = 0
        self.policy = None
        self.polls = {}  # change id -> GetChange requests so far
        # The account's token bucket (--account-rate): every API request of every client takes one.
        self.bucket = {"tokens": args.account_burst, "at": time.monotonic()}
        self.stats.update(admitted=0, first_admitted=0.0, last_admitted=0.0)

    def take_token(self):
        """Route53's account-wide limit: False when the bucket is empty (the caller answers Throttling)."""
        rate = self.args.account_rate
        if rate <= 0:
            return True
        now = time.monotonic()
        b = self.bucket
        b["tokens"] = min(self.args.account_burst, b["tokens"] + (now - b["at"]) * rate)
        b["at"] = now
        if b["tokens"] < 1:
            return False
        b["tokens"] -= 1
        self.stats["admitted"] += 1
        self.stats["first_admitted"] = self.stats["first_admitted"] or now
        self.stats["last_admitted"] = now
        return True


def seed(state, path):
    """Seed lines add RRsets; the apex's SOA or NS in a seed replaces the one the zone was created with."""
    fresh = set()
    for zid, name, ttl, rtype, value in fakehttp.seed_lines(path):
        key = (canon(name), rtype)
        if key not in fresh:
            state.zones[zid]["rrsets"].pop(key, None)
            fresh.add(key)
        rr = state.zones[zid]["rrsets"].setdefault(key, {"ttl": int(ttl), "values": []})
        rr["values"].append(value)


def alias_problem(state, zone, rrsets, rtype, alias):
    """Route53's check of a new alias's target; None when it passes."""
    target, zid = alias["dns"], alias["zone"]
    head = "Tried to create an alias that targets %s, type %s in zone %s" % (escaped(target), rtype, zid)
    own = state.zones.get(zid)
    apex = AWS_ZONES.get(zid) or (own["apex"] if own else None)
    if apex is None or not in_zone(target, apex) or target == apex and own is None:
        return head + ", but the alias target name does not lie within the target zone"
    held = rrsets if own is zone else own["rrsets"] if own else None
    if held is not None and (target, rtype) not in held:
        return head + ", but that target was not found"
    return None


def same_rrset(held, ttl, values, alias, routing=None):
    if held.get("routing") != routing:
        return False
    if alias or held.get("alias"):
        return held.get("alias") == alias
    return held["ttl"] == ttl and sorted(held["values"]) == sorted(values)


def messages_for(state, zone, changes):
    """Apply changes to a copy of the zone; return (new rrsets, messages)."""
    rrsets = {k: rrset_copy(v) for k, v in zone["rrsets"].items()}
    msgs = []
    for action, name, rtype, ttl, values, shown, alias, sid, routing in changes:
        key = (name, rtype, sid) if sid else (name, rtype)
        label = ("[name='%s', type='%s', set-identifier='%s']" % (shown, rtype, sid) if sid else
                 "[name='%s', type='%s']" % (shown, rtype))
        if not (name == zone["apex"] or name.endswith("." + zone["apex"])):
            msgs.append("RRSet with DNS name %s is not permitted in zone %s" % (shown, zone["apex"]))
            continue
        bad = [p for p in (rules.value_problem(rtype, v) for v in values) if p]
        if bad:
            msgs += bad
            continue
        problem = action != "DELETE" and rules.rrset_problem(zone["apex"], name, rtype, shown, alias)
        if problem:
            msgs.append(problem)
            continue
        if action == "CREATE":
            if key in rrsets:
                msgs.append("Tried to create resource record set %s but it already exists" % label)
                continue
            others = [k[1] for k in rrsets if k[0] == name]
            if rtype == "CNAME" and others:
                msgs.append("RRSet of type CNAME with DNS name %s is not permitted as it conflicts with other "
                            "records with the same DNS name in zone %s" % (shown, zone["apex"]))
                continue
            if rtype != "CNAME" and "CNAME" in others:
                msgs.append("RRSet of type %s with DNS name %s is not permitted because a conflicting RRSet of "
                            "type  CNAME with the same DNS name already exists in zone %s." % (rtype, shown,
                                                                                             zone["apex"]))
                continue
            problem = alias and alias_problem(state, zone, rrsets, rtype, alias)
            if problem:
                msgs.append(problem)
                continue
            rrsets[key] = stored(ttl, values, alias, routing)
        elif action == "DELETE":
            held = rrsets.get(key)
            if held is None:
                msgs.append("Tried to delete resource record set %s but it was not found" % label)
            elif not same_rrset(held, ttl, values, alias, routing):
                msgs.append("Tried to delete resource record set %s but the values provided do not match the "
                            "current values" % label)
            else:
                del rrsets[key]
        else:  # UPSERT: accepted by the model, never sent by dnsbatch; counted as a problem
            state.problems.append("UPSERT sent for %s" % label)
            rrsets[key] = stored(ttl, values, alias, routing)
    return rrsets, msgs + rules.apex_problems(zone["apex"], rrsets)


# ---- XML replies --------------------------------------------------------------------------------

def xml_bytes(root):
    return b'<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="utf-8")


def element(parent, tag, text=None):
    e = ET.SubElement(parent, tag)
    if text is not None:
        e.text = str(text)
    return e


def error_xml(code, message):
    root = ET.Element("ErrorResponse", xmlns=NS)
    err = element(root, "Error")
    element(err, "Type", "Sender")
    element(err, "Code", code)
    element(err, "Message", message)
    element(root, "RequestId", secrets.token_hex(8))
    return xml_bytes(root)


def change_info(parent, cid, status="PENDING"):
    info = element(parent, "ChangeInfo")
    element(info, "Id", "/change/" + cid)
    element(info, "Status", status)
    element(info, "SubmittedAt", datetime.datetime.utcnow().strftime("%Y-%m-%dT%H:%M:%S.000Z"))


def zone_xml(parent, zid, zone, count):
    z = element(parent, "HostedZone")
    element(z, "Id", "/hostedzone/" + zid)
    element(z, "Name", zone["apex"])
    element(z, "CallerReference", zid)
    cfg = element(z, "Config")
    element(cfg, "PrivateZone", "true" if zone["private"] else "false")
    element(z, "ResourceRecordSetCount", count)


# ---- the handler --------------------------------------------------------------------------------

class Handler(fakehttp.Handler):
    server_version = "fake_route53"
    methods = ("GET", "POST", "PUT")
    state = None

    def setup(self):
        super().setup()
        with LOCK:
            self.state.stats["connections"] += 1

    def reply_xml(self, op, root):
        """A 200 reply of a Route53 operation, checked first against botocore's model of its output."""
        problems = reply_problems(root, op)
        if problems:
            self.state.stats["bad_reply"] += 1
            self.state.problems += problems[:3]
        return self.reply(200, xml_bytes(root))

    def reply(self, status, body, ctype="text/xml"):
        self.send_bytes(status, body, ctype, [("x-amzn-RequestId", secrets.token_hex(8))])

    # ---- SigV4 with botocore ----

    def check_signature(self, method, body):
        """None when the request is signed right; else (status, code, message)."""
        st = self.state
        auth = self.headers.get("Authorization", "")
        if not auth.startswith("AWS4-HMAC-SHA256 "):
            return 403, "MissingAuthenticationToken", "Missing Authentication Token"
        fields = dict(p.strip().split("=", 1) for p in auth[len("AWS4-HMAC-SHA256 "):].split(","))
        cred = fields.get("Credential", "").split("/")
        signed = fields.get("SignedHeaders", "").split(";")
        if len(cred) != 5 or cred[2:] != ["us-east-1", "route53", "aws4_request"]:
            return 403, "SignatureDoesNotMatch", "Credential should be scoped to us-east-1/route53"
        key = st.keys.get(cred[0])
        if key is None:
            return 403, "InvalidClientTokenId", "The security token included in the request is invalid."
        if key["token"] and self.headers.get("X-Amz-Security-Token") != key["token"]:
            return 403, "InvalidClientTokenId", "The security token included in the request is invalid."
        if key["expires"] and key["expires"] <= time.time():
            st.stats["expired_refused"] += 1
            return 403, "ExpiredToken", "The security token included in the request is expired"
        headers = {}
        for h in signed:
            if h != "host" and self.headers.get(h) is None:
                return 403, "SignatureDoesNotMatch", "a signed header is missing: %s" % h
            headers[h] = self.headers.get(h) if h != "host" else self.headers.get("Host")
        request = AWSRequest(method=method, url="https://%s%s" % (self.headers.get("Host"), self.path),
                             data=body, headers=headers)
        signer = SigV4Auth(Credentials(cred[0], key["secret"], key["token"]), "route53", "us-east-1")
        request.context["timestamp"] = self.headers.get("X-Amz-Date", "")
        canonical = signer.canonical_request(request)
        expected = signer.signature(signer.string_to_sign(request, canonical), request)
        if signer.signed_headers(signer.headers_to_sign(request)) != fields.get("SignedHeaders") or \
                expected != fields.get("Signature"):
            st.stats["bad_signature"] += 1
            st.problems.append("signature mismatch on %s %s; botocore's canonical request:\n%s" %
                               (method, self.path, canonical))
            return 403, "SignatureDoesNotMatch", ("The request signature we calculated does not match the "
                                                  "signature you provided.")
        if len(urllib.parse.urlsplit(self.path).query.split("&")) >= 2:
            st.stats["signed_multi_param"] += 1
        return None

    # ---- dispatch ----

    def dispatch(self, method):
        st = self.state
        body = self.body()
        url = urllib.parse.urlsplit(self.path)
        path = url.path
        query = dict(urllib.parse.parse_qsl(url.query, keep_blank_values=True))
        with LOCK:
            st.stats["requests"] += 1
            if path == "/_fake/stats":
                out = dict(st.stats, problems=st.problems[-5:])
                return self.reply(200, json.dumps(out).encode(), "application/json")
            if path.startswith("/_fake/zone/"):
                zone = st.zones.get(path.rsplit("/", 1)[1])
                rrsets = [dict({"name": k[0], "type": k[1], "ttl": v["ttl"], "values": sorted(v["values"])},
                               **({"alias": v["alias"]} if v.get("alias") else {}),
                               **({"set_id": k[2], "routing": v["routing"][0] + v["routing"][1]} if len(k) > 2 else {}))
                          for k, v in sorted(zone["rrsets"].items(), key=lambda kv: order_key(*kv[0]))]
                return self.reply(200, json.dumps({"rrsets": rrsets}).encode(), "application/json")
            if method == "POST" and path == "/":
                return self.sts(body)
            if path == "/_creds/container":
                return self.container()
            if path.startswith("/latest/"):
                return self.imds(method, path)
            if not path.startswith("/2013-04-01/"):
                return self.reply(404, error_xml("NotFound", "no such path"))
        if st.args.latency:
            time.sleep(st.args.latency / 1000.0)
        with LOCK:
            st.stats["api_requests"] += 1
            bad = self.check_signature(method, body)
            if bad:
                return self.reply(bad[0], error_xml(bad[1], bad[2]))
            parts = path.split("/")[2:]
            denied = self.check_policy(method, parts)
            if denied:
                st.stats["denied"] += 1
                return self.reply(403, error_xml("AccessDenied", denied))
            if not st.take_token():
                st.stats["throttled"] += 1
                return self.reply(400, error_xml("Throttling", "Rate exceeded"))
            if method == "POST" and len(parts) == 4 and parts[0] == "hostedzone" and parts[2] == "rrset":
                return self.change(parts[1], body)
            if method == "GET" and parts == ["hostedzone"]:
                return self.list_zones(query)
            if method == "GET" and len(parts) == 2 and parts[0] == "hostedzone":
                return self.get_zone(parts[1])
            if method == "GET" and len(parts) == 3 and parts[0] == "hostedzone" and parts[2] == "rrset":
                return self.list_rrsets(parts[1], query)
            if method == "GET" and len(parts) == 2 and parts[0] == "change":
                return self.get_change(parts[1])
            return self.reply(400, error_xml("InvalidInput", "unknown operation %s %s" % (method, path)))

    # ---- IAM ----

    def check_policy(self, method, parts):
        """None when --policy allows the operation (or there is no policy); else AccessDenied's message."""
        policy = self.state.policy
        if policy is None:
            return None
        if method == "POST" and len(parts) == 4 and parts[0] == "hostedzone":
            action, arn = "ChangeResourceRecordSets", "arn:aws:route53:::hostedzone/" + parts[1]
        elif method == "GET" and len(parts) == 3 and parts[0] == "hostedzone":
            action, arn = "ListResourceRecordSets", "arn:aws:route53:::hostedzone/" + parts[1]
        elif method == "GET" and len(parts) == 2 and parts[0] == "hostedzone":
            action, arn = "GetHostedZone", "arn:aws:route53:::hostedzone/" + parts[1]
        elif method == "GET" and parts == ["hostedzone"]:
            action, arn = "ListHostedZones", "*"
        elif method == "GET" and len(parts) == 2 and parts[0] == "change":
            action, arn = "GetChange", "arn:aws:route53:::change/" + parts[1]
        else:
            return None
        for stmt in policy.get("Statement", []):
            actions = stmt.get("Action", [])
            resources = stmt.get("Resource", [])
            actions = [actions] if isinstance(actions, str) else actions
            resources = [resources] if isinstance(resources, str) else resources
            if stmt.get("Effect") == "Allow" and \
                    any(fnmatch.fnmatchcase("route53:" + action, a) for a in actions) and \
                    any(r == "*" or fnmatch.fnmatchcase(arn, r) for r in resources):
                return None
        return "User: arn:aws:sts::123456789012:assumed-role/dnsbatch is not authorized to perform: " \
               "route53:%s on resource: %s" % (action, arn)

    # ---- credentials ----

    def issue(self):
        st = self.state
        akid = "ASIA" + secrets.token_hex(8).upper()
        key = {"secret": secrets.token_urlsafe(30), "token": secrets.token_urlsafe(60),
               "expires": time.time() + st.args.temp_lifetime}
        st.keys[akid] = key
        st.stats["creds_issued"] += 1
        exp = datetime.datetime.utcfromtimestamp(key["expires"]).strftime("%Y-%m-%dT%H:%M:%SZ")
        return akid, key, exp

    def sts(self, body):
        form = dict(urllib.parse.parse_qsl(body.decode()))
        if form.get("Action") != "AssumeRoleWithWebIdentity" or form.get("Version") != "2011-06-15" or \
                form.get("RoleArn") != self.state.args.role_arn or not form.get("RoleSessionName"):
            return self.reply(400, error_xml("InvalidParameterValue", "bad AssumeRoleWithWebIdentity parameters"))
        if form.get("WebIdentityToken") != self.state.args.web_token:
            return self.reply(400, error_xml("InvalidIdentityToken", "Couldn't retrieve verification key"))
        akid, key, exp = self.issue()
        root = ET.Element("AssumeRoleWithWebIdentityResponse", xmlns=STS_NS)
        result = element(root, "AssumeRoleWithWebIdentityResult")
        creds = element(result, "Credentials")
        element(creds, "AccessKeyId", akid)
        element(creds, "SecretAccessKey", key["secret"])
        element(creds, "SessionToken", key["token"])
        element(creds, "Expiration", exp)
        return self.reply(200, xml_bytes(root))

    def container(self):
        if self.headers.get("Authorization") != self.state.args.container_token:
            return self.reply(401, b'{"message": "unauthorized"}', "application/json")
        akid, key, exp = self.issue()
        doc = {"AccessKeyId": akid, "SecretAccessKey": key["secret"], "Token": key["token"], "Expiration": exp}
        return self.reply(200, json.dumps(doc).encode(), "application/json")

    def imds(self, method, path):
        if method == "PUT" and path == "/latest/api/token":
            if not self.headers.get("X-aws-ec2-metadata-token-ttl-seconds"):
                return self.reply(400, b"missing ttl", "text/plain")
            return self.reply(200, b"imds-session-token", "text/plain")
        if self.headers.get("X-aws-ec2-metadata-token") != "imds-session-token":
            return self.reply(401, b"", "text/plain")
        if path == "/latest/meta-data/iam/security-credentials/":
            return self.reply(200, b"dnsbatch-role", "text/plain")
        if path == "/latest/meta-data/iam/security-credentials/dnsbatch-role":
            akid, key, exp = self.issue()
            doc = {"Code": "Success", "AccessKeyId": akid, "SecretAccessKey": key["secret"], "Token": key["token"],
                   "Expiration": exp}
            return self.reply(200, json.dumps(doc).encode(), "application/json")
        return self.reply(404, b"", "text/plain")

    # ---- Route53 ----

    def change(self, zid, body):
        st = self.state
        zone = st.zones.get(zid)
        if zone is None:
            return self.reply(404, error_xml("NoSuchHostedZone", "No hosted zone found with ID: %s" % zid))
        root, problems = validate_request(body)
        if problems:
            st.stats["bad_schema"] += 1
            st.problems += problems[:3]
            return self.reply(400, error_xml("InvalidInput", problems[0]))
        st.stats["changes"] += 1
        fault = st.faults.pop(0) if st.faults else None
        if fault == "throttle":
            st.stats["throttled"] += 1
            return self.reply(400, error_xml("Throttling", "Rate exceeded"))
        if fault == "prior":
            st.stats["throttled"] += 1
            return self.reply(400, error_xml("PriorRequestNotComplete",
                                             "The request was rejected because Route 53 was still processing a "
                                             "prior request."))
        if fault == "500":
            return self.reply(500, error_xml("InternalFailure", "internal failure"))
        if fault == "expired":
            akid = self.headers.get("Authorization", "").split("Credential=", 1)[1].split("/", 1)[0]
            st.keys[akid]["expires"] = time.time() - 1
            st.stats["expired_refused"] += 1
            return self.reply(403, error_xml("ExpiredToken", "The security token included in the request is expired"))
        changes, shapes = [], []
        for c in root.iter(q("Change")):
            rs = c.find(q("ResourceRecordSet"))
            shown = rs.findtext(q("Name"))
            values = [v.text or "" for v in rs.iter(q("Value"))]
            target = rs.find(q("AliasTarget"))
            alias = None if target is None else {
                "zone": target.findtext(q("HostedZoneId")), "dns": canon(target.findtext(q("DNSName"))),
                "health": target.findtext(q("EvaluateTargetHealth"))}
            policy = rules.routing_problem(rs, c.findtext(q("Action")), q)
            if policy:
                shapes.append(policy)
            if alias and (rs.find(q("TTL")) is not None or rs.find(q("ResourceRecords")) is not None):
                shapes.append("Invalid request: Expected exactly one of [AliasTarget, all of [TTL, and "
                              "ResourceRecords], or TrafficPolicyInstanceId], but found more than one in Change "
                              "with [Action=%s, Name=%s, Type=%s, SetIdentifier=null]" %
                              (c.findtext(q("Action")), shown, rs.findtext(q("Type"))))
            changes.append((c.findtext(q("Action")), canon(shown), rs.findtext(q("Type")),
                            int(rs.findtext(q("TTL")) or 0), values, escaped(canon(shown)), alias,
                            rs.findtext(q("SetIdentifier")), routing_of(rs)))
        if shapes:
            st.stats["bad_schema"] += 1
            st.problems += shapes[:3]
            return self.reply(400, error_xml("InvalidInput", shapes[0]))
        msgs = rules.limit_problems([(c[0], c[4]) for c in changes])
        st.stats["refused_limit"] += bool(msgs)
        if not msgs:
            rrsets, msgs = messages_for(st, zone, changes)
        if msgs:
            st.stats["refused_conflict"] += 1
            root = ET.Element("InvalidChangeBatch", xmlns=NS)
            lst = element(root, "Messages")
            for m in msgs:
                element(lst, "Message", m)
            element(root, "RequestId", secrets.token_hex(8))
            return self.reply(400, xml_bytes(root))
        zone["rrsets"] = rrsets
        st.stats["changes_ok"] += 1
        st.change_ids += 1
        st.polls["C%012d" % st.change_ids] = 0
        if fault == "502after":
            return self.reply(502, b"<html><body>502 Bad Gateway</body></html>", "text/html")
        out = ET.Element("ChangeResourceRecordSetsResponse", xmlns=NS)
        change_info(out, "C%012d" % st.change_ids)
        return self.reply_xml("ChangeResourceRecordSets", out)

    def get_change(self, cid):
        st = self.state
        st.stats["get_change"] += 1
        if cid not in st.polls:
            return self.reply(404, error_xml("NoSuchChange", "A change with the specified change ID does not exist."))
        st.polls[cid] += 1
        after = st.args.insync_after
        pending = after < 0 or st.polls[cid] <= after
        st.stats["get_change_pending"] += pending
        root = ET.Element("GetChangeResponse", xmlns=NS)
        change_info(root, cid, "PENDING" if pending else "INSYNC")
        return self.reply_xml("GetChange", root)

    def list_zones(self, query):
        st = self.state
        st.stats["list_zones"] += 1
        ids = sorted(st.zones)
        marker = query.get("marker", "")
        if marker and marker not in ids:
            return self.reply(400, error_xml("InvalidInput", "Invalid marker: no hosted zone with ID %s" % marker))
        start = ids.index(marker) if marker else 0
        size = min(int(query.get("maxitems", 100)), st.args.zone_page)
        root = ET.Element("ListHostedZonesResponse", xmlns=NS)
        zl = element(root, "HostedZones")
        for zid in ids[start:start + size]:
            zone_xml(zl, zid, st.zones[zid], len(st.zones[zid]["rrsets"]))
        element(root, "Marker", marker)  # required by the model: empty on the first page
        more = start + size < len(ids)
        element(root, "IsTruncated", "true" if more else "false")
        if more:
            element(root, "NextMarker", ids[start + size])
        element(root, "MaxItems", size)
        return self.reply_xml("ListHostedZones", root)

    def get_zone(self, zid):
        zone = self.state.zones.get(zid)
        if zone is None:
            return self.reply(404, error_xml("NoSuchHostedZone", "No hosted zone found with ID: %s" % zid))
        root = ET.Element("GetHostedZoneResponse", xmlns=NS)
        zone_xml(root, zid, zone, len(zone["rrsets"]))
        return self.reply_xml("GetHostedZone", root)

    def list_rrsets(self, zid, query):
        st = self.state
        st.stats["list_rrsets"] += 1
        zone = st.zones.get(zid)
        if zone is None:
            return self.reply(404, error_xml("NoSuchHostedZone", "No hosted zone found with ID: %s" % zid))
        if "type" in query and "name" not in query:
            return self.reply(400, error_xml("InvalidInput", "The input is not valid: type requires name"))
        keys = sorted(zone["rrsets"], key=lambda k: order_key(*k))
        if "name" in query:
            start = order_key(canon(query["name"]), query.get("type", ""), query.get("identifier", ""))
            keys = [k for k in keys if order_key(*k) >= start]
        size = min(int(query.get("maxitems", 300)), st.args.page_size, 300)
        root = ET.Element("ListResourceRecordSetsResponse", xmlns=NS)
        sets = element(root, "ResourceRecordSets")
        for key in keys[:size]:
            name, rtype = key[0], key[1]
            rr = zone["rrsets"][key]
            s = element(sets, "ResourceRecordSet")
            element(s, "Name", escaped(name))
            element(s, "Type", rtype)
            head, tail = rr.get("routing") or ([], [])
            for text in head:
                s.append(ET.fromstring(text))
            if rr.get("alias"):
                target = element(s, "AliasTarget")
                element(target, "HostedZoneId", rr["alias"]["zone"])
                element(target, "DNSName", escaped(rr["alias"]["dns"]))
                element(target, "EvaluateTargetHealth", rr["alias"]["health"])
            else:
                element(s, "TTL", rr["ttl"])
                recs = element(s, "ResourceRecords")
                for v in rr["values"]:
                    element(element(recs, "ResourceRecord"), "Value", v)
            for text in tail:
                s.append(ET.fromstring(text))
        more = len(keys) > size
        element(root, "IsTruncated", "true" if more else "false")
        if more:
            element(root, "NextRecordName", escaped(keys[size][0]))
            element(root, "NextRecordType", keys[size][1])
            if len(keys[size]) > 2:
                element(root, "NextRecordIdentifier", keys[size][2])
        element(root, "MaxItems", size)
        return self.reply_xml("ListResourceRecordSets", root)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    fakehttp.add_server_args(ap)
    ap.add_argument("--zone", action="append", default=[], help="ID=APEX or ID=APEX:private")
    ap.add_argument("--seed", help='file of "ZONEID OWNER TTL TYPE VALUE" lines')
    ap.add_argument("--creds", action="append", default=[], help="ACCESSKEY:SECRET of a long-term key")
    ap.add_argument("--fault", action="append", default=[], help="KIND or KIND*N, in order")
    ap.add_argument("--page-size", type=int, default=3)
    ap.add_argument("--zone-page", type=int, default=1)
    ap.add_argument("--latency", type=float, default=0, help="milliseconds before each API reply")
    ap.add_argument("--insync-after", type=int, default=0,
                    help="GetChange polls of each change answered PENDING before INSYNC (-1: never INSYNC)")
    ap.add_argument("--role-arn", default="arn:aws:iam::123456789012:role/dnsbatch")
    ap.add_argument("--web-token", default="")
    ap.add_argument("--container-token", default="")
    ap.add_argument("--temp-lifetime", type=float, default=3600, help="seconds issued credentials live")
    ap.add_argument("--policy", help="an IAM policy document (JSON) the Route53 requests must be allowed by")
    ap.add_argument("--account-rate", type=float, default=0,
                    help="requests per second the whole account may make (a token bucket over every client); "
                         "0: no limit")
    ap.add_argument("--account-burst", type=float, default=5, help="the bucket's size, requests")
    args = ap.parse_args()

    st = State(args)
    if args.policy:
        with open(args.policy) as f:
            st.policy = json.load(f)
    for z in args.zone:
        zid, apex = z.split("=", 1)
        private = apex.endswith(":private")
        st.zones[zid] = {"apex": canon(apex.split(":")[0]), "private": private,
                         "rrsets": rules.apex_rrsets(canon(apex.split(":")[0]))}
    for c in args.creds:
        akid, secret = c.split(":", 1)
        st.keys[akid] = {"secret": secret, "token": None, "expires": 0}
    return fakehttp.start(Handler, st, args, seed)


if __name__ == "__main__":
    sys.exit(main())
