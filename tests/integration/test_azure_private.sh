#!/usr/bin/env bash
#
# test_azure_private.sh - the azure provider on private zones (--azure-private-zones:
# Microsoft.Network/privateDnsZones, api-version 2018-09-01) through the dnsbatch binary against
# tests/fakes/fake_azure.py --private over HTTPS, which checks every request against the private
# DNS specification kept in tests/fakes/azure-privatedns-2018-09-01.json. The same scenarios as the
# public zones' (test_azure.sh): the example zone listed back, clean.json, the mixed plan with
# every kind of conflict, a group undone when its second record set is refused, an undo refused,
# the race turned into a conflict. Private zones hold no NS or CAA: the fake is seeded without them.
#
# Prints "ok - NAME" or "not ok - NAME" per check; exits 1 if any failed.
# Env: DNSBATCH (default build/dnsbatch), DNSB_KEEP_TMP=1 to keep the temp dir.
. "$(dirname "$0")/checks.sh"
test_begin

PLANS=$ROOT/examples/plans
. tests/integration/azure_fake.sh

fake_begin jsonschema python3-jsonschema openssl jq curl python3
cp "$ROOT/examples/zones/example.com.zone" "$T/example.com.zone"
"$DNSBATCH" records --provider zonefile --zonefile "example.com=$T/example.com.zone" |
	awk -F'\t' '$4 != "SOA" && $4 != "NS" && $4 != "CAA" { print "example.com", $1, $2, $4, $5 }' >"$T/example.records"

# start_private NAME [fake flags...]: the fake with --private, AZ_FLAGS with --azure-private-zones
start_private() {
	start_fake "$@" --private || return 1
	AZ_FLAGS+=(--azure-private-zones)
}

##### the example zone, clean.json ##################################################################

start_private clean --seed-records "$T/example.records" --page-size 100
run records "${AZ_FLAGS[@]}" >"$T/records.out" 2>"$T/records.err"
eq "records: exit 0" "$?" 0
"$DNSBATCH" records --provider zonefile --zonefile "example.com=$T/example.com.zone" | grep -vP '\t(SOA|NS|CAA)\t' |
	sort >"$T/want"
check "records: the private zone listed back, RDATA for RDATA" cmp -s "$T/want" <(sort "$T/records.out")
eq "records: the private listing (ALL) was used, page by page" "$(stat '"\(.lists > 1) \(.gets)"')" "true 0"
apply clean "$PLANS/clean.json"
eq "clean: exit 0, 30 applied" "$RC $(counts clean)" "0 30 30 0 0 0"
zone >"$T/clean.zone"
check "clean: events A with both addresses, TTL 60" grep -Fxq \
	'events 60 A [{"ipv4Address":"203.0.113.41"},{"ipv4Address":"203.0.113.42"}]' "$T/clean.zone"
eq "clean: old-promo deleted" "$(grep -c '^old-promo ' "$T/clean.zone")" 0
eq "clean: every write conditional, none refused" "$(stat .precondition_failed)" 0
clean_requests clean
apply clean2 "$PLANS/clean.json"
eq "clean again: 30 already applied" "$RC $(counts clean2)" "0 30 0 30 0 0"
stop_fake

##### conflicts.json ##################################################################################

start_private conf --seed-records "$T/example.records" --page-size 7
apply conf "$PLANS/conflicts.json" --azure-max-in-flight 4
eq "conflicts: exit 3" "$RC" 3
eq "conflicts: 26 applied, 2 already applied, 12 dropped (the shop group drops whole)" "$(counts conf)" "40 26 2 12 0"
eq "conflicts: drops by reason" "$(jq -r .reason "$T/conf.drops" | sort | uniq -c | awk '{printf "%s=%s ", $2, $1}')" \
	"conflict=8 invalid=2 no_zone=2 "
eq "conflicts: status CNAME refused by Azure (409 Conflict)" "$(drop conf status.example.com)" "dropped conflict 409 Conflict"
eq "conflicts: legacy found by the read, nothing written" "$(drop conf legacy.example.com)" "dropped conflict 0 precheck"
eq "conflicts: legacy A still the hand-managed one" "$(zone | grep '^legacy ')" \
	'legacy 3600 A [{"ipv4Address":"192.0.2.100"}]'
clean_requests conf
stop_fake

##### a group undone when its TXT is refused ##########################################################

pair "$T/pair.plan.json" web.example.com 192.0.2.10
undo_checks start_private

##### the race ##########################################################################################

start_private race --seed-records "$T/example.records" --fault race
plan "$T/race.plan.json" updateOld="$(list "$(ep app.example.com A 300 203.0.113.10)")" \
	updateNew="$(list "$(ep app.example.com A 300 203.0.113.13)")"
apply race "$T/race.plan.json" --max-retries 0
eq "race: dropped for conflict" "$RC $(counts race)" "3 1 0 0 1 0"
eq "race: Azure's 412 is the conflict" "$(drop race app.example.com)" "dropped conflict 412 PreconditionFailed"
eq "race: the other client's write stands (ttl 301), not overwritten" "$(zone | grep '^app [0-9]* A ')" \
	'app 301 A [{"ipv4Address":"203.0.113.10"}]'
clean_requests race
stop_fake

##### a public zone's flags against private zones ##################################################

start_fake public --private
run records "${AZ_FLAGS[@]}" >"$T/pub.out" 2>"$T/pub.err"
eq "without --azure-private-zones: exit 2 at open (no public zone in the group)" "$?" 2
stop_fake

echo "# $failures failed"
[ "$failures" -eq 0 ]
