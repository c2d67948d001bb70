#!/usr/bin/env bash
#
# test_webhook_listing.sh - `dnsbatch serve` lists a zone once per external-dns loop, and GET /records has a time
# limit; against tests/fakes/fake_cloudflare.py (its stats count the listing requests, one page each here).
# - One loop (POST /adjustendpoints, GET /records, POST /records with an update, which the safety thresholds count
#   against the zone's RRsets): one listing of the zone (GET /zones/ID/dns_records without a name: reads by name,
#   to find a record's id, are not counted), GET's; the POST's count is taken from it (--listing-max-age).
# - A POST past --listing-max-age after the GET lists the zone again; so does a POST right after another POST
#   applied to the zone (the listing no longer tells what the zone holds); --listing-max-age 0 lists every time.
# - The count from GET's listing still holds the thresholds: an update of 4 of 11 RRsets is held (36% > 30%),
#   the message naming the 11 that listing found.
# - GET /records when the provider's budget is spent for 60 s (the fake answers 429 with Retry-After and says so in
#   its Ratelimit header): 503 within --apply-timeout (2 s), not a wait of the provider's time (up to the
#   throttle's 60 s cap per try, and 20 tries).
#
# Prints "ok - NAME" or "not ok - NAME" per check; exits 1 if any failed.
. "$(dirname "$0")/checks.sh"
test_begin
. tests/integration/extdns_client.sh
. tests/integration/cloudflare_fake.sh

fake_needs jsonschema python3-jsonschema openssl jq curl python3
fake_scratch
for i in $(seq 1 10); do echo "$Z1 h$i.example.com 300 A 192.0.2.$i"; done >"$T/seed"
start_cf list --seed "$T/seed" --page-size 100 || exit 1
FAKE_LOG=$T/list.fake.log
export CF_API_TOKEN=$TOKEN
stopped() { extdns_stop; eq "serve ($1) stops cleanly on SIGTERM: exit 0" "$EXTDNS_EXIT" 0; }
serve() { # LOG [flags]: serve Z1 with the thresholds on (their defaults: 30%, zones of 10 RRsets or more)
	local log=$1
	shift
	extdns_serve "$T/$log" --provider cloudflare --cloudflare-api-endpoint "$URL/client/v4" \
		--cloudflare-ca-file "$T/ca.pem" --cloudflare-zone-id "$Z1" "$@" ||
		{ not_ok "dnsbatch serve --provider cloudflare starts" "$(tail -5 "$T/$log")"; exit 1; }
	extdns_wait_ready 10
}
# reads: the whole-zone listings the fake served so far (a read by name, to find a record's id, is no listing)
reads() { grep 'GET /client/v4/zones/[0-9a-f]*/dns_records?' "$FAKE_LOG" | grep -vc 'name='; }
# desired N ADDR...: h1..h10 with these addresses for h1..hN (the rest as seeded), and new.example.com
desired() {
	local n=$1 eps=() i
	shift
	for i in $(seq 1 10); do
		if [ "$i" -le "$n" ]; then eps+=("$(ep "h$i.example.com" A 300 "$1")"); shift
		else eps+=("$(ep "h$i.example.com" A 300 "192.0.2.$i")"); fi
	done
	list "${eps[@]}" "$(ep new.example.com A 300 192.0.2.99)"
}
# update NAME OLD NEW: a plan updating NAME's A record
update() {
	jq -cn --argjson o "$(ep "$1" A 300 "$2")" --argjson n "$(ep "$1" A 300 "$3")" \
		'{create: [], updateOld: [$o], updateNew: [$n], delete: []}'
}
loop() { python3 tests/integration/extdns_loop.py "$EXTDNS_API" "$1"; }

serve a.log --listing-max-age 3
desired 0 >"$T/d0.json"
eq "loop 1 creates new.example.com (no update: the thresholds count nothing)" "$(loop "$T/d0.json")" "1 204"
desired 1 198.51.100.1 >"$T/d1.json"
r0=$(reads)
eq "loop 2: one update, applied" "$(loop "$T/d1.json")" "1 204"
eq "loop 2: one listing of the zone (GET /records'), the thresholds' count taken from it" "$(($(reads) - r0))" 1
eq "... that update is in the zone" "$(zone | grep '^h1\.')" "h1.example.com 300 A 198.51.100.1"

update h2.example.com 192.0.2.2 198.51.100.2 >"$T/u2.json"
extdns_get "$EXTDNS_API" /records >/dev/null
r0=$(reads)
sleep 3.5
extdns_post "$EXTDNS_API" /records "$T/u2.json" >/dev/null
eq "a POST 3.5 s after GET /records (past --listing-max-age 3): applied" "$EXTDNS_STATUS" 204
eq "... and the zone listed again to count it" "$(($(reads) - r0))" 1

update h3.example.com 192.0.2.3 198.51.100.3 >"$T/u3.json"
update h4.example.com 192.0.2.4 198.51.100.4 >"$T/u4.json"
extdns_get "$EXTDNS_API" /records >/dev/null
r0=$(reads)
extdns_post "$EXTDNS_API" /records "$T/u3.json" >/dev/null
eq "a POST right after GET /records: applied, no listing of its own" "$EXTDNS_STATUS $(($(reads) - r0))" "204 0"
extdns_post "$EXTDNS_API" /records "$T/u4.json" >/dev/null
eq "the next POST, after one that applied to the zone: listed again" "$EXTDNS_STATUS $(($(reads) - r0))" "204 1"

desired 8 198.51.100.1 198.51.100.2 198.51.100.3 198.51.100.4 198.0.2.5 198.0.2.6 198.0.2.7 198.0.2.8 >"$T/d8.json"
r0=$(reads)
eq "a loop updating 4 of 11 RRsets: held by the thresholds (503)" "$(loop "$T/d8.json")" "4 503"
eq "... from GET's listing: one listing" "$(($(reads) - r0))" 1
check "... the hold names the 11 RRsets that listing found" \
	grep -q 'held: zone example.com.: updates 4 of 11 RRsets (36%), over --max-update-percent 30' "$T/a.log"
stopped a

serve b.log --listing-max-age 0
update h1.example.com 198.51.100.1 192.0.2.1 >"$T/u1.json"
extdns_get "$EXTDNS_API" /records >/dev/null
r0=$(reads)
extdns_post "$EXTDNS_API" /records "$T/u1.json" >/dev/null
eq "--listing-max-age 0: a POST right after GET /records lists the zone itself" "$EXTDNS_STATUS $(($(reads) - r0))" "204 1"
stopped b

# ---- GET /records within --apply-timeout: every request past the serve's start answered 429, Retry-After ~60 s ----
stop_fake() { kill "$FAKE_PID" 2>/dev/null; wait "$FAKE_PID" 2>/dev/null; }
stop_fake
start_cf count --seed "$T/seed" --page-size 100 || exit 1
serve c.log --apply-timeout 2
used=$(stat .requests) # what a start takes (the zone's read, the probe's); the next fake allows only that
stopped c
stop_fake
start_cf throttled --seed "$T/seed" --page-size 100 --rate "$used" --rate-window 60 || exit 1
serve d.log --apply-timeout 2
t0=$(date +%s%N)
status=$(curl -s -o /dev/null -w '%{http_code}' --max-time 20 -H "Accept: $EXTDNS_MEDIA_TYPE" "$EXTDNS_API/records")
ms=$((($(date +%s%N) - t0) / 1000000))
eq "GET /records, the provider's budget spent for 60 s (429 with Retry-After, its Ratelimit header): 503" "$status" 503
check "... within --apply-timeout 2 s, not after the provider's wait (took $ms ms)" [ "$ms" -lt 4000 ]
check "... the log names the zone and why" grep -q 'GET /records: listing example.com.: .*leaves no request for' "$T/d.log"
stopped d
echo "# $failures failed"
[ "$failures" -eq 0 ]
