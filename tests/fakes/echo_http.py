#!/usr/bin/env python3
"""echo_http.py - an HTTP endpoint that answers every request 500 with the request's body and headers
quoted in a JSON error body, as a misconfigured proxy or a debug build of an API might: what a PowerDNS
echoing X-API-Key looked like (issue 38 §4). Writes its port to PORTFILE once listening.

With --token VALUE, a POST to a path ending in /token (an OAuth token endpoint: Azure's) is answered 200
with VALUE as its access_token, which the next requests then carry and have echoed; with --aws-creds
SECRET:TOKEN, GET /creds (container credentials) is answered with those keys. --shape pdns (the
default: 500 {"error": TEXT}), cloudflare, azure (400, their error bodies) or aws (400, Route53's XML error)
puts the quote where that provider's client reads a message.

usage: echo_http.py PORTFILE [--token VALUE] [--aws-creds SECRET:TOKEN] [--shape pdns|cloudflare|azure|aws]
"""
import sys
import types
from xml.sax.saxutils import escape

import fakehttp

OPTS = {}
CREDENTIAL_WORDS = ("key", "token", "auth", "secret")


class Echo(fakehttp.Handler):
    protocol_version = "HTTP/1.0"
    methods = ("GET", "POST", "PATCH", "PUT", "DELETE")

    def send(self, status, doc):
        self.send_json(status, doc)

    def dispatch(self, method):
        length = int(self.headers.get("Content-Length") or 0)
        sent = self.rfile.read(length).decode("utf-8", "replace") if length else ""
        if "--token" in OPTS and self.command == "POST" and self.path.split("?")[0].endswith("/token"):
            return self.send(200, {"token_type": "Bearer", "expires_in": 3600, "access_token": OPTS["--token"]})
        if "--aws-creds" in OPTS and self.path == "/creds":
            secret, token = OPTS["--aws-creds"].split(":", 1)
            return self.send(200, {"AccessKeyId": "AKIDECHO0001", "SecretAccessKey": secret, "Token": token,
                                   "Expiration": "2099-01-01T00:00:00Z"})
        # the credentials first: a client that cuts a long message short still quotes them
        heads = sorted(self.headers.items(), key=lambda kv: not any(w in kv[0].lower() for w in CREDENTIAL_WORDS))
        text = "bad request; body was: " + sent + "; headers were: " + "; ".join("%s: %s" % kv for kv in heads)
        shape = OPTS.get("--shape", "pdns")
        if shape == "aws":
            body = ("<ErrorResponse><Error><Type>Sender</Type><Code>InvalidInput</Code><Message>%s</Message></Error>"
                    "<RequestId>echo</RequestId></ErrorResponse>" % escape(text)).encode()
            return self.send_bytes(400, body, "text/xml")
        if shape == "cloudflare":
            return self.send(400, {"success": False, "errors": [{"code": 1004, "message": text}], "messages": [],
                                   "result": None})
        if shape == "azure":
            return self.send(400, {"error": {"code": "BadRequest", "message": text}})
        self.send(500, {"error": text})


def main():
    args = sys.argv[2:]
    OPTS.update(zip(args[::2], args[1::2]))
    fakehttp.serve(Echo, types.SimpleNamespace(port_file=sys.argv[1]))


if __name__ == "__main__":
    main()
