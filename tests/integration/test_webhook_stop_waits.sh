#!/usr/bin/env bash
# test_webhook_stop_waits.sh - SIGTERM while `dnsbatch serve` applies a plan that waits to retry (issue 38 §1),
# the memory provider answering every submission 429 Retry-After 8:
#  - serve made no stop pipe (dnsb_stop_init), so its stop woke no wait: the apply slept its 8 s out;
#  - serve has no engine stop flag, so a wait cut short let every retry left go back to back (20 rate-limit
#    waits: 20 more submissions to a provider that had just said 429).
# Now the apply ends after its one submission, and serve exits at once.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/integration/extdns_client.sh

tmp=$(mktemp -d "${TMPDIR:-/tmp}/dnsbatch-webhook-stop-waits.XXXXXX")
trap '[ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT # KEEP=1: keep serve.log

extdns_serve "$tmp/serve.log" --provider memory --memory-zone example.com --memory-faults '*:rate-limit=8' \
	--backoff-base 8 --backoff-cap 8 --drop-log "$tmp/drops.jsonl" ||
	{ echo "not ok - serve starts"; exit 1; }
extdns_check "serve ready" extdns_wait_ready 10

printf '{"create":[{"dnsName":"app.example.com","targets":["192.0.2.1"],"recordType":"A"}]}' >"$tmp/plan.json"
( extdns_post "$EXTDNS_API" /records "$tmp/plan.json" >/dev/null; echo "$EXTDNS_STATUS" >"$tmp/status" ) &
post_pid=$!
for ((i = 0; i < 200; i++)); do grep -q 'retrying in' "$tmp/serve.log" && break; sleep 0.05; done
extdns_check "the apply waits to retry (Retry-After 8 s)" grep -q 'retrying in' "$tmp/serve.log"
start=$(date +%s)
kill -TERM "$EXTDNS_PID"
wait "$post_pid"
wait "$EXTDNS_PID"
rc=$?
secs=$(($(date +%s) - start))
extdns_check "serve exits 0 (exit $rc) within 5 s of SIGTERM (${secs} s)" [ "$rc" = 0 -a "$secs" -le 5 ]
extdns_check "the apply in flight got its answer" [ -s "$tmp/status" ]
extdns_check "no retry went in place of the wait cut short: one 'retrying in', not 20" \
	[ "$(grep -c 'retrying in' "$tmp/serve.log")" = 1 ]
extdns_done
