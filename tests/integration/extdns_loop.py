#!/usr/bin/env python3
"""extdns_loop.py - one external-dns sync loop against a webhook provider.

Usage: extdns_loop.py BASE_URL DESIRED.json

As external-dns v0.22 does each interval (controller.RunOnce, plan.Calculate):
POST /adjustendpoints with the desired endpoints, GET /records, compare each
adjusted desired endpoint with the current one of the same name and type
(targets as sets, the TTL only when the desired one sets it, providerSpecific
as a set), and POST /records with what differs (create, or updateOld/updateNew).
Headers are Go's net/http ones and the webhook media type; the client gives up
after 15 s (read + write timeout), as external-dns does.

Prints one line: "<changes> <status>", status "-" when nothing was posted.
"""
import json
import sys
import urllib.error
import urllib.request

MEDIA = "application/external.dns.webhook+json;version=1"
TIMEOUT = 15


def call(base, method, path, body=None):
    headers = {"User-Agent": "Go-http-client/1.1", "Accept-Encoding": "gzip", "Accept": MEDIA}
    data = None
    if body is not None:
        data = json.dumps(body, separators=(",", ":")).encode()
        headers["Content-Type"] = MEDIA
    req = urllib.request.Request(base + path, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=TIMEOUT) as r:
            raw = r.read()
            return r.status, json.loads(raw) if raw.strip() else None
    except urllib.error.HTTPError as e:
        return e.code, None


def props(ep):
    return sorted((p.get("name"), p.get("value")) for p in ep.get("providerSpecific") or [])


def differs(want, have):
    if sorted(want.get("targets") or []) != sorted(have.get("targets") or []):
        return True
    if want.get("recordTTL", 0) and want.get("recordTTL") != have.get("recordTTL", 0):
        return True
    return props(want) != props(have)


def main():
    base, desired_path = sys.argv[1], sys.argv[2]
    with open(desired_path) as f:
        desired = json.load(f)
    status, adjusted = call(base, "POST", "/adjustendpoints", desired)
    if status != 200:
        sys.exit("POST /adjustendpoints: %d" % status)
    status, current = call(base, "GET", "/records")
    if status != 200:
        sys.exit("GET /records: %d" % status)
    have = {(e["dnsName"], e["recordType"], e.get("setIdentifier") or ""): e for e in current}
    plan = {"create": [], "updateOld": [], "updateNew": []}
    for want in adjusted:
        cur = have.get((want["dnsName"], want["recordType"], want.get("setIdentifier") or ""))
        if cur is None:
            plan["create"].append(want)
        elif differs(want, cur):
            plan["updateOld"].append(cur)
            plan["updateNew"].append(want)
    changes = len(plan["create"]) + len(plan["updateNew"])
    if changes == 0:
        print("0 -")
        return
    status, _ = call(base, "POST", "/records", {k: v for k, v in plan.items() if v})
    print("%d %d" % (changes, status))


if __name__ == "__main__":
    main()
