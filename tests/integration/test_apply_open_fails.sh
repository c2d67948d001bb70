#!/usr/bin/env bash
# test_apply_open_fails.sh - a provider whose open fails (issue 31): a transient failure (503 on Cloudflare's
# GET /zones/ID, Route53's GetHostedZone, Azure's zone listing, every try of PowerDNS's zone listing)
# ends every change of the plan failed, exit 4, told in the JSON summary and the drop log (one failed line per
# change) as an apply tells it; a fatal one (401: a wrong credential) still exits 2 and claims nothing (no summary,
# no drop log line). The conformance scenarios 101-open-read-fails and 102-open-credential-refused through
# tests/conformance/run.sh (the same fakes and fault proxy), then their exit codes, summaries and drop logs read here;
# then the metrics file, with Cloudflare's open finding nothing listening.
# Cloud DNS's open reads only the project's quotas, and goes on with the default limits when that read fails: its
# 101 is judged by the conformance run alone (the changes go on and are applied); its 102 is checked here.
# Env: BUILD, DNSBATCH; OPEN_PROVIDERS (default pdns,google,route53,cloudflare,azure).
set -u
export LC_ALL=C
cd "$(dirname "$0")/../.." || exit 1
. tests/integration/checks.sh
needs jq python3 curl openssl pdns_server
BUILD=${BUILD:-build}
providers=${OPEN_PROVIDERS:-pdns,google,route53,cloudflare,azure}
out=$(BUILD=$BUILD DNSB_KEEP_TMP=1 bash tests/conformance/run.sh --providers "$providers" --scenarios '10[12]-open-*' --jobs 2)
echo "$out" | grep -E '^(ok|not ok) ' | sed 's/^/# conformance: /'
TOP=$(echo "$out" | sed -n 's/^# temp dir kept: //p')
if [ -z "$TOP" ] || [ ! -d "$TOP" ]; then
	not_ok "the conformance run keeps its temp dir" "$(echo "$out" | tail -n 5)"
	exit 1
fi
eq "the conformance judge: no not ok line" "$(echo "$out" | grep -c '^not ok')" 0
# transient PROVIDER: 101's run, every read 503
transient() {
	local p=$1 d=$TOP/$1/101-open-read-fails
	eq "$p, every read 503: exit 4" "$(cat "$d/rc" 2>/dev/null)" 4
	eq "$p ... the summary: 3 changes, 3 failed, exit_code 4" \
		"$(jq -r '"\(.changes) \(.failed) \(.applied + .already_applied + .dropped) \(.exit_code)"' "$d/summary.json" 2>/dev/null)" "3 3 0 4"
	eq "$p ... the drop log: one failed (transient) line per change" \
		"$(jq -r '"\(.outcome) \(.reason)"' "$d/drops" 2>/dev/null | sort | uniq -c | awk '{ $1 = $1; print }')" "3 failed transient"
	check "$p ... each line says nothing was sent, and why" grep -q '"message":"not sent: the provider could not be opened: ' "$d/drops"
	check "$p ... the zone as it was" cmp -s "$d/before" "$d/after"
}
# fatal PROVIDER: 102's run, every read 401
fatal() {
	local p=$1 d=$TOP/$1/102-open-credential-refused
	eq "$p, every read 401: exit 2" "$(cat "$d/rc" 2>/dev/null)" 2
	eq "$p ... no summary, no drop log line" "$(cat "$d/summary.json" "$d/drops" 2>/dev/null | wc -c)" 0
	check "$p ... the zone as it was" cmp -s "$d/before" "$d/after"
}
for p in ${providers//,/ }; do
	[ "$p" = google ] || transient "$p"
	fatal "$p"
done
rm -rf "$TOP"

# The metrics file too: Cloudflare's open finds nothing listening (a connection refused is transient)
M=$(mktemp -d) || exit 1
CF_API_TOKEN=conformance "${DNSBATCH:-$BUILD/dnsbatch}" apply --plan examples/plans/clean.json --provider cloudflare \
	--cloudflare-api-endpoint http://127.0.0.1:1/client/v4 --cloudflare-zone-id 0123456789abcdef0123456789abcdef \
	--metrics-file "$M/m.prom" --drop-log "$M/d.jsonl" --output json >"$M/out.json" 2>"$M/err"
eq "cloudflare, nothing listening: exit 4" "$?" 4
eq "... the summary: 30 changes, 30 failed" "$(jq -r '"\(.changes) \(.failed)"' "$M/out.json" 2>/dev/null)" "30 30"
eq "... the metrics file counts them failed" "$(sed -n 's/^dnsbatch_changes_total{zone="",outcome="failed"} //p' "$M/m.prom" 2>/dev/null)" 30
check "... and has the apply's time" grep -q '^dnsbatch_last_apply_timestamp_seconds [1-9]' "$M/m.prom"
eq "... the drop log: 30 failed lines" "$(grep -c '"outcome":"failed"' "$M/d.jsonl" 2>/dev/null)" 30
check "... the text summary on stderr" grep -q '^dnsbatch: 30 changes: 0 applied, 0 already applied, 0 dropped, 30 failed' "$M/err"
# A group with an invalid member is dropped whole, as the engine drops it before sending; the rest failed
cat >"$M/inv.json" <<'PLAN'
{"create": [{"dnsName": "o1.example.com", "recordType": "A", "recordTTL": 300, "targets": ["300.0.2.72"], "labels": {"ownedRecord": "o1.example.com"}},
  {"dnsName": "a-o1.example.com", "recordType": "TXT", "recordTTL": 300, "targets": ["\"heritage=external-dns,external-dns/owner=default\""], "labels": {"ownedRecord": "o1.example.com"}},
  {"dnsName": "o2.example.com", "recordType": "A", "recordTTL": 300, "targets": ["192.0.2.2"]}]}
PLAN
CF_API_TOKEN=conformance "${DNSBATCH:-$BUILD/dnsbatch}" apply --plan "$M/inv.json" --provider cloudflare \
	--cloudflare-api-endpoint http://127.0.0.1:1/client/v4 --cloudflare-zone-id 0123456789abcdef0123456789abcdef \
	--drop-log "$M/inv.jsonl" --output json >"$M/inv.out" 2>"$M/inv.err"
eq "an invalid member's group: exit 4" "$?" 4
eq "... its 2 changes dropped (invalid), the other failed" \
	"$(jq -r '"\(.dropped) \(.failed)"' "$M/inv.out" 2>/dev/null) $(jq -r .outcome "$M/inv.jsonl" 2>/dev/null | tr '\n' ' ')" \
	"2 1 dropped dropped failed "
rm -rf "$M"
[ "$failures" -eq 0 ]
