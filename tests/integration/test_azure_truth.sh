#!/usr/bin/env bash
#
# test_azure_truth.sh - issue 31's Azure defects, each against tests/fakes/fake_azure.py: what the
# provider reports is what Azure holds afterwards (the fake's state), never more.
#   - a refused DELETE (400, and the 412 of an ETag race): the rest of the batch is not written and
#     nothing is read past the writes (the sanitizer build reported a heap-buffer-overflow);
#   - TXT strings of 255, 256 and 2,048 octets: read as 255-octet character-strings, written back
#     as Azure held them (one value[] string of up to 1,024 octets, which the fake enforces);
#   - the token endpoint failing between the deletions and the writes of one batch: undone (or
#     FATAL rollback), never left half applied;
#   - both shapes of Azure's error body ({"error": {...}} and {"code", "message"}): a 404 NotFound
#     on a record-set read is a record set that does not exist, and a refusal keeps its code;
#   - record sets dnsbatch cannot represent (an alias with targetResource, an empty one, one
#     registered automatically in a private zone): named, never written over or deleted;
#   - the federated token file read by the one secret reader (no silent cut at 16 KiB).
#
# Prints "ok - NAME" or "not ok - NAME" per check; exits 1 if any failed.
# Env: DNSBATCH (default build/dnsbatch), DNSB_KEEP_TMP=1 to keep the temp dir.
. "$(dirname "$0")/checks.sh"
test_begin

. tests/integration/azure_fake.sh

fake_begin jsonschema python3-jsonschema openssl jq curl python3

# no_sanitizer LABEL NAME: apply NAME's stderr holds no sanitizer report
no_sanitizer() {
	eq "$1: no sanitizer report" "$(grep -cE 'AddressSanitizer|runtime error|LeakSanitizer' "$T/$2.err")" 0
}
# props NAME TYPE: the record set's properties as the fake holds them (compact JSON), "" when absent
props() {
	curl -s --max-time 10 --cacert "$T/ca.pem" "$URL/_fake/zone/${ZONE:-example.com}" |
		jq -c --arg n "$1" --arg t "$2" '.rrsets[] | select(.name == $n and .type == $t) | .records'
}
# octets N [CHAR]: a string of N octets
octets() { head -c "$1" /dev/zero | tr '\0' "${2:-x}"; }

A1='{"TTL":300,"ARecords":[{"ipv4Address":"192.0.2.1"}]}'

##### 1. a refused DELETE ##########################################################################

printf 'example.com old A %s\n' "$A1" >"$T/del.seed"
plan "$T/del.plan.json" delete="$(list "$(ep old.example.com A 300 192.0.2.1)")" \
	create="$(list "$(ep fresh.example.com A 300 192.0.2.2)")"
# A 400 (once): the batch is bisected and the delete, sent again alone, lands.
start_fake del-refuse --seed "$T/del.seed" --fault refuse
apply del-refuse "$T/del.plan.json" --max-retries 0
no_sanitizer "refused delete (400)" del-refuse
eq "refused delete (400): both applied, the delete when sent again alone" "$RC $(counts del-refuse)" "0 2 2 0 0 0"
eq "refused delete (400): the create not sent beside the refused delete (3 writes: DELETE 400, DELETE, PUT)" \
	"$(stat '"\(.writes) \(.status["400"])"')" "3 1"
eq "refused delete (400): old deleted, fresh written" "$(zone | cut -d' ' -f1,3 | grep -E '^(old|fresh) ' | tr '\n' ,)" "fresh A,"
clean_requests "refused delete (400)"
stop_fake
# An ETag race (412): the delete dropped, the create applied alone.
start_fake del-race --seed "$T/del.seed" --fault race
apply del-race "$T/del.plan.json" --max-retries 0
no_sanitizer "refused delete (412 race)" del-race
eq "refused delete (412 race): the delete dropped, the create applied alone" "$RC $(counts del-race)" "3 2 1 0 1 0"
eq "refused delete (412 race): the refusal named" "$(drop del-race old.example.com)" "dropped conflict 412 PreconditionFailed"
eq "refused delete (412 race): the other writer's old stands (TTL 301)" "$(zone | grep '^old ' | cut -d' ' -f2)" 301
eq "refused delete (412 race): fresh written" "$(zone | grep -c '^fresh ')" 1
clean_requests "refused delete (412 race)"
stop_fake

##### 2. TXT strings over 255 octets ###############################################################

S255=$(octets 255 a)
S256=$(octets 256 b)
S1024=$(octets 1024 c)
S2048=$(octets 2048 d)
jq -cn --arg s "$S256" '{TTL: 300, TXTRecords: [{value: [$s]}]}' | sed 's/^/example.com dkim256 TXT /' >"$T/txt.seed"
jq -cn --arg s "$S1024" '{TTL: 300, TXTRecords: [{value: [$s, $s]}]}' | sed 's/^/example.com dkim2048 TXT /' >>"$T/txt.seed"
start_fake txt --seed "$T/txt.seed"
run records "${AZ_FLAGS[@]}" >"$T/txt.records" 2>"$T/txt.records.err"
eq "TXT records: exit 0" "$?" 0
eq "TXT records: a 256-octet string listed as 255 + 1" "$(grep -c "^dkim256.example.com.	300	IN	TXT	\"$(octets 255 b)\" \"b\"$" "$T/txt.records")" 1
eq "TXT records: two 1,024-octet strings listed as 2 x (4 x 255 + 4)" \
	"$(awk -F'\t' '$1 == "dkim2048.example.com." { print gsub(/"[c]+"/, "&", $5) }' "$T/txt.records")" 10

plan "$T/txtdel.plan.json" delete="$(list "$(ep dkim256.example.com TXT 300 "$S256")")"
apply txtdel "$T/txtdel.plan.json" --max-retries 0
eq "TXT 256 delete: applied (not already_applied)" "$RC $(counts txtdel)" "0 1 1 0 0 0"
eq "TXT 256 delete: Azure no longer holds it" "$(zone | grep -c '^dkim256 ')" 0

plan "$T/txtin.plan.json" create="$(list "$(ep dkim2048.example.com TXT 300 "other")")"
apply txtin "$T/txtin.plan.json" --max-retries 0
eq "TXT 2048 held: a create there is a conflict found by the read (what is in the way is read)" \
	"$(drop txtin dkim2048.example.com)" "dropped conflict 0 precheck"
eq "TXT 2048 held: untouched" "$(props dkim2048 TXT)" "$(jq -cn --arg s "$S1024" '[{value: [$s, $s]}]')"

plan "$T/txtnew.plan.json" create="$(list "$(ep t255.example.com TXT 300 "$S255")" \
	"$(ep t256.example.com TXT 300 "$S256")" "$(ep t2048.example.com TXT 300 "$S2048")")"
apply txtnew "$T/txtnew.plan.json" --max-retries 0
eq "TXT 255/256/2048 creates: applied" "$RC $(counts txtnew)" "0 3 3 0 0 0"
eq "TXT 255: one value string" "$(props t255 TXT)" "$(jq -cn --arg s "$S255" '[{value: [$s]}]')"
eq "TXT 256: one value string, as external-dns writes it" "$(props t256 TXT)" "$(jq -cn --arg s "$S256" '[{value: [$s]}]')"
eq "TXT 2048: value strings of at most 1,024 octets (1,020 + 1,020 + 8)" "$(props t2048 TXT | jq -c '[.[0].value[] | length]')" \
	"[1020,1020,8]"
eq "TXT: no value string over Azure's limit sent" "$(stat .txt_too_long)" 0
apply txtagain "$T/txtnew.plan.json" --max-retries 0
eq "TXT 255/256/2048 again: already applied (read back equal)" "$RC $(counts txtagain)" "0 3 0 3 0 0"
code=$(jq -cn --arg s "$(octets 1025 e)" '{properties: {TTL: 300, TXTRecords: [{value: [$s]}]}}' |
	curl -s -o /dev/null -w '%{http_code}' --max-time 10 --cacert "$T/ca.pem" -X PUT -H "Content-Type: application/json" \
		-H "Authorization: Bearer none" --data-binary @- \
		"$URL/subscriptions/sub-0001/resourceGroups/rg-dns/providers/Microsoft.Network/dnsZones/example.com/TXT/long?api-version=2018-05-01")
eq "the fake: a request without a token is 401 before any check" "$code" 401
tok=$(curl -s --max-time 10 --cacert "$T/ca.pem" -d "grant_type=client_credentials&client_id=$AZ_CLIENT&client_secret=$AZ_SECRET&scope=https%3A%2F%2Fmanagement.azure.com%2F.default" \
	"$URL/$AZ_TENANT/oauth2/v2.0/token" | jq -r .access_token)
code=$(jq -cn --arg s "$(octets 1025 e)" '{properties: {TTL: 300, TXTRecords: [{value: [$s]}]}}' |
	curl -s -o /dev/null -w '%{http_code}' --max-time 10 --cacert "$T/ca.pem" -X PUT -H "Content-Type: application/json" \
		-H "Authorization: Bearer $tok" --data-binary @- \
		"$URL/subscriptions/sub-0001/resourceGroups/rg-dns/providers/Microsoft.Network/dnsZones/example.com/TXT/long?api-version=2018-05-01")
eq "the fake: a 1,025-octet value string is refused 400, as Azure does" "$code $(stat .txt_too_long)" "400 1"
clean_requests "TXT"
stop_fake

##### 3. the token endpoint failing between the deletions and the writes ##########################

printf 'example.com swap CNAME {"TTL":300,"CNAMERecord":{"cname":"old.example.net"}}\n' >"$T/swap.seed"
plan "$T/swap.plan.json" delete="$(list "$(ep swap.example.com CNAME 300 old.example.net)")" \
	create="$(list "$(ep swap.example.com A 300 192.0.2.30)")"
# The token lives 4 s (renewed 1 s before its end); the DELETE takes 3.5 s; the token request that
# follows (the 2nd) fails, the next succeeds.
start_fake swap --seed "$T/swap.seed" --token-lifetime 4 --fault delay --fault-delay 3500 --token-fail 2
apply swap "$T/swap.plan.json" --max-retries 0
no_sanitizer "token mid-batch" swap
eq "token mid-batch: the token endpoint failed once" "$(stat .token_failed)" 1
eq "token mid-batch: nothing applied or dropped, both failed" "$RC $(counts swap)" "4 2 0 0 0 2"
eq "token mid-batch: the deletion undone: the old CNAME stands, no A" "$(zone | grep '^swap ' | cut -d' ' -f3 | tr '\n' ' ')" "CNAME "
stop_fake
# The token endpoint stays down: the undo cannot be sent either: FATAL rollback, named.
start_fake swap2 --seed "$T/swap.seed" --token-lifetime 4 --fault delay --fault-delay 3500 --token-fail 2 \
	--token-fail 3 --token-fail 4 --token-fail 5 --token-fail 6
apply swap2 "$T/swap.plan.json" --max-retries 0
eq "token down mid-batch: both failed" "$(counts swap2)" "2 0 0 0 2"
check "token down mid-batch: the answer is FATAL rollback" grep -q "rollback" "$T/swap2.err"
stop_fake

# The token revoked early (honoured 1 s): the write after the slow DELETE is refused 401, its renewal
# fails (the 2nd token request), the next renewal (the undo's) succeeds: undone, never half applied.
start_fake swap3 --seed "$T/swap.seed" --token-valid 1 --fault delay --fault-delay 1500 --token-fail 2
apply swap3 "$T/swap.plan.json" --max-retries 0
no_sanitizer "token revoked mid-batch" swap3
eq "token revoked mid-batch: nothing applied or dropped, both failed" "$(counts swap3)" "2 0 0 0 2"
eq "token revoked mid-batch: the token endpoint's 500 is transient, the zone not stopped as fatal" \
	"$(grep -c 'stopped: fatal' "$T/swap3.err")" 0
eq "token revoked mid-batch: the deletion undone: the old CNAME stands, no A" \
	"$(zone | grep '^swap ' | cut -d' ' -f3 | tr '\n' ' ')" "CNAME "
stop_fake

##### 4. both shapes of Azure's error body ##########################################################

# 250 record sets: a batch's record sets are read by GET (404 NotFound when absent), not by the listing.
for i in $(seq 250); do printf 'example.com h%d A %s\n' "$i" "$A1"; done >"$T/many.seed"
printf 'example.com app A %s\n' "$A1" >>"$T/many.seed"
plan "$T/two.plan.json" create="$(list "$(ep web.example.com A 300 192.0.2.10)" "$(ep web.example.com TXT 300 owner)")"
plan "$T/two2.plan.json" create="$(list "$(ep web2.example.com A 300 192.0.2.11)" "$(ep web2.example.com TXT 300 owner)")"
plan "$T/race.plan.json" updateOld="$(list "$(ep app.example.com A 300 192.0.2.1)")" \
	updateNew="$(list "$(ep app.example.com A 300 192.0.2.13)")"
for shape in wrapped bare; do
	start_fake "shape-$shape" --seed "$T/many.seed" --page-size 100 --error-shape "$shape" --fault ok --fault ok
	apply "get-$shape" "$T/two.plan.json" --max-retries 0
	eq "$shape 404 NotFound on a record-set GET: absent, both created" "$RC $(counts "get-$shape")" "0 2 2 0 0 0"
	ge "$shape: the record sets were read by GET (404s answered)" "$(stat '.status["404"] // 0')" 2
	# The TXT's write answered 502 (its fate unknown): the undo reads it back by GET, 404 NotFound:
	# it did not land; the A undone, the batch sent again.
	curl -s -o /dev/null --max-time 10 --cacert "$T/ca.pem" -X POST "$URL/_fake/fault/ok/502before"
	apply "lost-$shape" "$T/two2.plan.json" --azure-max-in-flight 1
	eq "$shape 404 NotFound on the read-back after a rollback: not fatal, undone, then applied" \
		"$RC $(counts "lost-$shape")" "0 2 2 0 0 0"
	curl -s -o /dev/null --max-time 10 --cacert "$T/ca.pem" -X POST "$URL/_fake/fault/race"
	apply "race-$shape" "$T/race.plan.json" --max-retries 0
	eq "$shape 412 of a race: dropped as a conflict with Azure's code" "$(drop "race-$shape" app.example.com)" \
		"dropped conflict 412 PreconditionFailed"
	clean_requests "$shape"
	stop_fake
done

##### 5. record sets dnsbatch cannot represent ######################################################

{
	printf 'example.com cdn A {"TTL":60,"targetResource":{"id":"/subscriptions/sub-0001/resourceGroups/rg-dns/providers/Microsoft.Network/trafficManagerProfiles/tm1"}}\n'
	printf 'example.com hollow A {"TTL":300,"ARecords":[]}\n'
	printf 'example.com bad MX {"TTL":300,"MXRecords":[{"preference":10,"exchange":"bad..example.net"}]}\n'
} >"$T/opaque.seed"
start_fake opaque --seed "$T/opaque.seed"
run records "${AZ_FLAGS[@]}" >"$T/opaque.records" 2>"$T/opaque.records.err"
eq "records: exit 0" "$?" 0
eq "records: the alias, the empty and the unreadable record sets not listed" "$(grep -cE '^(cdn|hollow|bad)\.' "$T/opaque.records")" 0
check "records: the alias named as an alias" grep -q "cdn.example.com. A: an alias record set (targetResource)" "$T/opaque.records.err"
check "records: the empty record set named" grep -q "hollow.example.com. A: an empty record set" "$T/opaque.records.err"
check "records: the unreadable record set named" grep -q "bad.example.com. MX: a record set holding a record dnsbatch cannot read" \
	"$T/opaque.records.err"
before=$(props cdn A; props hollow A; props bad MX)
plan "$T/op-create.plan.json" create="$(list "$(ep cdn.example.com A 300 192.0.2.50)" "$(ep hollow.example.com A 300 192.0.2.51)")"
apply op-create "$T/op-create.plan.json" --max-retries 0
eq "create at an alias / an empty record set: both dropped" "$RC $(counts op-create)" "3 2 0 0 2 0"
eq "create at the alias: a conflict, named unrepresentable" "$(drop op-create cdn.example.com)" "dropped conflict 0 unrepresentable"
eq "create at the empty record set: a conflict, named unrepresentable" "$(drop op-create hollow.example.com)" \
	"dropped conflict 0 unrepresentable"
plan "$T/op-del.plan.json" delete="$(list "$(ep cdn.example.com A 60 192.0.2.50)" "$(ep bad.example.com MX 300 "10 bad.example.net")")"
apply op-del "$T/op-del.plan.json" --max-retries 0
eq "delete of the alias / the unreadable MX: dropped, not already_applied" "$RC $(counts op-del)" "3 2 0 0 2 0"
eq "delete of the alias: a conflict, named" "$(drop op-del cdn.example.com)" "dropped conflict 0 unrepresentable"
eq "nothing written over or deleted" "$(props cdn A; props hollow A; props bad MX)" "$before"
eq "no write sent at all" "$(stat .writes)" 0
stop_fake

# A private zone's record registered automatically by a virtual network.
printf 'example.com vm1 A {"ttl":10,"aRecords":[{"ipv4Address":"10.0.0.4"}],"isAutoRegistered":true}\n' >"$T/auto.seed"
start_fake auto --private --seed "$T/auto.seed"
AZ_FLAGS+=(--azure-private-zones)
plan "$T/auto-del.plan.json" delete="$(list "$(ep vm1.example.com A 10 10.0.0.4)")"
apply auto-del "$T/auto-del.plan.json" --max-retries 0
eq "delete of an auto-registered record: dropped as a conflict, named" "$RC $(drop auto-del vm1.example.com)" \
	"3 dropped conflict 0 unrepresentable"
plan "$T/auto-up.plan.json" updateOld="$(list "$(ep vm1.example.com A 10 10.0.0.4)")" \
	updateNew="$(list "$(ep vm1.example.com A 10 10.0.0.9)")"
apply auto-up "$T/auto-up.plan.json" --max-retries 0
eq "update of an auto-registered record: dropped as a conflict, named" "$RC $(drop auto-up vm1.example.com)" \
	"3 dropped conflict 0 unrepresentable"
eq "the auto-registered record stands, untouched" "$(props vm1 A)" '[{"ipv4Address":"10.0.0.4"}]'
eq "auto-registered: no write sent" "$(stat .writes)" 0
stop_fake

##### the federated token file: one secret reader ###################################################

BIG=$(octets 20000 J)
start_fake bigjwt --federated-token "$BIG"
printf '%s\n' "$BIG" >"$T/federated"
CREDS=("AZURE_TENANT_ID=$AZ_TENANT" "AZURE_CLIENT_ID=$AZ_CLIENT" "AZURE_FEDERATED_TOKEN_FILE=$T/federated")
plan "$T/jwt.plan.json" create="$(list "$(ep jwt.example.com A 300 192.0.2.60)")"
apply jwt "$T/jwt.plan.json"
eq "a 20,000-octet federated token: read whole, applied" "$RC $(counts jwt) $(stat .token_kinds.workload)" "0 1 1 0 0 0 1"
octets 70000 K >"$T/federated"
apply jwtbig "$T/jwt.plan.json"
eq "a federated token file over 64 KiB: exit 2 at open" "$RC" 2
check "a federated token file over 64 KiB: refused by name, not cut" grep -q "AZURE_FEDERATED_TOKEN_FILE.*over 64 KiB" \
	"$T/jwtbig.err"
eq "a federated token file over 64 KiB: no token asked for with a cut one" "$(stat .bad_auth) $(stat .token_requests)" "0 1"
# azure.json (it may hold aadClientSecret) through the same reader: past 64 KiB refused by name, not cut.
jq -n --arg t "$AZ_TENANT" --arg c "$AZ_CLIENT" --arg s "$AZ_SECRET" --arg pad "$(octets 70000 P)" '{tenantId: $t,
	subscriptionId: "sub-0001", resourceGroup: "rg-dns", aadClientId: $c, aadClientSecret: $s, padding: $pad}' >"$T/azure.json"
CREDS=()
run apply --plan "$T/jwt.plan.json" --provider azure --azure-config-file "$T/azure.json" --azure-api-endpoint "$URL/" \
	--azure-ca-file "$T/ca.pem" --output json >"$T/cfbig.json" 2>"$T/cfbig.err"
eq "azure.json over 64 KiB: exit 2" "$?" 2
check "azure.json over 64 KiB: refused by name, not cut" grep -q -- "--azure-config-file .*over 64 KiB" "$T/cfbig.err"
eq "azure.json over 64 KiB: no secret in what dnsbatch printed" "$(grep -c "$AZ_SECRET" "$T/cfbig.err" "$T/cfbig.json" | \
	awk -F: '{ n += $2 } END { print n }')" 0
stop_fake

echo "# $failures failed"
[ "$failures" -eq 0 ]
