#!/usr/bin/env python3
"""echo_http.py - an HTTP endpoint that answers every request 500 with the request's headers quoted in a
JSON error body, as a misconfigured proxy or a debug build of an API might: what a PowerDNS echoing
X-API-Key looked like (issue 38 §4). Writes its port to PORTFILE once listening.

usage: echo_http.py PORTFILE
"""
import http.server
import json
import os
import sys


class Echo(http.server.BaseHTTPRequestHandler):
    def answer(self):
        length = int(self.headers.get("Content-Length") or 0)
        if length:
            self.rfile.read(length)
        body = json.dumps({"error": "bad request; headers were: " +
                           "; ".join("%s: %s" % kv for kv in self.headers.items())}).encode()
        self.send_response(500)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_POST = do_PATCH = do_PUT = do_DELETE = answer

    def log_message(self, *args):
        pass


def main():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Echo)
    with open(sys.argv[1] + ".tmp", "w") as f:
        f.write("%d\n" % server.server_address[1])
    os.rename(sys.argv[1] + ".tmp", sys.argv[1])
    server.serve_forever()


if __name__ == "__main__":
    main()
