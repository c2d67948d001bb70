#!/usr/bin/env bash
#
# test_webhook_azure.sh - `dnsbatch serve --provider azure` as external-dns v0.22's sidecar, against
# tests/fakes/fake_azure.py: one loop creates the desired record sets (each by a conditional PUT),
# GET /records lists them back (listing pages of 2 followed) so that the next loops write nothing; a
# changed target is one update.
#
# Prints "ok - NAME" or "not ok - NAME" per check; exits 1 if any failed.
. "$(dirname "$0")/checks.sh"
test_begin
. tests/integration/extdns_client.sh
. tests/integration/azure_fake.sh

fake_begin jsonschema python3-jsonschema openssl jq curl python3
echo "example.com taken.example.com. 300 A 198.51.100.7" >"$T/seed"
start_fake hook --seed-records "$T/seed" --page-size 2 || exit 1

export HOME=$T/home AZURE_TENANT_ID=$AZ_TENANT AZURE_CLIENT_ID=$AZ_CLIENT AZURE_CLIENT_SECRET=$AZ_SECRET \
	AZURE_AUTHORITY_HOST=$URL
extdns_serve "$T/serve.log" "${AZ_FLAGS[@]}" --drop-log "$T/drops.jsonl" ||
	{ not_ok "dnsbatch serve --provider azure starts" "$(tail -5 "$T/serve.log")"; exit 1; }

desired() { # ADDRESS of plain: the desired endpoints
	list "$(ep plain.example.com A 300 "$1")" "$(ep v6.example.com AAAA 300 2001:db8::10)" \
		"$(ep docs.example.com CNAME 300 pages.example.net)" "$(ep example.com MX 3600 "10 mx1.example.com")" \
		"$(ep txt.example.com TXT 300 "v=spf1 -all")"
}
desired 192.0.2.10 >"$T/desired.json"
eq "loop 1 creates the 5 record sets (204)" "$(python3 tests/integration/extdns_loop.py "$EXTDNS_API" "$T/desired.json")" "5 204"
eq "loops 2-4 write nothing" \
	"$(for i in 2 3 4; do python3 tests/integration/extdns_loop.py "$EXTDNS_API" "$T/desired.json"; done | paste -sd' ')" \
	"0 - 0 - 0 -"
desired 192.0.2.11 >"$T/desired2.json"
eq "a changed address is one update" "$(python3 tests/integration/extdns_loop.py "$EXTDNS_API" "$T/desired2.json")" "1 204"
eq "then nothing again" "$(python3 tests/integration/extdns_loop.py "$EXTDNS_API" "$T/desired2.json")" "0 -"
eq "the fake holds the update" "$(zone | grep '^plain ')" 'plain 300 A [{"ipv4Address":"192.0.2.11"}]'
eq "the record set seeded beforehand is listed and left alone" "$(zone | grep '^taken ')" \
	'taken 300 A [{"ipv4Address":"198.51.100.7"}]'
clean_requests hook
echo "# $failures failed"
[ "$failures" -eq 0 ]
