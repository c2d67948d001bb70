#!/usr/bin/env python3
"""faultproxy_http.py - an HTTP(S) fault proxy between dnsbatch and an HTTP server or fake.

Usage:
  faultproxy_http.py --upstream URL --port-file FILE [--cert PEM --key PEM] [--upstream-ca PEM]
                     [--faults FILE] [--bodies DIR] [--log FILE] [--ignore REGEX] [-- OOB-COMMAND...]

Listens on a free port of 127.0.0.1 (written to --port-file once listening); TLS with --cert/--key (the test CA's
server certificate, the same one the fakes serve), plain HTTP without. Every request is forwarded to --upstream
(https://127.0.0.1:PORT verified against --upstream-ca, or http://...), its path and query kept, unless a fault in
the fault file (tests/conformance/README.md's vocabulary) says otherwise:

  lose-reply W                         forward the W-th write; the server commits it; answer 502 instead of its reply
  oob-before W RECORD                  run OOB-COMMAND with RECORD as its last argument, then forward the W-th write
  oob-after W RECORD                   forward the W-th write, then run OOB-COMMAND, then answer
  refuse W STATUS BODYFILE [RETRY]     answer the W-th write STATUS with --bodies/BODYFILE, not forwarded
                                       (Retry-After: RETRY when given). BODYFILE is looked up as given, then
                                       with .json, .xml, .txt, .html; "-" is an empty body. STATUS "@": the
                                       status (and Retry-After) written in BODYFILE.status
  refuse-match STRING STATUS BODYFILE [RETRY]
                                       answer every write whose body (or path) holds STRING so, not forwarded
  fail-reads FROM [TO]                 reads FROM..TO (to the end without TO) answer 503, not forwarded
  refuse-reads FROM STATUS BODYFILE    reads FROM on answer STATUS with --bodies/BODYFILE, not forwarded (the
                                       provider's open refused: a wrong credential from the first read)
  fail-reads-after-refuse [COUNT]      once a write was refused, the next COUNT reads (all without) answer 503
  fail-reads-after W [COUNT]           once the W-th write was sent, the next COUNT reads (all without) answer 503
  delay W SECONDS                      hold the W-th write that long, then forward it
  expire-credential W [BODYFILE [STATUS [old-only]]]
                                       from the W-th write on, every request (read or write) answers STATUS
                                       (401) with --bodies/BODYFILE (a default JSON body without, or with "-"),
                                       not forwarded; with old-only, only those carrying the credential the
                                       W-th write carried (Bearer token, API key, AWS session token or access
                                       key id): a renewed one passes

Writes are POST, PUT, PATCH and DELETE; reads are GET (HEAD too); both counted from 1 in arrival order. A request
whose path matches --ignore (e.g. a token endpoint) is forwarded untouched and not counted. One line per request
goes to --log: "W3 POST /path 200 lose-reply" (R for reads, - for ignored).
"""
import argparse
import http.client
import http.server
import os
import re
import socketserver
import ssl
import time
import urllib.parse

from faultproxy_common import Faults

WRITES = ("POST", "PUT", "PATCH", "DELETE")
HOP = {"connection", "keep-alive", "proxy-connection", "transfer-encoding", "te", "trailer", "upgrade",
       "content-length", "host"}


VERBS = ("lose-reply", "refuse", "refuse-match", "refuse-reads", "fail-reads", "fail-reads-after-refuse", "fail-reads-after", "delay",
         "expire-credential")


class State(Faults):
    """Counters and the faults, shared by the handler threads."""

    def __init__(self, args):
        super().__init__(args, VERBS, "faultproxy_http")
        self.expired_from = None
        self.old_only = False
        self.old_cred = None
        for verb, a in self.faults:
            if verb == "expire-credential":
                self.expired_from = int(a[0])
                self.old_only = "old-only" in a[1:]

    def count(self, method):
        """('W', n) or ('R', n): this request's kind and number."""
        with self.lock:
            if method in WRITES:
                self.writes += 1
                return "W", self.writes
            self.reads += 1
            return "R", self.reads

    def expired(self, cred, write_no=None):
        """Is a request carrying credential `cred` refused as expired? The W-th write's credential is noted."""
        with self.lock:
            if self.expired_from is None:
                return False
            if write_no == self.expired_from:
                self.old_cred = cred
            if self.writes < self.expired_from:
                return False
            return not self.old_only or cred == self.old_cred

    def for_write(self, w):
        return [(v, a) for v, a in self.faults if v in ("lose-reply", "oob-before", "oob-after", "refuse", "delay")
                and int(a[0]) == w]


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    state = None

    def log_message(self, fmt, *args):  # the --log file says what happened; stderr stays quiet
        pass

    def body_in(self):
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            data = b""
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip(), 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    return data
                data += self.rfile.read(size)
                self.rfile.readline()
        n = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(n) if n else b""

    def credential(self):
        """What identifies the request's credential (never logged): an AWS session token or access key id, else
        the Authorization header, else an API key header."""
        h = self.headers
        if h.get("X-Amz-Security-Token"):
            return h["X-Amz-Security-Token"]
        auth = h.get("Authorization", "")
        m = re.search(r"Credential=([^/,\s]+)", auth)
        if m:
            return m.group(1)
        return auth or h.get("X-API-Key") or h.get("X-Auth-Key") or ""

    def answer(self, status, body, ctype="application/json", extra=None):
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        for k, v in (extra or {}).items():
            self.send_header(k, v)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def body_file(self, name):
        """The body named NAME (or NAME.json, .xml, .txt, .html) in --bodies, and its type; "-": empty."""
        if name == "-":
            return b"", "text/plain"
        base = os.path.join(self.state.args.bodies or ".", name)
        path = next((base + e for e in ("", ".json", ".xml", ".txt", ".html") if os.path.isfile(base + e)), base)
        with open(path, "rb") as f:
            data = f.read()
        ctype = "text/xml" if path.endswith(".xml") else "text/plain" if path.endswith(".txt") \
            else "text/html" if path.endswith(".html") else "application/json"
        return data, ctype

    def status_of(self, a):
        """A refuse line's status and Retry-After: "@" reads them from BODYFILE.status ("STATUS [RETRY-AFTER]")."""
        if a[1] != "@":
            return int(a[1]), (a[3] if len(a) > 3 else None)
        base = os.path.join(self.state.args.bodies or ".", a[2])
        words = open(base + ".status", encoding="utf-8").read().split()
        return int(words[0]), (words[1] if len(words) > 1 else a[3] if len(a) > 3 else None)

    def forward(self, body):
        up = urllib.parse.urlsplit(self.state.args.upstream)
        if up.scheme == "https":
            ctx = ssl.create_default_context(cafile=self.state.args.upstream_ca)
            conn = http.client.HTTPSConnection(up.hostname, up.port, context=ctx, timeout=60)
        else:
            conn = http.client.HTTPConnection(up.hostname, up.port, timeout=60)
        headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP}
        # a transparent proxy: the client's Host stays (Route53's SigV4 signature covers it)
        headers["Host"] = self.headers.get("Host", up.netloc)
        try:
            conn.request(self.command, up.path.rstrip("/") + self.path, body=body if body or
                         self.command in WRITES else None, headers=headers)
            resp = conn.getresponse()
            data = resp.read()
            return resp.status, [(k, v) for k, v in resp.getheaders() if k.lower() not in HOP], data
        finally:
            conn.close()

    def relay(self, status, headers, data):
        self.send_response(status)
        for k, v in headers:
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    def handle_one(self):
        st = self.state
        body = self.body_in()
        if st.args.ignore and re.search(st.args.ignore, self.path):
            status, headers, data = self.forward(body)
            self.relay(status, headers, data)
            st.note("- %s %s %d" % (self.command, self.path, status))
            return
        kind, n = st.count(self.command)
        tag = "%s%d %s %s" % (kind, n, self.command, self.path)
        if st.expired(self.credential(), n if kind == "W" else None):
            data, ctype, status = b'{"error":"credential expired"}', "application/json", 401
            for v, a in st.faults:
                if v == "expire-credential" and len(a) > 1 and a[1] != "-":
                    data, ctype = self.body_file(a[1])
                if v == "expire-credential" and len(a) > 2:
                    status = int(a[2])
            self.answer(status, data, ctype)
            st.note("%s %d expire-credential" % (tag, status))
            return
        if kind == "R":
            refusal = next((a for v, a in st.faults if v == "refuse-reads" and n >= int(a[0])), None)
            if refusal:
                data, ctype = self.body_file(refusal[2])
                self.answer(int(refusal[1]), data, ctype)
                st.note("%s %s refuse-reads" % (tag, refusal[1]))
                return
            if st.read_fails(n):
                self.answer(503, b'{"error":"fault proxy: failing read"}')
                st.note("%s 503 fail-reads" % tag)
                return
            status, headers, data = self.forward(body)
            self.relay(status, headers, data)
            st.note("%s %d" % (tag, status))
            return
        self.write(n, tag, body)

    def write(self, n, tag, body):
        st = self.state
        faults = st.for_write(n)
        lose = False
        for v, a in st.faults:
            if v == "refuse-match" and (a[0].encode() in body or a[0] in self.path):
                faults = [("refuse", [n] + a[1:])]
        for v, a in faults:
            if v == "refuse":
                status, retry = self.status_of(a)
                data, ctype = self.body_file(a[2])
                self.answer(status, data, ctype, {"Retry-After": retry} if retry else None)
                st.refused = True
                st.note("%s %d refuse" % (tag, status))
                return
        for v, a in faults:
            if v == "delay":
                time.sleep(float(a[1]))
            elif v == "oob-before":
                st.oob(tag, "oob-before", a[1])
            elif v == "lose-reply":
                lose = True
        status, headers, data = self.forward(body)
        for v, a in faults:
            if v == "oob-after":
                st.oob(tag, "oob-after", a[1])
        if lose:
            self.answer(502, b'{"error":"fault proxy: reply lost"}')
            st.note("%s %d lose-reply (502 sent)" % (tag, status))
            return
        self.relay(status, headers, data)
        st.note("%s %d" % (tag, status))

    def do_any(self):
        try:
            self.handle_one()
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True
        except Exception as e:  # a broken upstream: 502, and the reason in the log
            self.state.note("error %s %s: %s" % (self.command, self.path, e))
            try:
                self.answer(502, b'{"error":"fault proxy: upstream failed"}')
            except OSError:
                pass
            self.close_connection = True

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = do_any


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--upstream", required=True)
    ap.add_argument("--upstream-ca")
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--cert")
    ap.add_argument("--key")
    ap.add_argument("--faults")
    ap.add_argument("--bodies")
    ap.add_argument("--log")
    ap.add_argument("--ignore")
    ap.add_argument("oob", nargs="*", help="the out-of-band writer: RECORD is appended")
    args = ap.parse_args()
    Handler.state = State(args)
    srv = Server(("127.0.0.1", 0), Handler)
    if args.cert:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(args.cert, args.key)
        srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
    tmp = args.port_file + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write("%d\n" % srv.server_address[1])
    os.rename(tmp, args.port_file)
    srv.serve_forever()


if __name__ == "__main__":
    main()
