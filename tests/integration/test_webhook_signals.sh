#!/usr/bin/env bash
# test_webhook_signals.sh - SIGTERM while `dnsbatch serve` applies a plan:
# the apply in flight finishes and its 204 reaches external-dns, new
# connections are refused, the drop log is flushed, the exit status is 0.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/integration/extdns_client.sh

tmp=$(mktemp -d "${TMPDIR:-/tmp}/dnsbatch-webhook-signals.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# Every submission takes 1.5 s: long enough to signal in the middle.
extdns_serve "$tmp/serve.log" --provider memory --memory-zone example.com --memory-faults '*:latency=1.5' \
	--drop-log "$tmp/drops.jsonl" --max-retries 0 || { echo "not ok - serve starts"; exit 1; }
extdns_check "serve ready" extdns_wait_ready 10

printf '{"create":[{"dnsName":"app.example.com","targets":["192.0.2.1"],"recordType":"A"}]}' >"$tmp/plan.json"
# The POST runs in a subshell: its status comes back through a file.
( extdns_post "$EXTDNS_API" /records "$tmp/plan.json" >/dev/null; echo "$EXTDNS_STATUS" >"$tmp/status" ) &
post_pid=$!
sleep 0.5
kill -TERM "$EXTDNS_PID"
sleep 0.3
curl -s -m 2 -o /dev/null "$EXTDNS_API/healthz"
extdns_check "while draining: new connections refused at once" [ $? = 7 ]
wait "$post_pid"
extdns_check "the apply in flight finished with 204" [ "$(cat "$tmp/status")" = 204 ]
wait "$EXTDNS_PID"
extdns_check "exit status 0" [ $? = 0 ]
extdns_check "logged the wait for the apply" grep -q 'waiting for 1 apply' "$tmp/serve.log"
extdns_check "logged the applied plan before stopping" \
	sh -c "grep -n 'POST /records: 1 changes: 1 applied' '$tmp/serve.log' | cut -d: -f1 | \
	       xargs -I{} awk -v l={} '/stopped\$/ && NR > l { found = 1 } END { exit !found }' '$tmp/serve.log'"
extdns_done
