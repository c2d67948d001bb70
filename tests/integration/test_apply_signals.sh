#!/usr/bin/env bash
# test_apply_signals.sh - issue 38 §2: `apply` is never killed by a signal without its summary, drop
# log and metrics. A closed stderr (a log shipper that died; `2>&1 | head -c 1`) loses log lines only:
# SIGPIPE is ignored, so the drop log still gets its 12 lines after the zone is written. SIGHUP and
# SIGQUIT stop the run as SIGTERM does (batch in flight finished, summary written, exit 4); SIGUSR1
# and SIGUSR2 are ignored.
. "$(dirname "$0")/checks.sh"
test_begin
needs jq python3
scratch

ZONE=$ROOT/examples/zones/example.com.zone
CONFLICTS=$ROOT/examples/plans/conflicts.json # 12 drops with the zonefile provider (test_apply_cli.sh)

# closed NAME ARGS...: dnsbatch ARGS with stderr (and stdout) a pipe whose reader is gone; sets RC
# (negative: killed by that signal)
closed() {
	local n=$1
	shift
	RC=$(python3 - "$DNSBATCH" "$@" <<'PY'
import os, subprocess, sys
r, w = os.pipe()
os.close(r)  # the reader is gone before the first byte: every write is EPIPE (SIGPIPE by default)
# restore_signals (the default) gives the child SIGPIPE's default action, as a shell would
print(subprocess.run(sys.argv[1:], stdout=w, stderr=w).returncode)
PY
)
}

##### a closed stderr ########################################################################################

cp "$ZONE" "$T/pipe.zone"
closed pipe apply --plan "$CONFLICTS" --provider zonefile --zonefile "example.com=$T/pipe.zone" \
	--drop-log "$T/pipe.drops" --metrics-file "$T/pipe.prom"
eq "stderr a closed pipe: not killed by SIGPIPE, exit 3 (some dropped)" "$RC" 3
eq "... the drop log has its 12 lines" "$(wc -l <"$T/pipe.drops" 2>/dev/null | tr -d ' ')" 12
check "... the metrics file is written" grep -q '^dnsbatch_changes_total' "$T/pipe.prom"
check "... the zone is written" sh -c '! cmp -s "$1" "$2"' _ "$ZONE" "$T/pipe.zone"

# The same through a shell pipeline: head reads one byte and leaves.
cp "$ZONE" "$T/head.zone"
"$DNSBATCH" apply --plan "$CONFLICTS" --provider zonefile --zonefile "example.com=$T/head.zone" \
	--drop-log "$T/head.drops" --metrics-file "$T/head.prom" 2>&1 | head -c 1 >/dev/null
eq "2>&1 | head -c 1: exit 3" "${PIPESTATUS[0]}" 3
eq "... the drop log has its 12 lines" "$(wc -l <"$T/head.drops" 2>/dev/null | tr -d ' ')" 12

##### SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2 #######################################################################

PLAN=$T/creates.json # 30 creations; batches of 5, each submission 0.3 s: about 2 s in all
creates "$PLAN" 30 sig example.com 10.0
# signalled NAME SIGNAL: a run of the memory provider that receives SIGNAL after 0.5 s; sets RC
signalled() {
	local n=$1 sig=$2
	"$DNSBATCH" apply --plan "$PLAN" --provider memory --memory-zone example.com --memory-faults '*:latency=0.3' \
		--batch-size 5 --output json --drop-log "$T/$n.drops" --metrics-file "$T/$n.prom" \
		>"$T/$n.json" 2>"$T/$n.err" &
	local pid=$!
	PIDS+=("$pid")
	sleep 0.5
	kill -s "$sig" "$pid"
	wait "$pid"
	RC=$?
}
for sig in HUP QUIT; do
	signalled "$sig" "$sig"
	eq "SIG$sig: the apply stops with its summary, exit 4" "$RC" 4
	check "... says so" grep -q "stopped by SIG$sig after the batch in flight" "$T/$sig.err"
	eq "... the JSON summary: some applied, the rest failed" \
		"$(jq -r '[.changes, (.applied + .failed), (.applied > 0), (.failed > 0)] | @tsv' "$T/$sig.json" 2>/dev/null)" \
		"$(printf '30\t30\ttrue\ttrue')"
	eq "... the drop log holds the failed changes" "$(wc -l <"$T/$sig.drops" 2>/dev/null | tr -d ' ')" \
		"$(jq -r .failed "$T/$sig.json" 2>/dev/null)"
	check "... the metrics file is written" grep -q '^dnsbatch_changes_total' "$T/$sig.prom"
done
for sig in USR1 USR2; do
	signalled "$sig" "$sig"
	eq "SIG$sig: ignored, the apply runs to its end, exit 0" "$RC" 0
	eq "... every change applied" "$(jq -r .applied "$T/$sig.json" 2>/dev/null)" 30
done

[ "$failures" -eq 0 ]
