#!/usr/bin/env python3
"""faultproxy_dns.py - a DNS-over-TCP fault proxy between dnsbatch and BIND or Knot.

Usage:
  faultproxy_dns.py --upstream-port PORT --port-file FILE [--keyfile BIND-KEYFILE] [--faults FILE] [--log FILE]
                    [-- OOB-COMMAND...]

Listens on a free TCP port of 127.0.0.1 (written to --port-file once listening; dnsbatch's rfc2136 provider sends
every message over TCP). Messages are read with dnspython (TSIG checked with the key of --keyfile); an UPDATE is a
write, anything else (SOA, AXFR, IXFR, queries) a read, both counted from 1 in arrival order. Reads are relayed on
one upstream connection per client connection; each write goes to the server on a connection of its own and its
answer is relayed, unless a fault of the fault file (tests/conformance/README.md's vocabulary) says otherwise:

  lose-reply W              the W-th write is forwarded and committed; its answer is dropped and the client's
                            connection closed
  oob-before W RECORD       OOB-COMMAND runs with RECORD as its last argument, then the W-th write is forwarded
  oob-after W RECORD        the W-th write is forwarded, then OOB-COMMAND runs, then the answer goes on
  rcode W RCODE             the W-th write is answered RCODE (REFUSED, NOTAUTH, SERVFAIL, YXRRSET, ...), signed
                            with the request's key, and not forwarded
  rcode-match STRING RCODE  every write whose text holds STRING is answered RCODE, not forwarded
  fail-reads FROM [TO]      reads FROM..TO (to the end without TO) are answered SERVFAIL, not forwarded
  fail-reads-after W [COUNT]  once the W-th write was sent, the next COUNT reads (all without) are SERVFAIL
  fail-reads-after-refuse [COUNT]  once a write was answered an rcode here, the next COUNT reads (all without)
                            are answered SERVFAIL
  delay W SECONDS           the W-th write is held that long, then forwarded
One line per message goes to --log: "W3 UPDATE NOERROR lose-reply" (R for reads).
"""
import argparse
import os
import re
import socket
import struct
import threading
import time

import dns.message
import dns.opcode
import dns.rcode
import dns.tsigkeyring

from faultproxy_common import Faults


def read_key(path):
    """A dnspython keyring from a BIND key file (key "NAME" { algorithm ALG; secret "..."; };)."""
    if not path:
        return None
    text = open(path, encoding="utf-8").read()
    name = re.search(r'key\s+"([^"]+)"', text).group(1)
    alg = re.search(r"algorithm\s+([^;\s]+)", text).group(1)
    secret = re.search(r'secret\s+"([^"]+)"', text).group(1)
    return dns.tsigkeyring.from_text({name: (alg, secret)})


VERBS = ("lose-reply", "rcode", "rcode-match", "fail-reads", "fail-reads-after-refuse", "fail-reads-after", "delay")


def recv_exact(sock, n):
    buf = b""
    while len(buf) < n:
        chunk = sock.recv(n - len(buf))
        if not chunk:
            return None
        buf += chunk
    return buf


def recv_msg(sock):
    """One message of a TCP stream (RFC 1035 §4.2.2: two octets of length, then the message), or None at its end."""
    head = recv_exact(sock, 2)
    if head is None:
        return None
    return recv_exact(sock, struct.unpack("!H", head)[0])


def send_msg(sock, wire):
    sock.sendall(struct.pack("!H", len(wire)) + wire)


class Proxy(Faults):
    def __init__(self, args):
        super().__init__(args, VERBS, "faultproxy_dns")
        self.keyring = read_key(args.keyfile)

    def count(self, write):
        with self.lock:
            if write:
                self.writes += 1
                return self.writes
            self.reads += 1
            return self.reads

    def at(self, verb, n):
        return [a for v, a in self.faults if v == verb and int(a[0]) == n]

    def rcode_for(self, n, msg):
        for a in self.at("rcode", n):
            return a[1]
        text = None
        for v, a in self.faults:
            if v == "rcode-match":
                text = text or msg.to_text()
                if a[0] in text:
                    return a[1]
        return None

    def answer(self, client, wlock, msg, rcode):
        """Answer msg with rcode, signed as the request was."""
        r = dns.message.make_response(msg)
        r.set_rcode(dns.rcode.from_text(rcode))
        with wlock:
            send_msg(client, r.to_wire())

    def forward_write(self, wire):
        """Send one UPDATE to the server on a connection of its own. @return its answer's wire"""
        with socket.create_connection(("127.0.0.1", self.args.upstream_port), timeout=30) as s:
            send_msg(s, wire)
            return recv_msg(s)

    def write(self, client, wlock, wire, msg):
        n = self.count(True)
        tag = "W%d UPDATE" % n
        rcode = self.rcode_for(n, msg)
        if rcode:
            self.refused = True
            self.answer(client, wlock, msg, rcode)
            self.note("%s %s (not forwarded)" % (tag, rcode))
            return True
        for a in self.at("delay", n):
            time.sleep(float(a[1]))
        for a in self.at("oob-before", n):
            self.oob(tag, "oob-before", a[1])
        reply = self.forward_write(wire)
        for a in self.at("oob-after", n):
            self.oob(tag, "oob-after", a[1])
        if self.at("lose-reply", n):
            self.note("%s forwarded, reply lost, connection closed" % tag)
            return False
        if reply is None:
            self.note("%s the server closed" % tag)
            return False
        with wlock:
            send_msg(client, reply)
        self.note("%s answered" % tag)
        return True

    def relay_back(self, upstream, client, wlock):
        try:
            while True:
                wire = recv_msg(upstream)
                if wire is None:
                    break
                with wlock:
                    send_msg(client, wire)
        except OSError:
            pass
        shut(client)

    def serve(self, client):
        wlock = threading.Lock()
        upstream = None
        try:
            while True:
                wire = recv_msg(client)
                if wire is None:
                    break
                msg = dns.message.from_wire(wire, keyring=self.keyring)
                if msg.opcode() == dns.opcode.UPDATE:
                    if not self.write(client, wlock, wire, msg):
                        break
                    continue
                n = self.count(False)
                if self.read_fails(n):
                    self.answer(client, wlock, msg, "SERVFAIL")
                    self.note("R%d %s SERVFAIL fail-reads" % (n, dns.opcode.to_text(msg.opcode())))
                    continue
                if upstream is None:
                    upstream = socket.create_connection(("127.0.0.1", self.args.upstream_port), timeout=60)
                    threading.Thread(target=self.relay_back, args=(upstream, client, wlock), daemon=True).start()
                send_msg(upstream, wire)
                self.note("R%d forwarded" % n)
        except Exception as e:  # a broken message or connection: closed, as a server would
            self.note("error: %s" % e)
        shut(client)
        if upstream is not None:
            shut(upstream)


def shut(sock):
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass
    sock.close()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--upstream-port", type=int, required=True)
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--keyfile")
    ap.add_argument("--faults")
    ap.add_argument("--log")
    ap.add_argument("oob", nargs="*")
    args = ap.parse_args()
    proxy = Proxy(args)
    srv = socket.socket()
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(("127.0.0.1", 0))
    srv.listen(64)
    with open(args.port_file + ".tmp", "w", encoding="utf-8") as f:
        f.write("%d\n" % srv.getsockname()[1])
    os.rename(args.port_file + ".tmp", args.port_file)
    while True:
        client, _ = srv.accept()
        threading.Thread(target=proxy.serve, args=(client,), daemon=True).start()


if __name__ == "__main__":
    main()
