"""fakehttp.py - the HTTP/TLS server every fake in tests/fakes/ stands on.

One opening for all of them: a ThreadingHTTPServer on a free loopback port, TLS from a certificate and key file
(the handshake in the connection's own thread when asked, so that a silent client does not stall accept()), the
port written to a ready file by rename (a test polls for the file: once it exists the fake is listening), the
request log appended to a file (--log), and the reply helpers (a body read by Content-Length, a JSON or raw
reply with its length).

A fake subclasses Handler, writes dispatch(method), and calls serve(Handler, args) after parsing its options with
add_server_args(ap) among them.
"""
import json
import os
import socket
import ssl
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def add_server_args(ap, tls=True):
    """The options every fake takes: --port-file (the ready file), --cert/--key (TLS) and --log."""
    ap.add_argument("--port-file", required=True, help="written with the port once listening")
    if tls:
        ap.add_argument("--cert", required=True, help="the server's certificate chain (PEM)")
        ap.add_argument("--key", required=True, help="the certificate's private key (PEM)")
    ap.add_argument("--log", help="append one line a request to this file")


def faults(specs):
    """The scripted fault list from --fault values: KIND or KIND*N, in order."""
    out = []
    for f in specs:
        kind, _, n = f.partition("*")
        out += [kind] * (int(n) if n else 1)
    return out


def seed_lines(path):
    """The 5 fields of each "A B C D REST" line of a seed file (REST may hold spaces); shorter lines skipped."""
    with open(path) as f:
        for line in f:
            parts = line.rstrip("\n").split(" ", 4)
            if len(parts) == 5:
                yield parts


def write_port_file(path, port):
    """Write PORT to PATH through a rename: a reader sees no file or the whole number."""
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write("%d\n" % port)
    os.rename(tmp, path)


class Handler(BaseHTTPRequestHandler):
    """HTTP/1.1 keep-alive handler: subclasses write dispatch(method) and reply with send_json or send_bytes."""
    protocol_version = "HTTP/1.1"
    log_path = None
    lazy_handshake = False  # set by serve(): the TLS handshake happens here, in the connection's thread
    methods = ("GET", "POST", "PUT", "DELETE")  # each do_METHOD calls dispatch(METHOD); others are 501

    def __init_subclass__(cls, **kw):
        super().__init_subclass__(**kw)
        for m in cls.methods:
            setattr(cls, "do_" + m, lambda self, m=m: self.dispatch(m))

    def setup(self):
        if self.lazy_handshake:
            self.request.settimeout(30)
            self.request.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # headers and body: no Nagle wait
            self.request.do_handshake()
        super().setup()

    def log_message(self, fmt, *args):
        if self.log_path:
            with open(self.log_path, "a") as f:
                f.write("%s\n" % (fmt % args))

    def body(self):
        """The request's body, as many bytes as Content-Length says (b"" without one)."""
        n = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(n) if n else b""

    def send_bytes(self, status, body, ctype=None, headers=()):
        """Reply STATUS with BODY (bytes), its Content-Type when CTYPE is given, and HEADERS (pairs) after."""
        self.send_response(status)
        if ctype:
            self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        for k, v in headers:
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def send_json(self, status, doc, headers=(), ctype="application/json"):
        """Reply STATUS with DOC as JSON (no body and no Content-Type when DOC is None)."""
        body = json.dumps(doc).encode() if doc is not None else b""
        self.send_bytes(status, body, ctype if doc is not None else None, headers)

    def dispatch(self, method):
        self.send_json(405, {"error": "method %s not served" % method})



def start(handler, state, args, seed=None, **kw):
    """A fake's last steps: its --fault list and --seed file into STATE, STATE to HANDLER, then serve(...)."""
    state.faults += faults(getattr(args, "fault", []))
    if seed and getattr(args, "seed", None):
        seed(state, args.seed)
    handler.state = state
    return serve(handler, args, **kw)


def serve(handler, args, lazy_handshake=False, queue_size=None):
    """Serve HANDLER on 127.0.0.1:0 until killed: TLS when ARGS has a cert, the port to ARGS.port_file, the
    request log to ARGS.log. LAZY_HANDSHAKE moves the TLS handshake into each connection's thread."""
    handler.log_path = getattr(args, "log", None)
    cls = ThreadingHTTPServer
    if queue_size:  # listen()'s backlog is read in the constructor: a subclass carries it there
        cls = type("Server", (ThreadingHTTPServer,), {"request_queue_size": queue_size})
    server = cls(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    if getattr(args, "cert", None):
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(args.cert, args.key)
        handler.lazy_handshake = lazy_handshake
        server.socket = ctx.wrap_socket(server.socket, server_side=True, do_handshake_on_connect=not lazy_handshake)
    write_port_file(args.port_file, server.server_address[1])
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0
