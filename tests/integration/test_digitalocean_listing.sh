#!/usr/bin/env bash
#
# test_digitalocean_listing.sh - the digitalocean provider's listings of a whole domain against
# tests/fakes/fake_digitalocean.py (each scenario its own fake, stopped by PID): a record it cannot read (an SRV
# another tool posted without weight) is skipped with one warning naming it, never blocking `dnsbatch records`, while
# a change to its RRset still fails its read (never applied or already_applied on an RRset missing a record).
#
# Prints "ok - NAME" or "not ok - NAME" per check; exits 1 if any failed.
. "$(dirname "$0")/checks.sh"
test_begin
. tests/integration/digitalocean_fake.sh

fake_begin jsonschema python3-jsonschema openssl jq curl python3

# records [flags...]: what `dnsbatch records` lists of example.com into $T/records.txt, "OWNER TYPE RDATA" one a
# line; RC; $T/records.err
records() {
	run records --provider digitalocean --digitalocean-api-endpoint "$URL" --digitalocean-ca-file "$T/ca.pem" \
		--digitalocean-token-file "$T/do.token" --output json "$@" >"$T/records.json" 2>"$T/records.err"
	RC=$?
	jq -r '.[] | "\(.dnsName) \(.recordType) \(.targets | join(","))"' "$T/records.json" 2>/dev/null | sort >"$T/records.txt"
}
outcome() { jq -r --arg n "$2." '.outcomes[] | select(.dnsName == $n) | .outcome' "$T/$1.json"; }

# ---- an SRV without weight, beside records it can read ----
start_do alien || exit 1
eq "alien: an SRV posted without weight is taken" \
	"$(req POST /v2/domains/example.com/records '{"type":"SRV","name":"_alien._tcp","data":"t.example.com.","priority":1,"port":5,"ttl":300}')" 201
ALIEN_ID=$(jq -r .domain_record.id "$T/b")
req POST /v2/domains/example.com/records '{"type":"A","name":"www","data":"192.0.2.1","ttl":300}' >/dev/null
req POST /v2/domains/example.com/records '{"type":"SRV","name":"_ok._tcp","data":"t.example.com.","priority":1,"weight":2,"port":5,"ttl":300}' >/dev/null
records
out=$(cat "$T/records.txt")
eq "alien: records lists the domain (exit 0) with the records it can read" \
	"$RC $(echo "$out" | grep -c -e '^www.example.com A 192.0.2.1$' -e '^_ok._tcp.example.com SRV 1 2 5 t.example.com.$')" "0 2"
eq "alien: the unreadable record is not listed" "$(echo "$out" | grep -c '_alien')" 0
eq "alien: one warning names it (owner, type, id)" \
	"$(grep -c "skipped a record this listing cannot read: _alien._tcp.example.com. SRV id $ALIEN_ID " "$T/records.err")" 1
# a change to its RRset: its read fails (unknown), never taken as absent
plan "$T/del.plan.json" delete="$(list "$(ep _alien._tcp.example.com SRV 300 '1 0 5 t.example.com.')")"
apply del "$T/del.plan.json" --timeout 3
eq "alien: a delete of its RRset is failed, not already_applied (the read of the RRset fails)" \
	"$(outcome del _alien._tcp.example.com) $(zone | grep -c '^_alien._tcp ')" "failed 1"
plan "$T/cre.plan.json" create="$(list "$(ep _alien._tcp.example.com SRV 300 '1 0 5 t.example.com.')")"
apply cre "$T/cre.plan.json" --timeout 3
eq "alien: a create of its RRset is failed, not applied" \
	"$(outcome cre _alien._tcp.example.com) $(zone | grep -c '^_alien._tcp ')" "failed 1"
clean_requests alien
kill "$FAKE_PID"

# ---- next links that never end (a hostile or buggy server): the walk stops at what meta.total announced, plus a
# little slack (26 records at 20 a page: 2 pages, + 2), never at DNSB_DO_PAGES_MAX (100,000) ----
for what in domain_records domains; do
	start_do "endless-$what" --endless-next "$what" || exit 1
	for i in $(seq 1 22); do echo "{\"name\":\"e$i\",\"type\":\"A\",\"ttl\":300,\"data\":\"192.0.2.$i\"}"; done |
		load
	records --digitalocean-api-page-size 20
	# domain_records: each domain's listing fails (exit 4, retryable): example.com's 26 records 2 pages + 2 read,
	# example.org's 4 records 1 + 2, and the domains 1; domains: the open fails (exit 2) after 1 + 2 pages
	eq "endless $what: records fails, naming the walk's bound" \
		"$RC $(grep -c 'the next links run past [0-9]* pages' "$T/records.err")" \
		"$([ "$what" = domains ] && echo '2 1' || echo '4 2')"
	eq "endless $what: a few pages read, not 100,000" "$(stat .requests)" \
		"$([ "$what" = domains ] && echo 3 || echo 8)"
	clean_requests "endless-$what"
	kill "$FAKE_PID"
done

echo "# $failures failed"
[ "$failures" -eq 0 ]
