#!/bin/bash
# test_droplog_before_commit.sh - a drop is on disk before the zone that holds its apply is written (issue 38
# §2): `dnsbatch apply` with the zone-file provider (which writes a zone once, at the end of its batches)
# writes and syncs the zone's drop-log lines before it writes the zone. The drop log here is a FIFO that
# nobody reads: once the pipe is full the apply blocks in its drop-log write, and at that moment the zone
# file must not hold any of the plan yet. Killed there, it never does; drained, the apply ends as usual.
# Prints "ok - NAME" / "not ok - NAME" per check; exits 1 when any check failed.
# Environment: DNSBATCH (the binary; default build/dnsbatch under the repository root).
. "$(dirname "$0")/checks.sh"
test_begin
scratch
needs jq
CONFLICTS=400  # about 190 KB of drop-log lines: past a pipe's 64 KiB
FREE=50

printf '$ORIGIN w.test.\n$TTL 300\n@ SOA ns1 hostmaster 1 3600 600 86400 300\n@ NS ns1\nns1 A 192.0.2.53\n' >"$T/start.zone"
for i in $(seq 0 $((CONFLICTS - 1))); do printf 'c%d A 198.51.100.1\n' "$i"; done >>"$T/start.zone"
jq -cn --argjson c "$CONFLICTS" --argjson f "$FREE" '{create: ([range($c) | {dnsName: "c\(.).w.test",
	recordType: "A", recordTTL: 300, targets: ["192.0.2.1"]}] + [range($f) | {dnsName: "f\(.).w.test",
	recordType: "A", recordTTL: 300, targets: ["192.0.2.2"]}])}' >"$T/plan.json" || { not_ok "plan written"; exit 1; }
free_held() { grep -c '^f[0-9]' "$1"; }

# blocked PID: wait (up to 60 s) until PID sleeps with no CPU time spent for a second; 1 when it exited first
blocked() {
	local pid=$1 last="" still=0 now i
	for i in $(seq 600); do
		[ -r "/proc/$pid/stat" ] || return 1
		now=$(awk '{print $3, $14 + $15}' "/proc/$pid/stat" 2>/dev/null) || return 1
		case "$now" in S*|D*) if [ "$now" = "$last" ]; then still=$((still + 1)); else still=0; fi ;; *) still=0 ;; esac
		[ "$still" -ge 10 ] && return 0
		last=$now
		sleep 0.1
	done
	return 0
}

# start: apply with the FIFO as its drop log, the test holding the FIFO open (read-write) without reading
start() {
	cp "$T/start.zone" "$T/z.zone"
	rm -f "$T/drops"
	mkfifo "$T/drops"
	exec 3<>"$T/drops"
	"$DNSBATCH" apply --plan "$T/plan.json" --provider zonefile --zonefile "w.test=$T/z.zone" \
		--drop-log "$T/drops" --output json --quiet >"$T/out.json" 2>"$T/err" &
	pid=$!
	PIDS+=("$pid")
}

start
if blocked "$pid"; then
	eq "blocked in its drop-log write: the zone holds none of the plan yet" "$(free_held "$T/z.zone")" 0
	kill -KILL "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	eq "killed there: the zone holds none of the plan" "$(free_held "$T/z.zone")" 0
	eq "killed there: the zone's records untouched" "$(grep -c '^c[0-9]* A 198.51.100.1' "$T/z.zone")" "$CONFLICTS"
else
	not_ok "the apply blocks in its drop-log write" "$(cat "$T/err")"
fi
exec 3>&-

start
blocked "$pid"
exec 4<"$T/drops"  # a reader before the test's own end closes: a FIFO without one is a broken pipe
cat <&4 3>&- >"$T/drops.out" &
exec 3>&- 4<&-
wait "$pid"
rc=$?
wait
eq "drained: the apply ends with its drops (exit 3)" "$rc" 3
eq "drained: every conflict has its line" "$(wc -l <"$T/drops.out")" "$CONFLICTS"
eq "drained: the zone holds the rest of the plan" "$(free_held "$T/z.zone")" "$FREE"
eq "drained: the report agrees" "$(jq -r '"\(.applied) \(.dropped)"' "$T/out.json")" "$FREE $CONFLICTS"

echo "# $failures failed"
[ "$failures" -eq 0 ]
