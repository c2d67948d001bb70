#!/usr/bin/env bash
# test_webhook_droplog.sh - the drop log and stderr of `dnsbatch serve` stay
# bounded (issue 8 item 12): the same plan with conflicts on every loop grows
# the drop log only on the first (a quarantined group is written when its hold
# starts, then counted only); a body of 200,000 empty endpoints writes a
# handful of stderr lines and, with --drop-log-max-size 1m, at most about 2 MB
# across FILE and FILE.1; after logrotate moves the file, SIGHUP makes the next
# drop land in a new file at the path. Also `apply --drop-log-max-size`.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/integration/extdns_client.sh

tmp=$(mktemp -d "${TMPDIR:-/tmp}/dnsbatch-webhook-droplog.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cp examples/zones/example.com.zone "$tmp/example.com.zone"
drops=$tmp/drops.jsonl

bytes() { if [ -f "$1" ]; then wc -c <"$1" | tr -d ' '; else echo 0; fi; }
lines() { if [ -f "$1" ]; then wc -l <"$1" | tr -d ' '; else echo 0; fi; }
# The sum of every series whose name and labels start with $1 (labels may be added after them).
metric_sum() {
	curl -s "$EXTDNS_MON/metrics" | awk -v p="$1" 'index($0, p) == 1 { s += $NF } END { print s + 0 }'
}
MiB=1048576

extdns_serve "$tmp/serve.log" --provider zonefile --zonefile "example.com=$tmp/example.com.zone" \
	--drop-log "$drops" --drop-log-max-size 1m --max-body-size 4m || { echo "not ok - serve starts"; exit 1; }
echo "ok - serve starts with --drop-log-max-size 1m"
extdns_check "healthz ready once the provider answered" extdns_wait_ready 10

##### the same plan, three loops #############################################################

for loop in 1 2 3; do
	extdns_post "$EXTDNS_API" /records examples/plans/conflicts.json >/dev/null
	status[loop]=$EXTDNS_STATUS
	size[loop]=$(bytes "$drops")
	logged[loop]=$(lines "$tmp/serve.log")
done
echo "# conflicts.json x3: drop log ${size[1]} ${size[2]} ${size[3]} bytes; stderr ${logged[1]} ${logged[2]} ${logged[3]} lines"
extdns_check "conflicts.json x3: every POST answers 204" [ "${status[1]}${status[2]}${status[3]}" = 204204204 ]
extdns_check "loop 1: 12 drops written (8 conflicts, 2 invalid, 2 no_zone)" [ "$(lines "$drops")" = 12 ]
extdns_check "loop 1: the 8 conflicts say their quarantine started, 60 s" \
	[ "$(jq -s '[.[] | select(.reason == "conflict" and .quarantine == "start" and .quarantine_seconds == 60)] | length' "$drops")" = 8 ]
extdns_check "loops 2 and 3: the drop log does not grow" [ "${size[1]}:${size[1]}" = "${size[2]}:${size[3]}" ]
extdns_check "loops 2 and 3: one stderr line each (the POST summary)" \
	[ "$((logged[2] - logged[1])):$((logged[3] - logged[2]))" = 1:1 ]
extdns_check "loop 1: one stderr line per conflict, one per reason for invalid and no_zone" \
	[ "$(grep -c ' warn dropped ' "$tmp/serve.log")" = 10 ]
extdns_check "loop 1: invalid summed up with its detail and examples" \
	grep -q "warn dropped 2 changes: invalid (.*e.g. bad.example.com. A, a-bad.example.com. TXT)" "$tmp/serve.log"
# The metrics still count every loop: 3 quarantined A records a loop (legacy, shop, grpc.search).
extdns_check "metrics: quarantined drops counted on loops 2 and 3" \
	[ "$(metric_sum 'dnsbatch_dropped_changes_total{zone="example.com.",record_type="A",reason="quarantined"')" = 6 ]
extdns_check "metrics: invalid drops counted on every loop" \
	[ "$(metric_sum 'dnsbatch_dropped_changes_total{zone="example.com.",record_type="A",reason="invalid"')" = 3 ]
# Written once, the drop log is still the whole plan of what was dropped.
"$DNSBATCH" drops "$drops" --plan >"$tmp/replay.json"
extdns_check "drops --plan: the 12 dropped changes, each once" \
	jq -e '(.create | length) == 8 and (.delete | length) == 2 and (.updateOld | length) == 2' "$tmp/replay.json"

##### 200,000 empty endpoints in one body ####################################################

python3 -c 'import sys; sys.stdout.write("{\"create\":[" + ",".join(["{}"] * 200000) + "]}")' >"$tmp/empty.json"
before=$(lines "$tmp/serve.log")
extdns_post "$EXTDNS_API" /records "$tmp/empty.json" >/dev/null
echo "# 200,000 empty endpoints ($(bytes "$tmp/empty.json") bytes): stderr +$(( $(lines "$tmp/serve.log") - before )) lines;" \
	"drop log $(bytes "$drops") + $(bytes "$drops.1") bytes"
extdns_check "200,000 empty endpoints: 204" [ "$EXTDNS_STATUS" = 204 ]
extdns_check "200,000 empty endpoints: a handful of stderr lines" [ "$(( $(lines "$tmp/serve.log") - before ))" -le 5 ]
extdns_check "200,000 empty endpoints: one line says it all" \
	grep -q 'warn dropped 200000 changes: invalid (dnsName is missing: 200000; e.g. \$.create\[0\], \$.create\[1\], \$.create\[2\], ...)' \
	"$tmp/serve.log"
within() { [ -s "$1" ] && [ "$(bytes "$1")" -le "$2" ]; } # FILE BYTES: not empty, at most BYTES
extdns_check "drop log rotated: FILE and FILE.1 both within 1 MiB" \
	bash -c "$(declare -f bytes within); within '$drops' $MiB && within '$drops.1' $MiB"
extdns_check "drop log: at most ~2 MB across FILE and FILE.1" [ "$(( $(bytes "$drops") + $(bytes "$drops.1") ))" -le $((2 * MiB)) ]
extdns_check "drop log: whole lines only, one per change" \
	jq -e -s 'all(.reason == "invalid" and .change == {"create": [{}]})' "$drops"
extdns_check "metrics: 200,000 invalid drops counted" \
	[ "$(metric_sum 'dnsbatch_dropped_changes_total{zone="",record_type="unknown",reason="invalid"')" = 200000 ]

##### logrotate: mv, then SIGHUP ###########################################################

mv "$drops" "$tmp/drops.jsonl.rotated"
rm -f "$drops.1"
moved=$(bytes "$tmp/drops.jsonl.rotated")
kill -HUP "$EXTDNS_PID"
for _ in $(seq 1 100); do
	grep -q 'received SIGHUP: drop log reopened' "$tmp/serve.log" && break
	sleep 0.05
done
extdns_check "SIGHUP: logged, the server still up" \
	sh -c "grep -q 'received SIGHUP: drop log reopened at $drops' '$tmp/serve.log' && kill -0 $EXTDNS_PID"
printf '{"create":[{"dnsName":"late.other.org","targets":["192.0.2.9"],"recordType":"A"}]}' >"$tmp/late.json"
extdns_post "$EXTDNS_API" /records "$tmp/late.json" >/dev/null
extdns_check "after SIGHUP: the next drop lands in a new file at the path" \
	jq -e -s 'length == 1 and .[0].change.create[0].dnsName == "late.other.org"' "$drops"
extdns_check "after SIGHUP: the moved file is left as it was" [ "$(bytes "$tmp/drops.jsonl.rotated")" = "$moved" ]

extdns_stop
extdns_check "SIGTERM: exit status 0" [ "$EXTDNS_EXIT" = 0 ]

##### apply --drop-log-max-size ##############################################################

cp examples/zones/example.com.zone "$tmp/apply.zone"
"$DNSBATCH" apply --plan examples/plans/conflicts.json --provider zonefile --zonefile "example.com=$tmp/apply.zone" \
	--drop-log "$tmp/apply.jsonl" --drop-log-max-size 2k 2>/dev/null
extdns_check "apply --drop-log-max-size 2k: exit 3" [ $? = 3 ]
extdns_check "apply --drop-log-max-size 2k: rotated, each file within 2 KiB" \
	bash -c "$(declare -f bytes within); within '$tmp/apply.jsonl' 2048 && within '$tmp/apply.jsonl.1' 2048"
"$DNSBATCH" apply --plan examples/plans/conflicts.json --provider zonefile --zonefile "example.com=$tmp/apply.zone" \
	--drop-log "$tmp/apply.jsonl" --drop-log-max-size 1x 2>"$tmp/bad.err"
extdns_check "apply --drop-log-max-size 1x: exit 2" [ $? = 2 ]
extdns_check "apply --drop-log-max-size 1x: the flag named" grep -q -- '--drop-log-max-size 1x' "$tmp/bad.err"
"$DNSBATCH" serve --provider zonefile --zonefile "example.com=$tmp/apply.zone" --drop-log-max-size -1 2>/dev/null
extdns_check "serve --drop-log-max-size -1: exit 2" [ $? = 2 ]
extdns_done
