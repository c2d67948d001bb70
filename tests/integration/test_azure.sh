#!/usr/bin/env bash
#
# test_azure.sh - the azure provider through the dnsbatch binary against tests/fakes/fake_azure.py
# over HTTPS: each scenario starts its own fake on a free loopback port (stopped by PID at the end,
# also when a check fails). The fake checks every request body and query against the definitions
# kept from Azure's REST specification: each scenario checks that it refused none.
#
# Each dnsbatch run gets a clean environment (env -i) with only the Azure variables of its
# credential source.
#
# Prints "ok - NAME" or "not ok - NAME" per check; exits 1 if any failed.
# Env: DNSBATCH (default build/dnsbatch), DNSB_KEEP_TMP=1 to keep the temp dir.
. "$(dirname "$0")/checks.sh"
test_begin

PLANS=$ROOT/examples/plans
ZONEFILE=$ROOT/examples/zones/example.com.zone
. tests/integration/azure_fake.sh

fake_begin jsonschema python3-jsonschema openssl jq curl python3
cp "$ZONEFILE" "$T/example.com.zone" # a copy: the zone-file provider leaves a lock file beside it
ZONEFILE=$T/example.com.zone
"$DNSBATCH" records --provider zonefile --zonefile "example.com=$ZONEFILE" |
	awk -F'\t' '!($1 == "example.com." && ($4 == "SOA" || $4 == "NS")) { print "example.com", $1, $2, $4, $5 }' \
		>"$T/example.records"

# secrets_absent NAME: no secret or token in what dnsbatch printed
secrets_absent() {
	eq "$1: no secret or token in stderr, stdout or the drop log" \
		"$(cat "$T/$1.err" "$T/$1.json" "$T/$1.drops" 2>/dev/null | grep -cE "$AZ_SECRET|$AZ_FEDERATED|tok-[0-9a-f]{8}")" 0
}

##### clean.json on the example zone ###############################################################

start_fake clean --seed-records "$T/example.records" --page-size 100
run records "${AZ_FLAGS[@]}" >"$T/records.out" 2>"$T/records.err"
eq "records: exit 0" "$?" 0
"$DNSBATCH" records --provider zonefile --zonefile "example.com=$ZONEFILE" | grep -vP '\t(SOA|NS)\t' | sort >"$T/want"
check "records: the listing is the example zone, RDATA for RDATA" cmp -s "$T/want" <(sort "$T/records.out")
apply clean "$PLANS/clean.json"
eq "clean: exit 0, 30 applied" "$RC $(counts clean)" "0 30 30 0 0 0"
eq "clean: 1 submission" "$(rep clean .submissions)" 1
zone >"$T/clean.zone"
check "clean: events A with both addresses, TTL 60" grep -Fxq \
	'events 60 A [{"ipv4Address":"203.0.113.41"},{"ipv4Address":"203.0.113.42"}]' "$T/clean.zone"
check "clean: docs-v2 CNAME, TTL 3600" grep -Fxq 'docs-v2 3600 CNAME [{"cname":"docs-v2.pages.example.net"}]' "$T/clean.zone"
check "clean: the SRV record" grep -Fxq \
	'_minecraft._tcp.games 300 SRV [{"priority":0,"weight":5,"port":25565,"target":"mc.games.example.com"}]' "$T/clean.zone"
eq "clean: old-promo deleted" "$(grep -c '^old-promo ' "$T/clean.zone")" 0
eq "clean: every write conditional, none refused" "$(stat .precondition_failed)" 0
clean_requests clean
secrets_absent clean
apply clean2 "$PLANS/clean.json"
eq "clean again: exit 0, 30 already applied" "$RC $(counts clean2)" "0 30 0 30 0 0"
eq "clean again: 25 writes in all (30 changes, 5 TXT updates that change nothing), none more" "$(stat .writes)" 25
stop_fake

##### conflicts.json: every kind of conflict ######################################################
# The zone-file provider's expectations (examples/plans/README.md): 26 applied, 2 already_applied,
# 11 dropped (conflict 7, invalid 2, no_zone 2). G4's CNAME beside an A is refused by the write
# itself (409), the others by the read before writing.

start_fake conf --seed-records "$T/example.records" --page-size 7
apply conf "$PLANS/conflicts.json" --azure-max-in-flight 4
eq "conflicts: exit 3" "$RC" 3
eq "conflicts: 26 applied, 2 already applied, 12 dropped (the shop group drops whole)" "$(counts conf)" "40 26 2 12 0"
eq "conflicts: drops by reason" "$(jq -r .reason "$T/conf.drops" | sort | uniq -c | awk '{printf "%s=%s ", $2, $1}')" \
	"conflict=8 invalid=2 no_zone=2 "
eq "conflicts: status CNAME refused by Azure (409 Conflict)" "$(drop conf status.example.com)" "dropped conflict 409 Conflict"
eq "conflicts: legacy found by the read, nothing written" "$(drop conf legacy.example.com)" "dropped conflict 0 precheck"
zone >"$T/conf.zone"
eq "conflicts: nothing of a dropped group written (no cname-status, a-legacy, a-bad)" \
	"$(grep -cE '^(cname-status|a-legacy|a-bad|status [0-9]+ CNAME) ' "$T/conf.zone")" 0
eq "conflicts: legacy A still the hand-managed one" "$(grep '^legacy ' "$T/conf.zone")" \
	'legacy 3600 A [{"ipv4Address":"192.0.2.100"}]'
clean_requests conf
stop_fake

##### a group is undone when its second record set is refused; the undo refused: failed, never dropped

pair "$T/pair.plan.json" web.example.com 192.0.2.10
undo_checks start_fake

##### a write whose reply is lost (500 after the commit) ##########################################

start_fake lost --fault ok --fault 500after
apply lost "$T/pair.plan.json" --azure-max-in-flight 1
eq "lost reply: exit 0, both applied" "$RC $(counts lost)" "0 2 2 0 0 0"
eq "lost reply: each RRset once in the zone" "$(zone | grep -cE '^(web|a-web) ')" 2
clean_requests lost
stop_fake

##### the race: another client writes between the read and the write ##############################

start_fake race --seed-records "$T/example.records" --fault race
plan "$T/race.plan.json" updateOld="$(list "$(ep app.example.com A 300 203.0.113.10)")" \
	updateNew="$(list "$(ep app.example.com A 300 203.0.113.13)")"
apply race "$T/race.plan.json" --max-retries 0
eq "race: exit 3, dropped for conflict" "$RC $(counts race)" "3 1 0 0 1 0"
eq "race: Azure's 412 is the conflict" "$(drop race app.example.com)" "dropped conflict 412 PreconditionFailed"
eq "race: the other client's write stands (TTL 301), not overwritten" "$(zone | grep '^app [0-9]* A ')" \
	'app 301 A [{"ipv4Address":"203.0.113.10"}]'
stop_fake

##### 429 with Retry-After ##########################################################################

start_fake slow --fault 429
started=$(date +%s.%N)
apply slow "$T/pair.plan.json" --azure-max-in-flight 1
took=$(echo "$(date +%s.%N) - $started" | bc)
eq "429: applied after the wait" "$RC $(counts slow)" "0 2 2 0 0 0"
eq "429: one 429 answered, then the writes, nothing undone" "$(stat '"\(.status["429"]) \(.writes)"')" "1 3"
eq "429: the refused write sent again within the submission" "$(rep slow .submissions)" 1
ge "429: its Retry-After (1 s) waited out first" "$took" 1
stop_fake

##### credentials ###################################################################################

pair "$T/wl.plan.json" wl.example.com 192.0.2.20
start_fake cred --imds --imds-client-id uami-0042
printf '%s\n' "$AZ_FEDERATED" >"$T/federated"
CREDS=(AZURE_TENANT_ID=$AZ_TENANT AZURE_CLIENT_ID=$AZ_CLIENT AZURE_FEDERATED_TOKEN_FILE=$T/federated
	AZURE_CLIENT_SECRET=not-this-one)
apply wl "$T/wl.plan.json"
eq "workload identity (before the secret): applied" "$RC $(counts wl) $(stat .token_kinds.workload)" "0 2 2 0 0 0 1"
secrets_absent wl
CREDS=(DNSBATCH_AZURE_IMDS_ENDPOINT=$URL/metadata/identity/oauth2/token)
pair "$T/mi.plan.json" mi.example.com 192.0.2.21
apply mi "$T/mi.plan.json" --azure-user-assigned-identity-client-id uami-0042
eq "managed identity (IMDS, user-assigned): applied" "$RC $(counts mi) $(stat .token_kinds.imds)" "0 2 2 0 0 0 1"
jq -n --arg t "$AZ_TENANT" --arg c "$AZ_CLIENT" --arg s "$AZ_SECRET" '{tenantId: $t, subscriptionId: "sub-0001",
	resourceGroup: "rg-dns", aadClientId: $c, aadClientSecret: $s}' >"$T/azure.json"
CREDS=()
pair "$T/cf.plan.json" cf.example.com 192.0.2.22
rm -f "$T/cf.drops"
run apply --plan "$T/cf.plan.json" --provider azure --azure-config-file "$T/azure.json" --azure-api-endpoint "$URL/" \
	--azure-ca-file "$T/ca.pem" --output json >"$T/cf.json" 2>"$T/cf.err"
eq "azure.json (client secret, subscription and group from the file): applied" "$? $(counts cf)" "0 2 2 0 0 0"
secrets_absent cf
CREDS=(AZURE_TENANT_ID=$AZ_TENANT AZURE_CLIENT_ID=$AZ_CLIENT AZURE_CLIENT_SECRET=wrong-$AZ_SECRET)
apply badsecret "$T/wl.plan.json"
eq "a refused client secret: exit 2 at open, nothing written" "$RC" 2
check "a refused client secret: the error names the token endpoint" grep -q "oauth2/v2.0/token.*401" "$T/badsecret.err"
secrets_absent badsecret
CREDS=(AZURE_TENANT_ID=$AZ_TENANT AZURE_CLIENT_ID=$AZ_CLIENT AZURE_CLIENT_SECRET=$AZ_SECRET)
run apply --plan "$T/wl.plan.json" "${AZ_FLAGS[@]}" --azure-resource-group rg-missing >"$T/rg.out" 2>"$T/rg.err"
eq "a missing resource group: exit 2 at open" "$?" 2
check "a missing resource group: named with Azure's code" grep -q "ResourceGroupNotFound" "$T/rg.err"
clean_requests cred
stop_fake
start_fake forbidden --forbidden
apply forbidden "$T/wl.plan.json"
eq "403 AuthorizationFailed: exit 2 at open" "$RC" 2
check "403: named" grep -q AuthorizationFailed "$T/forbidden.err"
stop_fake

##### many changes side by side #####################################################################

creates "$T/many.plan.json" 200 many example.com 10.1
start_fake many --latency 50 --page-size 1000
apply many "$T/many.plan.json" --azure-max-in-flight 8
eq "200 creates side by side: applied" "$RC $(counts many)" "0 200 200 0 0 0"
ge "200 creates: several requests in flight at once" "$(stat .max_in_flight)" 4
le "200 creates: at most --azure-max-in-flight at once" "$(stat .max_in_flight)" 8
clean_requests many
stop_fake

echo "# $failures failed"
[ "$failures" -eq 0 ]
