#!/usr/bin/env bash
#
# test_webhook_digitalocean_edges.sh - `dnsbatch serve --provider digitalocean` as external-dns's sidecar, against
# tests/fakes/fake_digitalocean.py, with the forms test_webhook_digitalocean.sh leaves out: records at the apex ("@"),
# a delegation (NS), names external-dns gives in upper case, an AAAA written in its long form, a TXT longer than one
# 255-octet string, a TXT of backslashes, a null MX ("."), an SRV to "." and a CAA with the critical flag (128), each
# TTL below 30. The loops after the creating one must write nothing (external-dns's plan converges) and the records
# external-dns does not own are left alone.
#
# Prints "ok - NAME" or "not ok - NAME" per check; exits 1 if any failed.
. "$(dirname "$0")/checks.sh"
test_begin
. tests/integration/extdns_client.sh
. tests/integration/digitalocean_fake.sh

fake_begin jsonschema python3-jsonschema openssl jq curl python3
start_do edges || exit 1
{ rec @ A 300 198.51.100.1; rec @ TXT 300 google-site-verification=abc; } | load

extdns_serve "$T/serve.log" --provider digitalocean --digitalocean-api-endpoint "$URL" --digitalocean-ca-file "$T/ca.pem" \
	--digitalocean-token-file "$T/do.token" --drop-log "$T/drops.jsonl" ||
	{ not_ok "dnsbatch serve --provider digitalocean starts" "$(tail -5 "$T/serve.log")"; exit 1; }

long=$(printf 'k%.0s' $(seq 1 300))
list "$(ep example.com MX 10 '10 mail.example.com')" "$(ep example.com CAA 20 '128 issue "letsencrypt.org"')" \
	"$(ep sub.example.com NS 300 ns1.example.net ns2.example.net)" "$(ep UPPER.Example.COM A 300 192.0.2.40)" \
	"$(ep v6.example.com AAAA 300 2001:0db8:0000:0000:0000:0000:0000:0010)" "$(ep long.example.com TXT 300 "$long")" \
	"$(ep slash.example.com TXT 300 'a\b\\c')" "$(ep nomail.example.com MX 300 '0 .')" \
	"$(ep _none._tcp.example.com SRV 300 '0 0 0 .')" >"$T/desired.json"
eq "loop 1 creates the 9 endpoints" "$(python3 tests/integration/extdns_loop.py "$EXTDNS_API" "$T/desired.json")" "9 204"
eq "loops 2-4 write nothing (external-dns's plan converges)" \
	"$(for i in 2 3 4; do python3 tests/integration/extdns_loop.py "$EXTDNS_API" "$T/desired.json"; done | paste -sd' ')" \
	"0 - 0 - 0 -"
eq "the apex records external-dns does not own are left alone" "$(zone | grep -E '^@ [0-9]+ (A|TXT) ' | tr '\n' ';')" \
	"@ 300 A 198.51.100.1;@ 300 TXT google-site-verification=abc;"
eq "the apex MX and CAA at DigitalOcean's 30 s" "$(zone | grep -E '^@ [0-9]+ (MX|CAA) ' | tr '\n' ';')" \
	"@ 30 CAA 128 issue letsencrypt.org.;@ 30 MX 10 mail.example.com;"
eq "a TXT of 300 octets held as one string" "$(zone | grep '^long ' | awk '{ print length($4) }')" 300
eq "nothing dropped" "$(wc -l <"$T/drops.jsonl" 2>/dev/null || echo 0)" 0
clean_requests edges
extdns_stop
echo "# $failures failed"
[ "$failures" -eq 0 ]
