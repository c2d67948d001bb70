#!/usr/bin/env bash
#
# test_webhook_akamai.sh - `dnsbatch serve --provider akamai` as external-dns's sidecar, against
# tests/fakes/fake_akamai.py (record-set pages of 3 followed; every request checked against Akamai's
# OpenAPI document and its EdgeGrid signature by npm akamai-edgegrid): every type external-dns wrote
# through its removed in-tree Akamai provider round-trips, TXT quoted as Akamai stores it, so that the
# loops after the creating one write nothing (1,0,0,0,0), each loop's batch one change list; an update is one
# loop's write.
#
# Prints "ok - NAME" or "not ok - NAME" per check; exits 1 if any failed.
. "$(dirname "$0")/checks.sh"
test_begin
. tests/integration/extdns_client.sh
. tests/integration/akamai_fake.sh

fake_begin jsonschema python3-jsonschema openssl jq curl python3 node
akamai_edgegrid_lib || { not_ok "npm installs akamai-edgegrid (the fake checks the signatures with it)"; exit 1; }
start_ak hook || exit 1
echo 'taken.example.com 300 A 198.51.100.7' | load >/dev/null

export AKAMAI_HOST=$AK_HOST AKAMAI_CLIENT_TOKEN=$CT AKAMAI_ACCESS_TOKEN=$AT
extdns_serve "$T/serve.log" --provider akamai --akamai-api-endpoint "$URL" --akamai-ca-file "$T/ca.pem" \
	--akamai-client-secret-file "$T/secret" --akamai-zone example.com --drop-log "$T/drops.jsonl" ||
	{ not_ok "dnsbatch serve --provider akamai starts" "$(tail -5 "$T/serve.log")"; exit 1; }

list "$(ep www.example.com A 300 192.0.2.10 192.0.2.11)" "$(ep v6.example.com AAAA 300 2001:db8::10)" \
	"$(ep docs.example.com CNAME 300 pages.example.net)" "$(ep txt.example.com TXT 300 'v=spf1 include:_spf.example.net -all')" \
	"$(ep quoted.example.com TXT 300 'say "hi"; then go')" "$(ep mx.example.com MX 300 '10 mail.example.com')" \
	"$(ep _sip._tcp.example.com SRV 300 '10 5 5060 sip.example.com')" \
	"$(ep caa.example.com CAA 300 '0 issue "letsencrypt.org"')" >"$T/desired.json"
eq "loop 1 creates the 8 records" "$(python3 tests/integration/extdns_loop.py "$EXTDNS_API" "$T/desired.json")" "8 204"
eq "loops 2-5 write nothing (external-dns's plan converges)" \
	"$(for i in 2 3 4 5; do python3 tests/integration/extdns_loop.py "$EXTDNS_API" "$T/desired.json"; done | paste -sd' ')" \
	"0 - 0 - 0 - 0 -"
eq "one change list submitted in all" "$(stat .submits)" 1
eq "TXT held quoted as Akamai stores it" "$(zone | grep '^txt\.' | cut -d' ' -f3-)" 'TXT "v=spf1 include:_spf.example.net -all"'
eq "a TXT with quotes held escaped" "$(zone | grep '^quoted\.' | cut -d' ' -f3-)" 'TXT "say \"hi\"; then go"'
eq "GET /records lists the TXT value in presentation form (quoted), as for every provider" \
	"$(extdns_get "$EXTDNS_API" /records | jq -r '.[] | select(.dnsName == "quoted.example.com" and .recordType == "TXT") | .targets[0]')" \
	'"say \"hi\"; then go"'
list "$(ep www.example.com A 300 192.0.2.12)" "$(ep v6.example.com AAAA 300 2001:db8::10)" \
	"$(ep docs.example.com CNAME 300 pages.example.net)" "$(ep txt.example.com TXT 300 'v=spf1 include:_spf.example.net -all')" \
	"$(ep quoted.example.com TXT 300 'say "hi"; then go')" "$(ep mx.example.com MX 300 '10 mail.example.com')" \
	"$(ep _sip._tcp.example.com SRV 300 '10 5 5060 sip.example.com')" \
	"$(ep caa.example.com CAA 300 '0 issue "letsencrypt.org"')" >"$T/desired2.json"
eq "an update is one loop's write, then nothing" \
	"$(for i in 1 2; do python3 tests/integration/extdns_loop.py "$EXTDNS_API" "$T/desired2.json"; done | paste -sd' ')" \
	"1 204 0 -"
eq "the zone holds the new address" "$(zone | grep -E '^www\.' | tr '\n' ';')" "www.example.com 300 A 192.0.2.12;"
eq "the record seeded beforehand is left alone" "$(zone | grep '^taken\.')" "taken.example.com 300 A 198.51.100.7"
eq "nothing dropped" "$(wc -l <"$T/drops.jsonl" 2>/dev/null || echo 0)" 0
eq "no change list left" "$(stat .lists)" 0
clean_requests hook
extdns_stop
echo "# $failures failed"
[ "$failures" -eq 0 ]
