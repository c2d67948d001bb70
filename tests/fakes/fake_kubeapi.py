#!/usr/bin/env python3
"""fake_kubeapi.py - a stand-in Kubernetes API server for `dnsbatch serve --events`, over TLS.

Serves what the sidecar's Events recorder uses, as kube-apiserver answers it:
  GET   /api/v1/namespaces/NS/PLURAL/NAME, /apis/GROUP/VERSION/namespaces/NS/PLURAL/NAME
        an object given with --object PLURAL/NS/NAME=UID: 200 with its metadata; else 404 NotFound
  POST  /apis/events.k8s.io/v1/namespaces/NS/events        201 Created, 409 AlreadyExists, 422 Invalid
  PATCH /apis/events.k8s.io/v1/namespaces/NS/events/NAME   200, 404 NotFound, 415, 422 Invalid
Every answer but a 2xx is a meta/v1 Status, checked against the published schema before it is sent.

Each request must carry "Authorization: Bearer T" for a T given with --token (else 401 Unauthorized, as
for a token the API server does not know). Every request body is validated with python3-jsonschema
against Kubernetes' OpenAPI spec for events.k8s.io/v1 (k8s-events-v1-openapi.json: its source and commit
are in the file), made strict (no member the schema does not name), then checked as the API server's
events.k8s.io validation does (ValidateEventCreate: reportingController, reportingInstance, action and
reason set and within 128 characters, type Normal or Warning, note within 1 kB, regarding in the
Event's namespace, eventTime a MicroTime, series.count >= 2). A body that fails is answered 422 with the
causes, and recorded in the problems list.

The mode (/_fake/mode, no token): "ok"; "forbidden" (403 to every API request, as without RBAC);
"error" (500); "reject" (422 to POST and PATCH); "slow" (each POST or PATCH is done, then answered --slow seconds later).
/_fake/events lists the Events held; /_fake/stats the counts by method and status, by token, and the
problems. Both answer without a token.

usage: fake_kubeapi.py --port-file F --cert C --key K --token T [--object PLURAL/NS/NAME=UID ...]
"""
import argparse
import copy
import json
import os
import re
import threading
import time
import urllib.parse

import jsonschema

import fakehttp

HERE = os.path.dirname(os.path.abspath(__file__))
SPEC = json.load(open(os.path.join(HERE, "k8s-events-v1-openapi.json")))
SCHEMAS = SPEC["components"]["schemas"]
EVENT = "io.k8s.api.events.v1.Event"
STATUS = "io.k8s.apimachinery.pkg.apis.meta.v1.Status"
# k8s.io/apimachinery's RFC3339Micro, as MicroTime marshals and parses it.
MICRO_TIME = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}(Z|[+-]\d\d:\d\d)$")
LOCK = threading.RLock()


def strict(schema):
    """The schema with additionalProperties false wherever it names properties: an unknown member fails."""
    if isinstance(schema, dict):
        out = {k: strict(v) for k, v in schema.items()}
        if "properties" in out and "additionalProperties" not in out:
            out["additionalProperties"] = False
        return out
    if isinstance(schema, list):
        return [strict(v) for v in schema]
    return schema


def validator(name):
    root = {"$ref": "#/components/schemas/" + name, "components": {"schemas": strict(SCHEMAS)}}
    return jsonschema.Draft7Validator(root)


EVENT_V = validator(EVENT)
STATUS_V = validator(STATUS)


def schema_problems(doc):
    """(field, message) of each way DOC is off the strict Event schema."""
    return [(".".join(str(p) for p in e.absolute_path) or "(body)", e.message) for e in EVENT_V.iter_errors(doc)]


def api_problems(ev, ns):
    """events.k8s.io's ValidateEventCreate, the parts a client controls."""
    out = []
    meta = ev.get("metadata", {})
    if not meta.get("name"):
        out.append(("metadata.name", "Required value: name or generateName is required"))
    if meta.get("namespace", ns) != ns:
        out.append(("metadata.namespace", "Invalid value: does not match the namespace of the request"))
    for key in ("reportingController", "reportingInstance", "action", "reason"):
        v = ev.get(key, "")
        if not v:
            out.append((key, "Required value"))
        elif len(v) > 128:
            out.append((key, "Too long: may not be longer than 128"))
    if ev.get("type") not in ("Normal", "Warning"):
        out.append(("type", "Unsupported value: %r: supported values: \"Normal\", \"Warning\"" % ev.get("type")))
    if len(ev.get("note", "").encode()) > 1024:
        out.append(("note", "Too long: may not be longer than 1024"))
    if ev.get("regarding", {}).get("namespace", ns) != ns:
        out.append(("regarding.namespace", "Invalid value: does not match event.namespace"))
    if not MICRO_TIME.match(ev.get("eventTime", "")):
        out.append(("eventTime", "Invalid value: not a MicroTime"))
    series = ev.get("series")
    if series is not None:
        if series.get("count", 0) < 2:
            out.append(("series.count", "Invalid value: should be at least 2"))
        if not MICRO_TIME.match(series.get("lastObservedTime", "")):
            out.append(("series.lastObservedTime", "Invalid value: not a MicroTime"))
    return out


def status(code, reason, message, details=None):
    doc = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", "message": message,
           "reason": reason, "code": code}
    if details:
        doc["details"] = details
    errors = list(STATUS_V.iter_errors(doc))
    assert not errors, errors
    return doc


class State:
    def __init__(self, args):
        self.args = args
        self.tokens = set(args.token)
        self.objects = {}  # (plural, ns, name) -> uid
        for o in args.object:
            key, uid = o.rsplit("=", 1)
            self.objects[tuple(key.split("/"))] = uid
        self.events = {}  # (ns, name) -> event
        self.mode = "ok"
        self.stats = {"requests": {}, "tokens": {}, "problems": [], "bodies": 0}
        self.faults = []


class Handler(fakehttp.Handler):
    server_version = "fake_kubeapi"
    methods = ("GET", "POST", "PATCH")
    state = None

    def count(self, method, code):
        key = "%s %d" % (method, code)
        with LOCK:
            self.state.stats["requests"][key] = self.state.stats["requests"].get(key, 0) + 1

    def answer(self, method, code, doc):
        self.count(method, code)
        if self.state.mode == "slow" and method != "GET":
            time.sleep(self.state.args.slow)  # done, but answered later than the client waits
        self.send_json(code, doc)

    def fake_api(self, method, parts, body):
        st = self.state
        if parts == ["mode"] and method == "POST":
            st.mode = json.loads(body)["mode"]
            return self.send_json(200, {"mode": st.mode})
        if parts == ["events"]:
            with LOCK:
                return self.send_json(200, {"items": list(st.events.values())})
        if parts == ["stats"]:
            with LOCK:
                return self.send_json(200, st.stats)
        return self.send_json(404, {"error": "no such fake route"})

    def authorised(self, method):
        auth = self.headers.get("Authorization", "")
        tok = auth[7:] if auth.startswith("Bearer ") else None
        with LOCK:
            s = self.state.stats["tokens"]
            s[tok or "(none)"] = s.get(tok or "(none)", 0) + 1
        if tok in self.state.tokens:
            return True
        self.answer(method, 401, status(401, "Unauthorized", "Unauthorized"))
        return False

    def dispatch(self, method):
        url = urllib.parse.urlsplit(self.path)
        parts = [urllib.parse.unquote(p) for p in url.path.split("/")[1:]]
        body = self.body()
        if parts[:1] == ["_fake"]:
            return self.fake_api(method, parts[1:], body)
        if not self.authorised(method):
            return
        mode = self.state.mode
        if mode == "forbidden":
            return self.answer(method, 403, status(
                403, "Forbidden", 'events.events.k8s.io is forbidden: User "system:serviceaccount:dns:dnsbatch" '
                'cannot %s resource "events" in API group "events.k8s.io"' % method.lower(),
                {"group": "events.k8s.io", "kind": "events"}))
        if mode == "error":
            return self.answer(method, 500, status(500, "InternalError", "Internal error occurred: etcdserver: "
                                                   "request timed out"))
        if parts[:4] == ["apis", "events.k8s.io", "v1", "namespaces"] and len(parts) in (6, 7) and parts[5] == "events":
            return self.events(method, parts[4], parts[6] if len(parts) == 7 else None, body)
        if method == "GET" and len(parts) >= 5 and parts[-4] == "namespaces":
            return self.get_object(parts)
        self.answer(method, 404, status(404, "NotFound", "the server could not find the requested resource"))

    def get_object(self, parts):
        plural, ns, name = parts[-2], parts[-3], parts[-1]
        uid = self.state.objects.get((plural, ns, name))
        if uid is None:
            return self.answer("GET", 404, status(404, "NotFound", '%s "%s" not found' % (plural, name),
                                                  {"name": name, "kind": plural}))
        self.answer("GET", 200, {"apiVersion": "/".join(parts[1:-4]), "metadata": {
            "name": name, "namespace": ns, "uid": uid, "resourceVersion": "1"}})

    def invalid(self, method, name, causes):
        with LOCK:
            self.state.stats["problems"] += ["%s %s: %s: %s" % (method, name, f, m) for f, m in causes]
        msg = "Event.events.k8s.io \"%s\" is invalid: %s" % (name, "; ".join("%s: %s" % c for c in causes))
        self.answer(method, 422, status(422, "Invalid", msg, {
            "name": name, "group": "events.k8s.io", "kind": "Event",
            "causes": [{"reason": "FieldValueInvalid", "message": m, "field": f} for f, m in causes]}))

    def check(self, method, name, ev, ns):
        """Validate an Event as created or as a patch leaves it; answer 422 and return False when it fails."""
        with LOCK:
            self.state.stats["bodies"] += 1
        causes = schema_problems(ev)
        causes += api_problems(ev, ns) if not causes else []
        if causes:
            self.invalid(method, name, causes)
            return False
        return True

    def events(self, method, ns, name, body):
        if method == "POST" and name is None:
            return self.create(ns, body)
        if method == "PATCH" and name is not None:
            return self.patch(ns, name, body)
        self.answer(method, 405, status(405, "MethodNotAllowed", "the server does not allow this method"))

    def create(self, ns, body):
        try:
            ev = json.loads(body)
        except ValueError as e:
            return self.answer("POST", 400, status(400, "BadRequest", "json: %s" % e))
        name = ev.get("metadata", {}).get("name", "") if isinstance(ev, dict) else ""
        if not isinstance(ev, dict) or not self.check("POST", name, ev, ns):
            return
        if self.state.mode == "reject":
            return self.invalid("POST", name, [("note", "Invalid value: refused by --mode reject")])
        stored = copy.deepcopy(ev)
        stored["metadata"].update({"namespace": ns, "resourceVersion": "1",
                                   "creationTimestamp": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())})
        with LOCK:
            exists = (ns, name) in self.state.events
            if not exists:
                stored["metadata"]["uid"] = "ev-%d" % len(self.state.events)
                self.state.events[(ns, name)] = stored
        if exists:
            return self.answer("POST", 409, status(409, "AlreadyExists", 'events.events.k8s.io "%s" already exists'
                                                   % name, {"name": name, "group": "events.k8s.io", "kind": "events"}))
        self.answer("POST", 201, stored)

    def patch(self, ns, name, body):
        ctype = self.headers.get("Content-Type", "").split(";")[0].strip()
        if ctype not in ("application/strategic-merge-patch+json", "application/merge-patch+json"):
            return self.answer("PATCH", 415, status(415, "UnsupportedMediaType",
                                                    "the body of the request was in an unknown format"))
        try:
            patch = json.loads(body)
        except ValueError as e:
            return self.answer("PATCH", 400, status(400, "BadRequest", "json: %s" % e))
        with LOCK:
            held = self.state.events.get((ns, name))
        if held is None:
            return self.answer("PATCH", 404, status(404, "NotFound", 'events.events.k8s.io "%s" not found' % name,
                                                    {"name": name, "group": "events.k8s.io", "kind": "events"}))
        merged = merge(copy.deepcopy(held), patch)
        if not isinstance(patch, dict) or not self.check("PATCH", name, merged, ns):
            return
        if self.state.mode == "reject":
            return self.invalid("PATCH", name, [("series", "Invalid value: refused by --mode reject")])
        with LOCK:
            merged["metadata"]["resourceVersion"] = str(int(held["metadata"]["resourceVersion"]) + 1)
            self.state.events[(ns, name)] = merged
        self.answer("PATCH", 200, merged)


def merge(target, patch):
    """RFC 7386 merge (what a strategic merge patch is for Event's maps and scalars)."""
    if not isinstance(patch, dict):
        return patch
    for k, v in patch.items():
        if v is None:
            target.pop(k, None)
        elif isinstance(v, dict) and isinstance(target.get(k), dict):
            target[k] = merge(target[k], v)
        else:
            target[k] = v
    return target


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    fakehttp.add_server_args(ap)
    ap.add_argument("--token", action="append", default=[], help="a bearer token the server accepts")
    ap.add_argument("--object", action="append", default=[], help="PLURAL/NS/NAME=UID of an object GET finds")
    ap.add_argument("--slow", type=float, default=5.0, help="seconds each API reply waits in mode slow")
    args = ap.parse_args()
    return fakehttp.start(Handler, State(args), args)


if __name__ == "__main__":
    main()
