#!/usr/bin/env bash
#
# test_webhook_cloudflare.sh - `dnsbatch serve --provider cloudflare` as external-dns's sidecar,
# against tests/fakes/fake_cloudflare.py (listing pages of 3 followed): external-dns's per-endpoint
# providerSpecific properties cloudflare-proxied and cloudflare-record-comment round-trip. One loop
# creates the desired records (one batch), GET /records lists them back with their properties in the
# form AdjustEndpoints gives (defaults resolved: --cloudflare-record-comment; a proxied record's TTL
# automatic, 1), so that the next loops write nothing; a changed proxied flag is one update.
#
# Prints "ok - NAME" or "not ok - NAME" per check; exits 1 if any failed.
. "$(dirname "$0")/checks.sh"
test_begin
. tests/integration/extdns_client.sh
. tests/integration/cloudflare_fake.sh

fake_begin jsonschema python3-jsonschema openssl jq curl python3
echo "$Z1 taken.example.com 300 A 198.51.100.7" >"$T/seed"
start_cf hook --seed "$T/seed" || exit 1

PROXIED=external-dns.alpha.kubernetes.io/cloudflare-proxied
COMMENT=external-dns.alpha.kubernetes.io/cloudflare-record-comment
export CF_API_TOKEN=$TOKEN
extdns_serve "$T/serve.log" --provider cloudflare --cloudflare-api-endpoint "$URL/client/v4" \
	--cloudflare-ca-file "$T/ca.pem" --cloudflare-zone-id "$Z1" --cloudflare-record-comment managed \
	--drop-log "$T/drops.jsonl" ||
	{ not_ok "dnsbatch serve --provider cloudflare starts" "$(tail -5 "$T/serve.log")"; exit 1; }

# props JSON...: the endpoint on stdin with these providerSpecific pairs ("NAME=VALUE")
props() {
	jq -c --args '.providerSpecific = [$ARGS.positional[] | capture("(?<name>[^=]*)=(?<value>.*)")]' "$@"
}
desired() { # PROXIED: the proxied flag of web (an annotation on the endpoint, as external-dns's sources give it)
	list "$(ep plain.example.com A 300 192.0.2.10)" \
		"$(ep web.example.com A 300 192.0.2.20 | props "$PROXIED=$1")" \
		"$(ep docs.example.com CNAME 300 pages.example.net | props "$PROXIED=false")" \
		"$(ep txt.example.com TXT 300 "v=spf1 -all" | props "$PROXIED=true")" \
		"$(ep own.example.com A 600 192.0.2.30 | props "$COMMENT=by hand")"
}
desired true >"$T/desired.json"
eq "AdjustEndpoints: a proxied record's TTL is automatic (1), its flag kept; a default flag and the default comment left out" \
	"$(extdns_post "$EXTDNS_API" /adjustendpoints "$T/desired.json" |
		jq -c '[.[] | [.dnsName, .recordTTL, ([.providerSpecific[]? | .value] | join(","))]]')" \
	'[["plain.example.com",300,""],["web.example.com",1,"true"],["docs.example.com",300,""],["txt.example.com",300,""],["own.example.com",600,"by hand"]]'
eq "loop 1 creates the 5 records" "$(python3 tests/integration/extdns_loop.py "$EXTDNS_API" "$T/desired.json")" "5 204"
eq "loops 2-4 write nothing (external-dns's plan converges)" \
	"$(for i in 2 3 4; do python3 tests/integration/extdns_loop.py "$EXTDNS_API" "$T/desired.json"; done | paste -sd' ')" \
	"0 - 0 - 0 -"
eq "the batches after the first loop: none" "$(stat .batches)" 1
records() { # the fake's records but the seeded one: NAME TTL PROXIED COMMENT
	curl -s --cacert "$T/ca.pem" "$URL/_fake/zone/$Z1" |
		jq -r '.records[] | select(.name != "taken.example.com") | "\(.name) \(.ttl) \(.proxied) \(.comment)"' | sort
}
eq "the fake holds each record with its flag, TTL and comment" "$(records | tr '\n' ';')" \
	"docs.example.com 300 false managed;own.example.com 600 false by hand;plain.example.com 300 false managed;txt.example.com 300 false managed;web.example.com 1 true managed;"
eq "GET /records lists the proxied flag and the comment that are not the defaults" \
	"$(extdns_get "$EXTDNS_API" /records | jq -c '[.[] | select(.providerSpecific) | [.dnsName, .recordTTL, .providerSpecific]]')" \
	"[[\"own.example.com\",600,[{\"name\":\"$COMMENT\",\"value\":\"by hand\"}]],[\"web.example.com\",1,[{\"name\":\"$PROXIED\",\"value\":\"true\"}]]]"

desired false >"$T/desired2.json"
eq "a changed proxied flag is one update" "$(python3 tests/integration/extdns_loop.py "$EXTDNS_API" "$T/desired2.json")" "1 204"
eq "then nothing again" "$(python3 tests/integration/extdns_loop.py "$EXTDNS_API" "$T/desired2.json")" "0 -"
eq "the fake holds web unproxied with its own TTL" "$(records | grep '^web\.')" "web.example.com 300 false managed"
eq "the record seeded beforehand is left alone" "$(zone | grep '^taken\.')" "taken.example.com 300 A 198.51.100.7"
eq "nothing dropped" "$(wc -l <"$T/drops.jsonl" 2>/dev/null || echo 0)" 0

# ---- issue 31: a TTL below Cloudflare's minimum, SRV, and a type the provider does not write ----
list "$(ep short.example.com A 30 192.0.2.50)" "$(ep _sip._tcp.example.com SRV 300 '10 5 5060 sip.example.com.')" \
	"$(ep mx.example.com MX 300 '10 mail.example.com.')" >"$T/types.json"
eq "AdjustEndpoints: TTL 30 (not proxied) is the automatic 1 Cloudflare writes and lists; SRV and MX as they are" \
	"$(extdns_post "$EXTDNS_API" /adjustendpoints "$T/types.json" | jq -c '[.[] | [.dnsName, .recordTTL]]')" \
	'[["short.example.com",1],["_sip._tcp.example.com",300],["mx.example.com",300]]'
eq "TTL 30, SRV and MX: the loops write 3, then nothing" \
	"$(for i in 1 2 3; do python3 tests/integration/extdns_loop.py "$EXTDNS_API" "$T/types.json"; done | paste -sd' ')" \
	"3 204 0 - 0 -"
eq "the SRV record is held as written" "$(zone | grep ' SRV ')" "_sip._tcp.example.com 300 SRV 10 5 5060 sip.example.com"
list "$(ep host.example.com SSHFP 300 '1 1 0123456789abcdef0123456789abcdef01234567')" >"$T/sshfp.json"
eq "AdjustEndpoints: an SSHFP endpoint (a type the provider does not write) is returned as it came" \
	"$(extdns_post "$EXTDNS_API" /adjustendpoints "$T/sshfp.json" | jq -c '.[0] | [.dnsName, .recordType, .recordTTL]')" \
	'["host.example.com","SSHFP",300]'
check "AdjustEndpoints: and logged as one the provider cannot apply" grep -q "provider cloudflare writes no SSHFP record" \
	"$T/serve.log"
eq "AdjustEndpoints: and counted unsupported" \
	"$(curl -s "$EXTDNS_MON/metrics" | sed -n 's/^dnsbatch_webhook_adjusted_endpoints_total{reason="unsupported"} //p')" 1
clean_requests hook
extdns_stop

# ---- --domain-filter: of the zones GET /zones gives (pages of 2 followed), only those a name can lie in ----
Z3=00112233445566778899aabbccddeeff
start_cf zones --zone "$Z3=example.net" || exit 1
unset CF_API_TOKEN
export CF_API_KEY=$KEY CF_API_EMAIL=$EMAIL
extdns_serve "$T/serve2.log" --provider cloudflare --cloudflare-api-endpoint "$URL/client/v4" \
	--cloudflare-ca-file "$T/ca.pem" --domain-filter example.org ||
	{ not_ok "dnsbatch serve --provider cloudflare --domain-filter starts" "$(tail -5 "$T/serve2.log")"; exit 1; }
check "GET /zones: the three zones of the key's pages, one served" grep -q "serving 1 of 3 zones of provider cloudflare" \
	"$T/serve2.log"
eq "GET /zones: two pages" "$(grep -c 'GET /client/v4/zones?per_page=50&page=' "$T/zones.fake.log")" 2
list "$(ep new.example.org A 300 192.0.2.40)" >"$T/desired3.json"
eq "a record in the zone left is created" "$(python3 tests/integration/extdns_loop.py "$EXTDNS_API" "$T/desired3.json")" "1 204"
eq "it is in example.org's zone" "$(zone "$Z2" | tr '\n' ';')" "new.example.org 300 A 192.0.2.40;"
extdns_stop
echo "# $failures failed"
[ "$failures" -eq 0 ]
