#!/usr/bin/env bash
# test_webhook_failed_summary.sh - failed changes are told per zone and reason
# (issue 21): a POST /records of 2,500 creates in one zone and 10 in another,
# every submission refused as transient (memory provider's fault script, no
# retries), answers 503 and leaves one stderr line per zone and reason (not one
# per change), at most 1,000 drop-log lines per zone and reason plus one line
# counting the rest, which `dnsbatch drops` counts as the changes it stands for.
# The 503's body says how many changes are in effect and how many failed.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/integration/extdns_client.sh

tmp=$(mktemp -d "${TMPDIR:-/tmp}/dnsbatch-webhook-failed.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
drops=$tmp/drops.jsonl

awk 'BEGIN {
	printf "{\"Create\":["
	for (i = 0; i < 2510; i++)
		printf "%s{\"dnsName\":\"h%d.%s\",\"targets\":[\"10.0.%d.%d\"],\"recordType\":\"A\"}", i ? "," : "", i,
			i < 2500 ? "a.test" : "b.test", int(i / 256) % 256, i % 256
	printf "]}"
}' >"$tmp/plan.json"

extdns_serve "$tmp/serve.log" --provider memory --memory-zone a.test --memory-zone b.test \
	--memory-faults '*:transient' --max-retries 0 --drop-log "$drops" || { echo "not ok - serve starts"; exit 1; }
extdns_check "healthz ready" extdns_wait_ready 10
extdns_post "$EXTDNS_API" /records "$tmp/plan.json" >"$tmp/answer"
extdns_check "every change failed: 503" [ "$EXTDNS_STATUS" = 503 ]
extdns_check "the answer says what is in effect and what failed" \
	grep -q '^0 of 2510 changes in effect (0 applied, 0 already applied), 0 dropped, 2510 failed' "$tmp/answer"
extdns_stop

summary() { grep -c " warn zone $1: $2 changes\{0,1\} failed: transient (" "$tmp/serve.log"; }
extdns_check "stderr: one line for a.test. (2500 failed, transient)" [ "$(summary a.test. 2500)" = 1 ]
extdns_check "stderr: one line for b.test. (10 failed, transient)" [ "$(summary b.test. 10)" = 1 ]
extdns_check "stderr: no line per change" [ "$(grep -c 'warn failed create' "$tmp/serve.log")" = 0 ]
extdns_check "stderr: a handful of lines in all" [ "$(wc -l <"$tmp/serve.log")" -lt 12 ]
extdns_check "stderr: a.test.'s line says how many the drop log left out" \
	grep -q 'zone a.test.: .*the drop log has the first 1000, and one line for the 1500 left out' "$tmp/serve.log"

zone_lines() { jq -c --arg z "$1" 'select(.zone == $z)' "$drops" | wc -l; }
extdns_check "drop log: a.test. has 1,000 lines and one for the rest" [ "$(zone_lines a.test.)" = 1001 ]
extdns_check "drop log: the rest's line counts 1,500 failed (transient), its change empty" \
	[ "$(jq -c 'select(.omitted) | [.zone, .outcome, .reason, .omitted, .change]' "$drops")" = \
	  '["a.test.","failed","transient",1500,{}]' ]
extdns_check "drop log: b.test. has its 10 lines" [ "$(zone_lines b.test.)" = 10 ]
extdns_check "drops: counts 2510 changes" grep -q '^2510 changes in' <("$DNSBATCH" drops "$drops")
extdns_check "drops --plan: the 1,010 changes written, each once" \
	[ "$("$DNSBATCH" drops --plan "$drops" | jq '.create | length')" = 1010 ]
extdns_done
