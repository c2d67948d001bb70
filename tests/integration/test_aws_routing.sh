#!/usr/bin/env bash
#
# test_aws_routing.sh - Route53 routing policies (set identifiers) through the
# dnsbatch binary against tests/fakes/fake_route53.py over HTTPS: a weighted
# pair at one name created, listed with its providerSpecific, a weight
# changed, one set deleted; failover primary/secondary with a health check;
# a geolocation default; a conflict on one set identifier named in the drop
# log, the other set at the name applied (each set with its registry TXT
# record); another provider refusing a set identifier before sending.
#
# Prints "ok - NAME" or "not ok - NAME" per check; exits 1 if any failed.
# Env: DNSBATCH (default build/dnsbatch), DNSB_KEEP_TMP=1 to keep the temp dir.
. "$(dirname "$0")/checks.sh"
test_begin
. tests/integration/extdns_client.sh
. tests/integration/aws_fake.sh

fake_begin 'botocore.auth, botocore.loaders' python3-botocore openssl jq curl python3

AWS_APPLY_FLAGS=(--aws-zone-id ZEXAMPLE)
# rep_ep NAME TYPE TTL SETID 'PROPS-JSON' TARGET...: an endpoint with a set identifier and providerSpecific
rep_ep() {
	local name=$1 type=$2 ttl=$3 sid=$4 props=$5
	shift 5
	jq -cn --arg n "$name" --arg t "$type" --argjson ttl "$ttl" --arg s "$sid" --argjson p "$props" \
		'$ARGS.positional as $targets | {dnsName: $n, targets: $targets, recordType: $t, setIdentifier: $s,
		recordTTL: $ttl, labels: {}, providerSpecific: $p}' --args "$@"
}
w() { echo "[{\"name\":\"aws/weight\",\"value\":\"$1\"}]"; }
# routing: the fake's sets with an identifier, "NAME TYPE SETID VALUES ROUTING-XML"
routing() {
	curl -s --cacert "$T/ca.pem" "$URL/_fake/zone/ZEXAMPLE" |
		jq -r '.rrsets[] | select(.set_id) | "\(.name) \(.type) \(.set_id) \(.values | join(",")) \(.routing | join(""))"'
}
records_json() { run records --provider aws --aws-zone-id ZEXAMPLE --output json 2>"$T/records.err"; }

##### a weighted pair ##############################################################################
start_fake weighted --page-size 1  # every listing page by page: NextRecordIdentifier between the two sets
eu=$(rep_ep w.example.com A 60 eu "$(w 10)" 192.0.2.10)
us=$(rep_ep w.example.com A 60 us "$(w 20)" 192.0.2.20)
plan "$T/w.plan.json" create="$(list "$eu" "$us")"
apply weighted "$T/w.plan.json"
eq "weighted: exit 0, 2 applied" "$RC $(counts weighted)" "0 2 2 0 0 0"
eq "weighted: the fake holds two sets at one name, each with its SetIdentifier and Weight" "$(routing)" \
"w.example.com. A eu 192.0.2.10 <SetIdentifier>eu</SetIdentifier><Weight>10</Weight>
w.example.com. A us 192.0.2.20 <SetIdentifier>us</SetIdentifier><Weight>20</Weight>"
clean_requests weighted
records_json >"$T/w.records.json"
eq "weighted records: both sets listed with setIdentifier and aws/weight" \
	"$(jq -c '[.[] | select(.dnsName == "w.example.com")] | sort_by(.setIdentifier)' "$T/w.records.json")" \
	'[{"dnsName":"w.example.com","targets":["192.0.2.10"],"recordType":"A","setIdentifier":"eu","recordTTL":60,"providerSpecific":[{"name":"aws/weight","value":"10"}]},{"dnsName":"w.example.com","targets":["192.0.2.20"],"recordType":"A","setIdentifier":"us","recordTTL":60,"providerSpecific":[{"name":"aws/weight","value":"20"}]}]'
apply weighted-again "$T/w.plan.json"
eq "weighted again: both already applied (the read-back tells the sets apart)" "$RC $(counts weighted-again)" "0 2 0 2 0 0"

plan "$T/w-upd.plan.json" updateOld="$(list "$eu")" updateNew="$(list "$(rep_ep w.example.com A 60 eu "$(w 30)" 192.0.2.10)")"
apply weight "$T/w-upd.plan.json"
eq "weight changed: exit 0, 1 applied" "$RC $(counts weight)" "0 1 1 0 0 0"
eq "weight changed: eu weighs 30, us untouched" "$(routing)" \
"w.example.com. A eu 192.0.2.10 <SetIdentifier>eu</SetIdentifier><Weight>30</Weight>
w.example.com. A us 192.0.2.20 <SetIdentifier>us</SetIdentifier><Weight>20</Weight>"

plan "$T/w-del.plan.json" delete="$(list "$us")"
apply wdel "$T/w-del.plan.json"
eq "one set deleted: exit 0, 1 applied, eu stays" "$RC $(counts wdel) $(routing | cut -d' ' -f3 | tr '\n' ' ')" "0 1 1 0 0 0 eu "
clean_requests weight
stop_fake

##### failover with a health check, a geolocation default ##########################################
start_fake failover
hc=abcdef11-2222-3333-4444-555555fedcba
p=$(rep_ep f.example.com A 60 primary "[{\"name\":\"aws/failover\",\"value\":\"PRIMARY\"},{\"name\":\"aws/health-check-id\",\"value\":\"$hc\"}]" 192.0.2.1)
s=$(rep_ep f.example.com A 60 secondary '[{"name":"aws/failover","value":"SECONDARY"}]' 192.0.2.2)
g=$(rep_ep g.example.com A 60 default '[{"name":"aws/geolocation-country-code","value":"*"}]' 192.0.2.3)
plan "$T/f.plan.json" create="$(list "$p" "$s" "$g")"
apply failover "$T/f.plan.json"
eq "failover+geo: exit 0, 3 applied" "$RC $(counts failover)" "0 3 3 0 0 0"
eq "failover+geo: Failover and HealthCheckId in the model's places, GeoLocation CountryCode *" "$(routing)" \
"f.example.com. A primary 192.0.2.1 <SetIdentifier>primary</SetIdentifier><Failover>PRIMARY</Failover><HealthCheckId>$hc</HealthCheckId>
f.example.com. A secondary 192.0.2.2 <SetIdentifier>secondary</SetIdentifier><Failover>SECONDARY</Failover>
g.example.com. A default 192.0.2.3 <SetIdentifier>default</SetIdentifier><GeoLocation><CountryCode>*</CountryCode></GeoLocation>"
clean_requests failover
records_json >"$T/f.records.json"
eq "failover records: the primary listed with aws/failover and aws/health-check-id" \
	"$(jq -c '.[] | select(.setIdentifier == "primary") | .providerSpecific' "$T/f.records.json")" \
	"[{\"name\":\"aws/failover\",\"value\":\"PRIMARY\"},{\"name\":\"aws/health-check-id\",\"value\":\"$hc\"}]"
apply failover-again "$T/f.plan.json"
eq "failover again: 3 already applied" "$RC $(counts failover-again)" "0 3 0 3 0 0"

##### a conflict on one set identifier ###############################################################
x=$(rep_ep f.example.com A 60 primary '[{"name":"aws/failover","value":"PRIMARY"}]' 192.0.2.9)
y=$(rep_ep f.example.com A 60 third "$(w 5)" 192.0.2.7)
# The registry's TXT record of each set, as external-dns's TXT registry writes it: the set's identifier, its
# providerSpecific copied (registry/txt/registry.go), and labels.ownedRecord naming the record it owns.
reg() {
	rep_ep a-f.example.com TXT 60 "$(jq -r .setIdentifier <<<"$1")" "$(jq -c .providerSpecific <<<"$1")" \
		'"heritage=external-dns,external-dns/owner=default"' | jq -c '.labels = {ownedRecord: "f.example.com"}'
}
plan "$T/c.plan.json" create="$(list "$x" "$(reg "$x")" "$y" "$(reg "$y")")"
apply conflict "$T/c.plan.json"
# Sets at one owner name are groups apart (docs/design.md §2.1), each with its registry TXT record: the refused set is
# dropped with its TXT, the other set is applied with its own.
eq "conflict: exit 3 (drops), set 'primary' and its TXT dropped, set 'third' and its TXT applied" \
	"$RC $(counts conflict)" "3 4 2 0 2 0"
eq "conflict: the TXT of set 'primary' dropped with it" \
	"$(jq -r 'select(.change.create[0].dnsName == "a-f.example.com") | .change.create[0].setIdentifier' "$T/conflict.drops")" \
	primary
eq "conflict: the drop of set 'primary' carries Route53's message naming it, cause exists" \
	"$(jq -r 'select(.change.create[0].setIdentifier == "primary" and .change.create[0].dnsName == "f.example.com") | "\(.cause) \(.message)"' "$T/conflict.drops" |
		grep -c "^exists .*set-identifier='primary'")" 1
check "conflict: the drop log lists what is held, set identifiers included" grep -q '"setIdentifier":"secondary"' \
	"$T/conflict.drops"
eq "conflict: drops --explain names the set identifier of the change and of what is held" \
	"$("$DNSBATCH" drops "$T/conflict.drops" --explain 2>&1 | grep -c "create f.example.com. A set 'primary': exists: held as set 'primary' 192.0.2.1 (TTL 60); set 'secondary' 192.0.2.2 (TTL 60)")" 1
eq "conflict: set 'third' written beside the sets held, with its registry TXT" \
	"$(routing | grep -E '^(f|a-f)\.' | cut -d' ' -f1-4 | paste -sd';')" \
	'a-f.example.com. TXT third "heritage=external-dns,external-dns/owner=default";f.example.com. A primary 192.0.2.1;f.example.com. A secondary 192.0.2.2;f.example.com. A third 192.0.2.7'
clean_requests conflict
stop_fake

##### the sidecar loop converges with routing policies ##############################################
start_fake loop
HOME=$T/home AWS_ENDPOINT_URL_ROUTE_53=$URL AWS_CA_BUNDLE=$T/ca.pem AWS_ACCESS_KEY_ID=$KEY_ID \
	AWS_SECRET_ACCESS_KEY=$SECRET extdns_serve "$T/serve.log" --provider aws --aws-zone-id ZEXAMPLE \
	--aws-batch-change-interval 0 || not_ok "dnsbatch serve --provider aws starts" "$(tail -5 "$T/serve.log")"
list "$(rep_ep w.example.com A 0 eu "$(w 10)" 192.0.2.10)" "$(rep_ep w.example.com A 0 us "$(w 20)" 192.0.2.20)" \
	"$p" "$s" "$g" >"$T/desired.json"
eq "sidecar loop 1 creates the 5 sets (204)" "$(python3 tests/integration/extdns_loop.py "$EXTDNS_API" "$T/desired.json")" "5 204"
eq "sidecar loops 2-4 write nothing" \
	"$(for i in 2 3 4; do python3 tests/integration/extdns_loop.py "$EXTDNS_API" "$T/desired.json"; done | paste -sd' ')" \
	"0 - 0 - 0 -"
list "$(rep_ep w.example.com A 0 eu "$(w 40)" 192.0.2.10)" "$(rep_ep w.example.com A 0 us "$(w 20)" 192.0.2.20)" \
	"$p" "$s" "$g" >"$T/desired2.json"
eq "sidecar: a changed weight is one update (204)" \
	"$(python3 tests/integration/extdns_loop.py "$EXTDNS_API" "$T/desired2.json")" "1 204"
eq "sidecar: then nothing" "$(python3 tests/integration/extdns_loop.py "$EXTDNS_API" "$T/desired2.json")" "0 -"
clean_requests loop
stop_fake

##### another provider refuses a set identifier before sending ######################################
cat >"$T/x.zone" <<'EOF'
$ORIGIN example.com.
@ 300 IN SOA ns1 hostmaster 1 3600 600 86400 300
@ 300 IN NS ns1
ns1 300 IN A 192.0.2.53
EOF
plan "$T/z.plan.json" create="$(list "$eu" "$(ep plain.example.com A 60 192.0.2.44)")"
"$DNSBATCH" apply --plan "$T/z.plan.json" --provider zonefile --zonefile "example.com=$T/x.zone" --output json \
	--drop-log "$T/zonefile.drops" >"$T/zonefile.json" 2>"$T/zonefile.err"
RC=$?
eq "zonefile: the set identifier dropped invalid, the plain record applied" "$(counts zonefile)" "2 1 0 1 0"
check "zonefile: the message names the set identifier and the provider" \
	grep -q "setIdentifier 'eu' (a routing policy): provider zonefile stores no set identifiers" "$T/zonefile.drops"

echo "# $failures failed"
[ "$failures" -eq 0 ]
