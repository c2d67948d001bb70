#!/usr/bin/env bash
#
# test_webhook_digitalocean.sh - `dnsbatch serve --provider digitalocean` as external-dns's sidecar, against
# tests/fakes/fake_digitalocean.py (pages of 3 followed; every request checked against DigitalOcean's OpenAPI
# description): every type external-dns wrote through its removed in-tree DigitalOcean provider round-trips, a TTL
# below DigitalOcean's 30 s minimum adjusted by AdjustEndpoints to what `records` lists, so that the loops after the
# creating one write nothing (1,0,0,0,0); an update is one loop's write, made in place.
#
# Prints "ok - NAME" or "not ok - NAME" per check; exits 1 if any failed.
. "$(dirname "$0")/checks.sh"
test_begin
. tests/integration/extdns_client.sh
. tests/integration/digitalocean_fake.sh

fake_begin jsonschema python3-jsonschema openssl jq curl python3
start_do hook || exit 1
rec taken A 300 198.51.100.7 | load

extdns_serve "$T/serve.log" --provider digitalocean --digitalocean-api-endpoint "$URL" --digitalocean-ca-file "$T/ca.pem" \
	--digitalocean-token-file "$T/do.token" --digitalocean-api-page-size 3 --drop-log "$T/drops.jsonl" ||
	{ not_ok "dnsbatch serve --provider digitalocean starts" "$(tail -5 "$T/serve.log")"; exit 1; }

desired() {
	list "$(ep www.example.com A 300 "$1" 192.0.2.11)" "$(ep v6.example.com AAAA 300 2001:db8::10)" \
		"$(ep docs.example.com CNAME 300 pages.example.net)" "$(ep txt.example.com TXT 300 'v=spf1 include:_spf.example.net -all')" \
		"$(ep quoted.example.com TXT 300 'say "hi"; then go')" "$(ep mx.example.com MX 300 '10 mail.example.com')" \
		"$(ep _sip._tcp.example.com SRV 300 '10 5 5060 sip.example.com')" \
		"$(ep caa.example.com CAA 300 '0 issue "letsencrypt.org"')" "$(ep short.example.com A 10 192.0.2.30)"
}
desired 192.0.2.10 >"$T/desired.json"
eq "loop 1 creates the 9 endpoints" "$(python3 tests/integration/extdns_loop.py "$EXTDNS_API" "$T/desired.json")" "9 204"
eq "loops 2-5 write nothing (external-dns's plan converges)" \
	"$(for i in 2 3 4 5; do python3 tests/integration/extdns_loop.py "$EXTDNS_API" "$T/desired.json"; done | paste -sd' ')" \
	"0 - 0 - 0 - 0 -"
eq "a TTL of 10 is held as DigitalOcean's minimum, 30" "$(zone | grep '^short ')" "short 30 A 192.0.2.30"
eq "TXT held as one string, unquoted, as DigitalOcean stores it" "$(zone | grep '^quoted ')" 'quoted 300 TXT say "hi"; then go'
eq "host names held without their final dot" "$(zone | grep -E '^(docs|mx|_sip\._tcp) ' | tr '\n' ';')" \
	"_sip._tcp 300 SRV 10 5 5060 sip.example.com;docs 300 CNAME pages.example.net;mx 300 MX 10 mail.example.com;"
eq "a CAA issue domain held with the final dot DigitalOcean wants (and read without it: no drift)" \
	"$(zone | grep '^caa ')" "caa 300 CAA 0 issue letsencrypt.org."
eq "GET /records lists the TXT value in presentation form (quoted), as for every provider" \
	"$(extdns_get "$EXTDNS_API" /records | jq -r '.[] | select(.dnsName == "quoted.example.com" and .recordType == "TXT") | .targets[0]')" \
	'"say \"hi\"; then go"'
id_before=$(curl -s --cacert "$T/ca.pem" "$URL/_fake/zone/example.com" | jq -r '.domain_records[] | select(.name == "www"
	and .data == "192.0.2.10") | .id')
desired 192.0.2.12 >"$T/desired2.json"
eq "an update is one loop's write, then nothing" \
	"$(for i in 1 2; do python3 tests/integration/extdns_loop.py "$EXTDNS_API" "$T/desired2.json"; done | paste -sd' ')" \
	"1 204 0 -"
eq "the domain holds the new address, its record updated in place (same id)" \
	"$(zone | grep '^www ' | tr '\n' ';') $(curl -s --cacert "$T/ca.pem" "$URL/_fake/zone/example.com" |
		jq -r '.domain_records[] | select(.name == "www" and .data == "192.0.2.12") | .id')" \
	"www 300 A 192.0.2.11;www 300 A 192.0.2.12; $id_before"
eq "the record seeded beforehand is left alone" "$(zone | grep '^taken ')" "taken 300 A 198.51.100.7"
eq "nothing dropped" "$(wc -l <"$T/drops.jsonl" 2>/dev/null || echo 0)" 0
clean_requests hook
extdns_stop
echo "# $failures failed"
[ "$failures" -eq 0 ]
