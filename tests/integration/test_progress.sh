#!/usr/bin/env bash
# test_progress.sh - a long `dnsbatch apply` says where it is, and stops cleanly on SIGINT or SIGTERM,
# through the real binary: progress lines off a terminal (at most one per --progress-interval, none
# with --quiet, JSON lines with --log-format json), one line redrawn on a terminal (script(1) gives
# it one), and a signal in the middle of a run: the batch in flight finished, the rest counted
# failed, summary, drop log and metrics written, exit 4, no temporary file beside the zone.
# The signal is sent while the program is held on a pipe nobody reads (its stderr), so the check
# does not depend on how fast the machine is.
. "$(dirname "$0")/checks.sh"
test_begin
scratch

creates "$T/plan40.json" 40 host example.test 10.0
mem=(--provider memory --memory-zone example.test --batch-size 1)

##### off a terminal ##########################################################################################
# 40 submissions of 0.05 s each: about 2 s, so at most 2 / 0.5 + 1 lines at --progress-interval 0.5.
start=$(date +%s.%N)
"$DNSBATCH" apply --plan "$T/plan40.json" "${mem[@]}" --memory-faults '*:latency=0.05' --progress-interval 0.5 \
	2>"$T/off.err"
rc=$?
took=$(echo "$(date +%s.%N) - $start" | bc)
lines=$(grep -c 'info progress: ' "$T/off.err")
eq "off a terminal: exit 0" "$rc" 0
ge "off a terminal: progress lines come ($lines in $took s)" "$lines" 1
le "off a terminal: at most one per --progress-interval ($lines in $took s)" "$lines" "$(echo "$took / 0.5 + 1" | bc)"
check "off a terminal: the line has done of total, outcomes, submissions, elapsed and time left" grep -Eq \
	'progress: [0-9]+ of 40 changes \([0-9]+%\): [0-9]+ applied, 0 dropped, 0 failed; [0-9]+ submissions; 0:0[0-9] elapsed, (0:0[0-9] left|time left unknown)$' \
	"$T/off.err"
check "off a terminal: no terminal control characters" sh -c '! grep -q "$(printf "\033")" "$1"' _ "$T/off.err"

"$DNSBATCH" apply --plan "$T/plan40.json" "${mem[@]}" --memory-faults '*:latency=0.02' 2>"$T/default.err"
eq "default interval (10 s): a run of about 1 s prints no progress line" "$(grep -c 'progress: ' "$T/default.err")" 0
"$DNSBATCH" apply --plan "$T/plan40.json" "${mem[@]}" --progress-interval 0 --quiet 2>"$T/quiet.err"
eq "--quiet: no progress line" "$(grep -c 'progress' "$T/quiet.err")" 0

"$DNSBATCH" apply --plan "$T/plan40.json" "${mem[@]}" --progress-interval 0 --log-format json 2>"$T/json.err"
check "--log-format json: every stderr line is JSON" sh -c 'jq -e . "$1" >/dev/null' _ "$T/json.err"
eq "--log-format json: progress lines carry the figures" \
	"$(jq -r 'select(.progress_total) | [.progress_done, .progress_total, .applied, .failed] | @tsv' "$T/json.err" | tail -1)" \
	"$(printf '40\t40\t40\t0')"
ge "--log-format json: one progress line per submission at interval 0" \
	"$(jq -r 'select(.progress_total) | .submissions' "$T/json.err" | sort -un | wc -l)" 40

##### on a terminal ###########################################################################################
script -q -e -c "'$DNSBATCH' apply --plan '$T/plan40.json' ${mem[*]} --memory-faults '*:latency=0.02' >/dev/null" \
	/dev/null >"$T/tty.out" 2>&1
eq "on a terminal: exit 0" "$?" 0
check "on a terminal: one line redrawn in place (carriage return, erase line)" \
	grep -Fq "$(printf '\r\033[K')dnsbatch: " "$T/tty.out"
check "on a terminal: the line has done of total and time left" grep -Eq 'dnsbatch: [0-9]+ of 40 changes .* (left|unknown)' \
	"$T/tty.out"
check "on a terminal: no log lines of progress" sh -c '! grep -q "info progress" "$1"' _ "$T/tty.out"
check "on a terminal: the summary follows on a clean line" grep -Eq \
	"$(printf '\r\033\\[K')dnsbatch: 40 changes: 40 applied" "$T/tty.out"

##### a signal in the middle ##################################################################################
# interrupt NAME SIGNAL ARGS...: run apply with ARGS, its stderr on a pipe read until a progress line
# shows a submission; then the program is held on the full pipe while SIGNAL is sent; then the rest is
# read. Sets rc; stderr in $T/NAME.err.
interrupt() {
	local name=$1 sig=$2 line pid
	shift 2
	rm -f "$T/$name.fifo"
	mkfifo "$T/$name.fifo"
	"$DNSBATCH" apply "$@" --progress-interval 0 2>"$T/$name.fifo" &
	pid=$!
	PIDS+=("$pid")
	exec 3<"$T/$name.fifo"
	: >"$T/$name.err"
	while IFS= read -r line <&3; do
		printf '%s\n' "$line" >>"$T/$name.err"
		case $line in *" 0 submissions"*) ;; *progress:*submissions*) break ;; esac
	done
	kill -"$sig" "$pid"
	cat <&3 >>"$T/$name.err"
	exec 3<&-
	wait "$pid"
	rc=$?
}

creates "$T/plan3000.json" 3000 host example.test 10.1
interrupt mem INT --plan "$T/plan3000.json" "${mem[@]}" --drop-log "$T/mem.drops" --metrics-file "$T/mem.prom" \
	--output json >"$T/mem.json"
eq "SIGINT: exit code 4" "$rc" 4
read -r changes applied failed <<<"$(jq -r '"\(.changes) \(.applied) \(.failed)"' "$T/mem.json")"
eq "SIGINT: the report counts every change" "$changes" 3000
check "SIGINT: some applied before the stop, the rest failed ($applied applied, $failed failed)" \
	[ "$applied" -ge 1 -a "$failed" -ge 1 -a $((applied + failed)) -eq 3000 ]
check "SIGINT: the summary on stderr" grep -Eq "^dnsbatch: 3000 changes: $applied applied, 0 already applied, 0 dropped, $failed failed" \
	"$T/mem.err"
check "SIGINT: stderr says it was stopped and how to go on" grep -q 'stopped by SIGINT after the batch in flight' "$T/mem.err"
check "SIGINT: the changes not sent are told in one line, not one each" \
	sh -c 'grep -q "^.* warn $2 changes not sent: the apply was stopped" "$1" && ! grep -q "warn failed create" "$1"' \
	_ "$T/mem.err" "$failed"
eq "SIGINT: the drop log has every failed change" "$(wc -l <"$T/mem.drops" | tr -d ' ')" "$failed"
eq "SIGINT: failed, reason deadline, saying the apply was stopped" \
	"$(jq -r '"\(.outcome) \(.reason) \(.message)"' "$T/mem.drops" | sort -u)" \
	"failed deadline not sent: the apply was stopped before this change's batch began"
check "SIGINT: the metrics file counts them" \
	grep -Fxq "dnsbatch_changes_total{zone=\"example.test.\",outcome=\"failed\"} $failed" "$T/mem.prom"
check "SIGINT: the drop log turns back into a plan of the changes not sent" \
	sh -c '[ "$("$1" drops "$2" --plan | jq ".create | length")" = "$3" ]' _ "$DNSBATCH" "$T/mem.drops" "$failed"

zone_head example.test >"$T/z"
interrupt zone TERM --plan "$T/plan3000.json" --provider zonefile --zonefile "example.test=$T/z" --batch-size 1 \
	--output json >"$T/zone.json"
eq "SIGTERM, zonefile: exit code 4" "$rc" 4
check "SIGTERM, zonefile: stderr says SIGTERM" grep -q 'stopped by SIGTERM' "$T/zone.err"
eq "SIGTERM, zonefile: no temporary file left beside the zone" "$(find "$T" -name 'z.dnsbatch.*' | wc -l)" 0
eq "SIGTERM, zonefile: the zone holds exactly the changes reported applied" \
	"$("$DNSBATCH" records --provider zonefile --zonefile "example.test=$T/z" | grep -c '^host')" \
	"$(jq .applied "$T/zone.json")"
if command -v named-checkzone >/dev/null 2>&1; then
	check "SIGTERM, zonefile: named-checkzone accepts the zone" named-checkzone -q example.test "$T/z"
fi

[ "$failures" -eq 0 ]
