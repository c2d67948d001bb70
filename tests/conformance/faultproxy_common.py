"""faultproxy_common.py - what the two fault proxies (faultproxy_http.py, faultproxy_dns.py) share: the fault file
read (tests/conformance/README.md's vocabulary), the counters of writes and reads, the read faults (fail-reads,
fail-reads-after, fail-reads-after-refuse), the out-of-band command and the --log lines.
"""
import subprocess
import sys
import threading


def parse_faults(path, verbs, prog):
    """The fault file PATH as a list of (verb, args): oob-before and oob-after as [W, RECORD] (W an int), each verb of
    VERBS as its words; '#' lines and blank lines skipped. Any other verb ends the program (PROG: the proxy's name),
    naming the file and line."""
    faults = []
    if not path:
        return faults
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            verb, _, rest = line.partition(" ")
            rest = rest.strip()
            if verb in ("oob-before", "oob-after"):
                w, _, record = rest.partition(" ")
                faults.append((verb, [int(w), record.strip()]))
            elif verb in verbs:
                faults.append((verb, rest.split()))
            else:
                sys.exit("%s: %s:%d: unknown fault %r" % (prog, path, n, verb))
    return faults


class Faults:
    """The faults of --faults and the counters, shared by the proxy's threads (args: the proxy's arguments, with
    faults, log and oob)."""

    def __init__(self, args, verbs, prog):
        self.args = args
        self.faults = parse_faults(args.faults, verbs, prog)
        self.lock = threading.Lock()
        self.writes = 0
        self.reads = 0
        self.refused = False        # a write was refused: fail-reads-after-refuse counts from here
        self.reads_after = 0
        self.past = {}              # fail-reads-after: reads since its write, per fault
        self.log = open(args.log, "a", encoding="utf-8") if args.log else None

    def read_fails(self, r):
        """Is the r-th read failed by fail-reads, fail-reads-after or fail-reads-after-refuse?"""
        with self.lock:
            if self.refused:
                self.reads_after += 1
            after = self.reads_after
        for v, a in self.faults:
            if v == "fail-reads-after-refuse" and after and (not a or after <= int(a[0])):
                return True
        for i, (v, a) in enumerate(self.faults):
            if v == "fail-reads-after" and self.writes >= int(a[0]):
                with self.lock:
                    self.past[i] = self.past.get(i, 0) + 1
                    if len(a) < 2 or self.past[i] <= int(a[1]):
                        return True
        for v, a in self.faults:
            if v == "fail-reads" and r >= int(a[0]) and (len(a) < 2 or r <= int(a[1])):
                return True
        return False

    def oob(self, tag, when, record):
        """Run the out-of-band command with RECORD as its last argument; logged as "TAG WHEN 'RECORD' rc=N"."""
        rc = subprocess.run(self.args.oob + [record], stdout=subprocess.DEVNULL).returncode
        self.note("%s %s %r rc=%d" % (tag, when, record, rc))

    def note(self, line):
        """One line to --log (none without)."""
        if self.log:
            with self.lock:
                self.log.write(line + "\n")
                self.log.flush()
