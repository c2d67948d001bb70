#!/usr/bin/env bash
#
# test_digitalocean_truth.sh - what the digitalocean provider may claim of a domain that is not as tidy as the one it
# writes, against tests/fakes/fake_digitalocean.py (each scenario its own fake, stopped by PID): an RRset whose
# records carry different TTLs (DigitalOcean keeps a TTL per record) listed by the lowest (RFC 2181 section 5.2),
# never by whichever record came last, so that no create or update is called in effect while a record serves another
# TTL, and an update makes them one; another client's write between the pre-check's read and the writes counted as
# a race by a read-back (docs/provider-author.md: "read back after the write to count races").
#
# Prints "ok - NAME" or "not ok - NAME" per check; exits 1 if any failed.
. "$(dirname "$0")/checks.sh"
test_begin
. tests/integration/digitalocean_fake.sh

fake_begin jsonschema python3-jsonschema openssl jq curl python3

# records: what `dnsbatch records` lists of example.com, "OWNER TTL TYPE RDATA" one a line
records() {
	run records --provider digitalocean --digitalocean-api-endpoint "$URL" --digitalocean-ca-file "$T/ca.pem" \
		--digitalocean-token-file "$T/do.token" --output json 2>"$T/records.err" |
		jq -r '.[] | "\(.dnsName) \(.recordTTL) \(.recordType) \(.targets | join(","))"' 2>/dev/null
}
outcome() { jq -r --arg n "$2." '.outcomes[] | select(.dnsName == $n) | .outcome' "$T/$1.json"; }

# ---- one RRset, two TTLs: the record listed last serves 600, the other 300 ----
start_do ttl || exit 1
{ rec mix A 300 192.0.2.2; rec mix A 600 192.0.2.1; } | load
eq "mixed TTLs: records lists the RRset at the lowest TTL (RFC 2181 5.2), not the last record's" \
	"$(records | grep '^mix\.')" "mix.example.com 300 A 192.0.2.1,192.0.2.2"
plan "$T/c600.plan.json" create="$(list "$(ep mix.example.com A 600 192.0.2.1 192.0.2.2)")"
apply c600 "$T/c600.plan.json"
eq "mixed TTLs: a create at 600 is not already in effect while a record serves 300 (dropped: the RRset exists)" \
	"$(outcome c600 mix.example.com)" dropped
plan "$T/u600.plan.json" updateOld="$(list "$(ep mix.example.com A 300 192.0.2.1 192.0.2.2)")" \
	updateNew="$(list "$(ep mix.example.com A 600 192.0.2.1 192.0.2.2)")"
apply u600 "$T/u600.plan.json"
eq "mixed TTLs: the update from what records lists to 600 applied" "$RC $(outcome u600 mix.example.com)" "0 applied"
eq "mixed TTLs: both records now 600 (the one at 300 updated in place, the other left)" \
	"$(zone | grep '^mix ' | tr '\n' ';') $(stat '"\(.updates) \(.creates) \(.deletes)"')" \
	"mix 600 A 192.0.2.1;mix 600 A 192.0.2.2; 1 0 0"
clean_requests ttl
kill "$FAKE_PID"

# ---- another client writes between the pre-check's read and the writes: counted as a race ----
start_do race --fault-delay 1500 || exit 1
rec busy A 300 192.0.2.10 | load
plan "$T/race.plan.json" updateOld="$(list "$(ep busy.example.com A 300 192.0.2.10)")" \
	updateNew="$(list "$(ep busy.example.com A 300 192.0.2.11)")"
fault delay
apply race "$T/race.plan.json" --metrics-file "$T/race.prom" &
APPLY_PID=$!
sleep 0.7 # the PUT waits in the fake's delay: the pre-check has read
other=$(req POST /v2/domains/example.com/records '{"type":"A","name":"busy","data":"192.0.2.99","ttl":300}' "$OTHER_TOKEN")
wait "$APPLY_PID"
eq "race: the other client's POST landed while the PUT was on its way" "$other" 201
eq "race: the domain holds the PUT's value and the other client's" "$(zone | grep '^busy ' | tr '\n' ';')" \
	"busy 300 A 192.0.2.11;busy 300 A 192.0.2.99;"
check "race: the read-back after the writes names it (a race warning)" \
	grep -q "race: zone example.com.: busy.example.com. A holds 192.0.2.11, 192.0.2.99" "$T/race.err"
eq "race: the metrics count it" "$(sed -n 's/^dnsbatch_overwrites_detected_total{zone="example.com."} //p' "$T/race.prom")" 1
clean_requests race
kill "$FAKE_PID"

# ---- a record this provider cannot read (an SRV another tool wrote without weight: null) fails the reads of its own
# RRset only, not a batch of many names elsewhere in the domain (listed whole) ----
start_do alien || exit 1
eq "alien: an SRV posted without weight is taken (weight null)" \
	"$(req POST /v2/domains/example.com/records '{"type":"SRV","name":"_alien._tcp","data":"t.example.com.","priority":1,"port":5,"ttl":300}') $(jq -c .domain_record.weight "$T/b")" \
	"201 null"
creates "$T/many.plan.json" 20 m example.com 10.1
apply many "$T/many.plan.json"
eq "alien: 20 creates at 20 names (the domain listed whole) applied beside it" "$RC $(counts many)" "0 20 20 0 0 0"
plan "$T/near.plan.json" create="$(list "$(ep _alien._tcp.example.com TXT 300 '"x"')")"
apply near "$T/near.plan.json" --timeout 3
eq "alien: a change at its own name is not applied (the read of the name fails: unknown)" \
	"$(counts near | cut -d' ' -f2-3) $(zone | grep -c '^_alien._tcp [0-9]* TXT')" "0 0 0"
clean_requests alien
kill "$FAKE_PID"

# ---- a POST refused as a duplicate because another client made the same record meanwhile: the read-back finds a
# record with its data that the pre-check did not see; a later refusal's undo must not delete it (it may be theirs) ----
start_do theirs --fault-delay 1500 || exit 1
plan "$T/theirs.plan.json" create="$(list "$(ep both.example.com A 300 192.0.2.1 192.0.2.2)")"
fault delay refuse # the two POSTs side by side: the first to arrive waits, the other is refused at once
apply theirs "$T/theirs.plan.json" &
APPLY_PID=$!
sleep 0.7
o1=$(req POST /v2/domains/example.com/records '{"type":"A","name":"both","data":"192.0.2.1","ttl":300}' "$OTHER_TOKEN")
o2=$(req POST /v2/domains/example.com/records '{"type":"A","name":"both","data":"192.0.2.2","ttl":300}' "$OTHER_TOKEN")
wait "$APPLY_PID"
eq "theirs: the other client's two POSTs landed while ours waited" "$o1 $o2" "201 201"
eq "theirs: both of the other client's records are still there (the undo deleted neither)" \
	"$(zone | grep '^both ' | tr '\n' ';')" "both 300 A 192.0.2.1;both 300 A 192.0.2.2;"
eq "theirs: the change is failed, not dropped (what remains may be ours: rollback, named)" \
	"$(counts theirs) $(jq -r .code "$T/theirs.drops")" "1 0 0 0 1 rollback"
check "theirs: the rollback names the record kept" grep -q "rollback.*both.example.com. A 192.0.2.[12]" "$T/theirs.err"
clean_requests theirs
kill "$FAKE_PID"

# ---- the undo's own reply lost: read back like any other, not taken for an undo that failed ----
start_do undolost || exit 1
plan "$T/ul.plan.json" create="$(list "$(ep ul.example.com A 300 192.0.2.1 192.0.2.2)")"
fault ok refuse drop # the two POSTs side by side (one lands, one refused), then the undo's DELETE: done, reply lost
apply undolost "$T/ul.plan.json"
eq "undo's reply lost: read back, the DELETE landed: the change dropped invalid, not rollback" \
	"$(counts undolost) $(drop undolost ul.example.com | cut -d' ' -f1-2)" "1 0 0 1 0 dropped invalid"
eq "undo's reply lost: nothing of ul left" "$(zone | grep -c '^ul ')" 0
eq "undo's reply lost: the fake dropped that reply" "$(stat .dropped_replies)" 1
clean_requests undolost
kill "$FAKE_PID"

# ---- a batch of one request whose reply was lost and whose read-back failed: nothing can be half-written, so the
# answer is transient (the engine reads and retries), not rollback (fatal: the zone stopped) ----
start_do one --status-at 4=503 || exit 1
plan "$T/one.plan.json" create="$(list "$(ep one.example.com A 300 192.0.2.5)")"
fault 500 # the POST (request 3) not written, answered 500; its read-back (request 4) answered 503
apply one "$T/one.plan.json"
eq "one request, its fate unknown: not rollback; the engine's retry applies it (exit 0)" "$RC $(counts one)" \
	"0 1 1 0 0 0"
eq "one request: the record once" "$(zone | grep '^one ' | tr '\n' ';')" "one 300 A 192.0.2.5;"
clean_requests one
kill "$FAKE_PID"

# ---- libcurl's resend of a POST whose reply was lost on a reused connection, and DigitalOcean holding the same record
# twice: the undo deletes the record of the answer it got, the first stays; the undo is read back, not taken on trust ----
start_do resend --allow-duplicates || exit 1
rec d A 300 192.0.2.9 | load
plan "$T/resend.plan.json" create="$(list "$(ep x.example.com A 300 192.0.2.50 192.0.2.51)")" \
	delete="$(list "$(ep d.example.com A 300 192.0.2.9)")"
# the DELETE; the two POSTs side by side: one lands and loses its reply (libcurl sends it again: it lands twice), the
# other is refused; the undo (DELETE, POST) lands; whatever is sent after is refused
fault ok drop refuse ok ok ok refuse refuse refuse refuse refuse refuse refuse refuse refuse refuse
apply resend "$T/resend.plan.json" --max-retries 0
eq "resend: the POST landed twice (3 creates: the value twice, the deleted record posted again)" \
	"$(stat '"\(.creates) \(.dropped_replies)"')" "3 1"
left=$(zone | grep -c '^x ')
eq "resend: a record of x is left by the undo" "$left" 1
eq "resend: x is not called dropped while its record stays (failed, rollback naming it)" \
	"$(jq -r '.outcomes[] | select(.dnsName == "x.example.com.") | .outcome' "$T/resend.json") $(grep -c 'rollback.*x.example.com. A holds 192.0.2.50' "$T/resend.err")" \
	"failed 2"
clean_requests resend
kill "$FAKE_PID"

echo "# $failures failed"
[ "$failures" -eq 0 ]
