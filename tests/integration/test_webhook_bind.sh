#!/usr/bin/env bash
# test_webhook_bind.sh - `dnsbatch serve --provider rfc2136` against a real
# BIND (named on a free loopback port, TSIG), driven as external-dns drives
# it: GET /records by AXFR, a plan with conflicts (204, the rest in the zone,
# the conflicts dropped and logged), the conflicting groups quarantined on
# the next loop with no DNS request, and 503 when the server is gone.
. "$(dirname "$0")/checks.sh"
test_begin
. tests/integration/servers.sh
. tests/integration/extdns_client.sh

for tool in named dig tsig-keygen; do
	command -v "$tool" >/dev/null || { echo "not ok - $tool is installed (apt-get install bind9 bind9-utils bind9-dnsutils)"; exit 1; }
done
dnsb_servers_init
tmp=$(mktemp -d "$DNSB_SERVERS_TMP/webhook.XXXXXX")

{ zone_head example.test; cat; } >"$tmp/zone" <<'EOF'
taken    IN A   198.51.100.1
old      IN A   192.0.2.99
EOF
dnsb_tsig_keygen "$tmp/key.conf" || exit 1
if ! dnsb_start_named example.test "$tmp/zone" "$tmp/key.conf"; then
	echo "not ok - named starts"
	exit 1
fi
echo "ok - named starts on 127.0.0.1:$DNSB_SERVER_PORT"
named_pid=$DNSB_SERVER_PID

ep() { # NAME IP RESOURCE: an A endpoint and its TXT registry record, as JSON list items
	printf '{"dnsName":"%s","targets":["%s"],"recordType":"A","recordTTL":300,"labels":{"owner":"default","resource":"%s"}},' "$1" "$2" "$3"
	printf '{"dnsName":"a-%s","targets":["\\"heritage=external-dns,external-dns/owner=default,external-dns/resource=%s\\""],"recordType":"TXT","labels":{"ownedRecord":"%s"}}' "$1" "$3" "$1"
}
{
	printf '{"create":[%s,%s,%s],' "$(ep app.example.test 203.0.113.10 ingress/default/app)" \
		"$(ep taken.example.test 203.0.113.11 ingress/default/taken)" "$(ep api.example.test 203.0.113.12 ingress/default/api)"
	# Deleting what is not there: BIND says NXRRSET, the read-back finds the
	# desired state (absent) already in effect: already_applied, not dropped.
	printf '"delete":[{"dnsName":"gone.example.test","targets":["192.0.2.98"],"recordType":"A","recordTTL":300}]}'
} >"$tmp/plan.json"
{
	printf '{"create":[%s],' "$(ep taken.example.test 203.0.113.11 ingress/default/taken)"
	printf '"delete":[{"dnsName":"gone.example.test","targets":["192.0.2.98"],"recordType":"A","recordTTL":300}]}'
} >"$tmp/plan-next.json"
printf '{"create":[%s]}' "$(ep late.example.test 203.0.113.13 ingress/default/late)" >"$tmp/plan-late.json"
jq -e . "$tmp/plan.json" >/dev/null || { echo "not ok - test plan is JSON"; exit 1; }

extdns_serve "$tmp/serve.log" --provider rfc2136 --rfc2136-host 127.0.0.1 --rfc2136-port "$DNSB_SERVER_PORT" \
	--rfc2136-zone example.test --rfc2136-tsig-keyfile "$tmp/key.conf" --rfc2136-timeout 1 --max-retries 0 \
	--drop-log "$tmp/drops.jsonl" || { echo "not ok - serve starts"; exit 1; }
echo "ok - serve starts"
extdns_check "healthz ready once BIND answered" extdns_wait_ready 10

extdns_get "$EXTDNS_API" / >"$tmp/neg.json"
extdns_check "GET / media type byte for byte" [ "$EXTDNS_CT" = "$EXTDNS_MEDIA_TYPE" ]
extdns_get "$EXTDNS_API" /records >"$tmp/records.json"
extdns_check "GET /records by AXFR" jq -e 'any(.dnsName == "taken.example.test" and .recordType == "A" and .targets == ["198.51.100.1"])' "$tmp/records.json"

extdns_post "$EXTDNS_API" /records "$tmp/plan.json" >/dev/null
extdns_check "POST /records with conflicts answers 204" [ "$EXTDNS_STATUS" = 204 ]
dnsb_axfr "$DNSB_SERVER_PORT" example.test "$tmp/key.conf" | tr -s '\t ' '  ' >"$tmp/axfr.txt"
extdns_check "app applied in BIND" grep -q '^app\.example\.test\. 300 A 203\.0\.113\.10$' "$tmp/axfr.txt"
extdns_check "api applied in BIND" grep -q '^api\.example\.test\. 300 A 203\.0\.113\.12$' "$tmp/axfr.txt"
extdns_check "their ownership records applied in BIND" [ "$(grep -cE '^a-(app|api)\.example\.test\. [0-9]+ TXT ' "$tmp/axfr.txt")" = 2 ]
extdns_check "the conflicting record untouched in BIND" grep -q '^taken\.example\.test\. 300 A 198\.51\.100\.1$' "$tmp/axfr.txt"
extdns_check "no ownership record for the conflict" sh -c "! grep -q '^a-taken' '$tmp/axfr.txt'"
extdns_check "drop log: the group's 2 changes dropped for conflict" \
	[ "$(jq -s '[.[] | select(.outcome == "dropped" and .reason == "conflict")] | length' "$tmp/drops.jsonl")" = 2 ]
extdns_check "delete of an absent record: already applied, not logged" \
	[ "$(extdns_metric 'dnsbatch_changes_total{zone="example.test.",outcome="already_applied"}')" = 1 ]
extdns_check "drop log: BIND's rcode recorded" jq -e -s 'all(.code == "YXRRSET" or .code == "NXRRSET")' "$tmp/drops.jsonl"
extdns_check "metrics: conflicts counted" \
	[ "$(extdns_metric 'dnsbatch_dropped_changes_total{zone="example.test.",record_type="A",reason="conflict",cause="exists"}')" = 1 ]

requests() {
	curl -s "$EXTDNS_MON/metrics" |
		awk '/^dnsbatch_provider_requests_total\{provider="rfc2136",operation="(submit|read)"/ { s += $NF } END { print s + 0 }'
}
before=$(requests)
extdns_post "$EXTDNS_API" /records "$tmp/plan-next.json" >/dev/null
after=$(requests)
extdns_check "next loop: the conflicting groups answer 204" [ "$EXTDNS_STATUS" = 204 ]
# Held back, the group's 2 changes are counted, not written again: their lines say the quarantine started.
extdns_check "drop log: the group's 2 changes quarantined, written once" \
	[ "$(jq -s '[.[] | select(.quarantine == "start")] | length' "$tmp/drops.jsonl")" = 2 ]
# The plan still holds the delete (not quarantined: it never dropped), which
# costs its one UPDATE and one read-back; the quarantined group costs none.
extdns_check "next loop: no DNS request for the quarantined group" [ "$((after - before))" = 2 ]

# BIND goes away: the new change fails (transient) and external-dns is told to retry.
dnsb_stop_pid "$named_pid"
extdns_post "$EXTDNS_API" /records "$tmp/plan-late.json" >/dev/null
extdns_check "provider down: POST /records answers 503" [ "$EXTDNS_STATUS" = 503 ]
extdns_check "provider down: drop log says failed, transient" \
	[ "$(jq -s '[.[] | select(.outcome == "failed" and .reason == "transient")] | length' "$tmp/drops.jsonl")" = 2 ]
extdns_check "provider down: /healthz stays ready (it answered once)" [ "$(curl -s -o /dev/null -w '%{http_code}' "$EXTDNS_MON/healthz")" = 200 ]
extdns_get "$EXTDNS_API" /records >/dev/null
extdns_check "provider down: GET /records is a 5xx (a soft error)" [ "${EXTDNS_STATUS:0:1}" = 5 ]

extdns_stop
extdns_check "SIGTERM: exit status 0" [ "$EXTDNS_EXIT" = 0 ]
extdns_done
