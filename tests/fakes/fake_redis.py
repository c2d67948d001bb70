#!/usr/bin/env python3
"""fake_redis.py - a Redis that answers the rate budget's bucket script with what a test says: the
hostile servers of issue 38 §1 (an absurd wait, a reply trickled a byte at a time, an absurd reply
size) and §4 (an error that echoes the AUTH password). Speaks RESP on a free loopback port, one
thread per connection; writes the port to PORTFILE once listening.

usage: fake_redis.py PORTFILE [--take RESP] [--trickle SECONDS] [--echo-auth]
  --take RESP      the raw reply to EVALSHA (Python escapes: '*3\\r\\n:1\\r\\n...'); default: go now
  --trickle S      send that reply one byte every S seconds
  --pad N          after the reply, N bytes of "x" as fast as they go
  --echo-auth      refuse AUTH with an error quoting the command's arguments (a password too)
Counts the EVALSHA calls it answered on stderr ("takes N") as they come.
"""
import argparse
import os
import socket
import sys
import threading
import time

import fakehttp

SHA = b"0123456789abcdef0123456789abcdef01234567"


def read_command(f):
    """One RESP command (an array of bulk strings) as a list of bytes, or None at the end."""
    line = f.readline()
    if not line:
        return None
    if not line.startswith(b"*"):
        return line.split()  # inline command
    args = []
    for _ in range(int(line[1:])):
        size = int(f.readline()[1:])
        args.append(f.read(size + 2)[:-2])
    return args


def serve(conn, opts, counter):
    f = conn.makefile("rb")
    try:
        while True:
            cmd = read_command(f)
            if cmd is None:
                return
            name = cmd[0].upper()
            if name == b"AUTH" and opts.echo_auth:
                conn.sendall(b"-ERR invalid credentials: " + b" ".join(cmd) + b"\r\n")
            elif name in (b"AUTH", b"SELECT"):
                conn.sendall(b"+OK\r\n")
            elif name == b"PING":
                conn.sendall(b"+PONG\r\n")
            elif name == b"SCRIPT":
                conn.sendall(b"$40\r\n" + SHA + b"\r\n")
            elif name == b"EVALSHA":
                with counter["lock"]:
                    counter["n"] += 1
                    print("takes %d" % counter["n"], file=sys.stderr, flush=True)
                if opts.trickle:
                    for i in range(len(opts.take)):
                        conn.sendall(opts.take[i:i + 1])
                        time.sleep(opts.trickle)
                else:
                    conn.sendall(opts.take)
                if opts.pad:
                    conn.sendall(b"x" * opts.pad)
            else:
                conn.sendall(b"-ERR unknown command\r\n")
    except (OSError, ValueError):
        pass
    finally:
        conn.close()


def orphaned(parent):
    """Exit once the test that started the fake is gone (killed by its alarm: no teardown ran)."""
    while os.getppid() == parent:
        time.sleep(0.2)
    os._exit(0)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("portfile")
    p.add_argument("--take", default="*3\\r\\n:1\\r\\n:0\\r\\n:5000\\r\\n")
    p.add_argument("--trickle", type=float, default=0)
    p.add_argument("--pad", type=int, default=0)
    p.add_argument("--echo-auth", action="store_true")
    opts = p.parse_args()
    opts.take = opts.take.encode().decode("unicode_escape").encode("latin-1")
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("127.0.0.1", 0))
    s.listen(64)
    fakehttp.write_port_file(opts.portfile, s.getsockname()[1])
    counter = {"n": 0, "lock": threading.Lock()}
    threading.Thread(target=orphaned, args=(os.getppid(),), daemon=True).start()
    while True:
        conn, _ = s.accept()
        threading.Thread(target=serve, args=(conn, opts, counter), daemon=True).start()


if __name__ == "__main__":
    main()
