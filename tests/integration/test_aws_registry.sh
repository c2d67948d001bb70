#!/usr/bin/env bash
#
# test_aws_registry.sh - what external-dns v0.22 sends `dnsbatch serve
# --provider aws` through its default registry, against
# tests/fakes/fake_route53.py: the TXT registry (registry/txt/registry.go,
# generateTXTRecordWithFilter) writes beside each record an ownership TXT named
# "<type>-<name>" with the record's setIdentifier, labels.ownedRecord naming the
# record, and the record's providerSpecific copied as it is: `alias=true` and
# `aws/evaluate-target-health` on the TXT of an alias, the routing properties
# on the TXT of a set. external-dns's aws provider ignores `alias` on a TXT
# (isAWSAlias: A and AAAA only); so does dnsbatch, and the alias is written.
# The routing properties external-dns's aws provider maps (provider/aws/aws.go):
# aws/multi-value-answer by its presence (listed back without a value), and
# geoproximity by region, local zone group or coordinates, with its bias (0
# when none is given), each written as Route53's model says and listed back
# so that the next loop writes nothing. A property dnsbatch cannot map is
# refused before anything is sent, named.
#
# Prints "ok - NAME" or "not ok - NAME" per check; exits 1 if any failed.
. "$(dirname "$0")/checks.sh"
test_begin
. tests/integration/extdns_client.sh
. tests/integration/aws_fake.sh

fake_begin botocore.auth python3-botocore openssl jq curl python3
start_fake registry || exit 1
export HOME=$T/home AWS_ENDPOINT_URL_ROUTE_53=$URL AWS_CA_BUNDLE=$T/ca.pem AWS_ACCESS_KEY_ID=$KEY_ID \
	AWS_SECRET_ACCESS_KEY=$SECRET
extdns_serve "$T/serve.log" --provider aws --aws-batch-change-interval 0 --drop-log "$T/drops.jsonl" ||
	{ not_ok "dnsbatch serve --provider aws starts" "$(tail -5 "$T/serve.log")"; exit 1; }

LB=my-lb-1234567890.us-east-1.elb.amazonaws.com
OWNER='"heritage=external-dns,external-dns/owner=default,external-dns/resource=service/default/app"'
# rec NAME TYPE SETID PROPS-JSON TARGET...: a record as external-dns's aws AdjustEndpoints leaves it (TTL 300)
rec() {
	local name=$1 type=$2 sid=$3 props=$4
	shift 4
	jq -cn --arg n "$name" --arg t "$type" --arg s "$sid" --argjson p "$props" '$ARGS.positional as $targets |
		{dnsName: $n, targets: $targets, recordType: $t, recordTTL: 300, labels: {owner: "default"},
		providerSpecific: $p} + (if $s == "" then {} else {setIdentifier: $s} end)' --args "$@"
}
# txt RECORD-JSON: its ownership TXT as the registry generates it: "<type>-<name>", the record's setIdentifier,
# labels.ownedRecord, the record's providerSpecific copied, no TTL
txt() {
	jq -c --arg v "$OWNER" '{dnsName: "\(.recordType | ascii_downcase)-\(.dnsName)", targets: [$v], recordType: "TXT",
		labels: {ownedRecord: .dnsName}, providerSpecific: .providerSpecific} +
		(if .setIdentifier then {setIdentifier: .setIdentifier} else {} end)' <<<"$1"
}
# with_txt RECORD-JSON...: each record and its ownership TXT, as a JSON list
with_txt() {
	local r out=()
	for r in "$@"; do out+=("$r" "$(txt "$r")"); done
	list "${out[@]}"
}
# fake_sets NAME-REGEX: the fake's RRsets at those names, "NAME TYPE SETID ALIAS-OR-VALUES ROUTING-XML"
fake_sets() {
	curl -s --cacert "$T/ca.pem" "$URL/_fake/zone/ZEXAMPLE" | jq -r --arg re "$1" '.rrsets[] | select(.name | test($re)) |
		"\(.name) \(.type) \(.set_id // "-") \(if .alias then "alias:\(.alias.dns)" else .values | join(",") end) \((.routing // []) | join(""))"'
}

##### 1. an alias and its registry TXTs ##########################################################
ALIAS='[{"name":"alias","value":"true"},{"name":"aws/evaluate-target-health","value":"true"}]'
plan "$T/alias.json" create="$(with_txt "$(rec app.example.com A "" "$ALIAS" "$LB")" "$(rec app.example.com AAAA "" "$ALIAS" "$LB")")"
extdns_post "$EXTDNS_API" /records "$T/alias.json" >"$T/alias.out"
eq "alias with its registry TXTs (alias=true copied on them): 204" "$EXTDNS_STATUS" 204
eq "alias with its registry TXTs: nothing dropped" "$(wc -l <"$T/drops.jsonl" 2>/dev/null || echo 0)" 0
eq "alias with its registry TXTs: the A and AAAA aliases and both TXTs written" "$(fake_sets '^(a-|aaaa-)?app[.]')" \
"a-app.example.com. TXT - $OWNER 
aaaa-app.example.com. TXT - $OWNER 
app.example.com. A - alias:$LB. 
app.example.com. AAAA - alias:$LB. "

##### 2. routing policies external-dns writes, each set with its registry TXT ######################
prop() { jq -cn '[$ARGS.positional as $a | range(0; $a | length; 2) | {name: $a[.], value: $a[. + 1]}]' --args "$@"; }
MV1=$(rec mv.example.com A one "$(prop aws/multi-value-answer "")" 192.0.2.1)
MV2=$(rec mv.example.com A two "$(prop aws/multi-value-answer false)" 192.0.2.2)
GEO1=$(rec geo.example.com A eu "$(prop aws/geoproximity-region eu-west-1 aws/geoproximity-bias 10)" 192.0.2.11)
GEO2=$(rec geo.example.com A pt "$(prop aws/geoproximity-coordinates 49.22,-74.01)" 192.0.2.12)
GEO3=$(rec geo.example.com A lz "$(prop aws/geoproximity-local-zone-group us-east-1-bos-1 aws/geoproximity-bias -5)" 192.0.2.13)
plan "$T/routing.json" create="$(with_txt "$MV1" "$MV2" "$GEO1" "$GEO2" "$GEO3")"
extdns_post "$EXTDNS_API" /records "$T/routing.json" >"$T/routing.out"
eq "multi-value answer and geoproximity sets with their registry TXTs: 204" "$EXTDNS_STATUS" 204
eq "routing sets: nothing dropped" "$(wc -l <"$T/drops.jsonl")" 0
eq "routing sets: the fake refused no request (botocore's model, one routing policy a set)" "$(stat .bad_schema)" 0
eq "multi-value answer: present without a value or with false, sent true (as external-dns does), on the TXTs too" \
	"$(fake_sets '^(a-)?mv[.]' | cut -d' ' -f1-3,5)" \
"a-mv.example.com. TXT one <SetIdentifier>one</SetIdentifier><MultiValueAnswer>true</MultiValueAnswer>
a-mv.example.com. TXT two <SetIdentifier>two</SetIdentifier><MultiValueAnswer>true</MultiValueAnswer>
mv.example.com. A one <SetIdentifier>one</SetIdentifier><MultiValueAnswer>true</MultiValueAnswer>
mv.example.com. A two <SetIdentifier>two</SetIdentifier><MultiValueAnswer>true</MultiValueAnswer>"
eq "geoproximity: region, coordinates, local zone group, each with its bias (0 when none is given)" \
	"$(fake_sets '^geo[.]' | cut -d' ' -f3,5)" \
"eu <SetIdentifier>eu</SetIdentifier><GeoProximityLocation><AWSRegion>eu-west-1</AWSRegion><Bias>10</Bias></GeoProximityLocation>
lz <SetIdentifier>lz</SetIdentifier><GeoProximityLocation><LocalZoneGroup>us-east-1-bos-1</LocalZoneGroup><Bias>-5</Bias></GeoProximityLocation>
pt <SetIdentifier>pt</SetIdentifier><GeoProximityLocation><Coordinates><Latitude>49.22</Latitude><Longitude>-74.01</Longitude></Coordinates><Bias>0</Bias></GeoProximityLocation>"
eq "geoproximity: the registry TXTs carry the same location" "$(fake_sets '^a-geo[.]' | cut -d' ' -f3,5 | md5sum)" \
	"$(fake_sets '^geo[.]' | cut -d' ' -f3,5 | md5sum)"

extdns_get "$EXTDNS_API" /records >"$T/records.json"
eq "GET /records lists the geoproximity sets with their properties" \
	"$(jq -c '[.[] | select(.dnsName == "geo.example.com") | {s: .setIdentifier, p: .providerSpecific}] | sort_by(.s)' "$T/records.json")" \
	'[{"s":"eu","p":[{"name":"aws/geoproximity-bias","value":"10"},{"name":"aws/geoproximity-region","value":"eu-west-1"}]},{"s":"lz","p":[{"name":"aws/geoproximity-bias","value":"-5"},{"name":"aws/geoproximity-local-zone-group","value":"us-east-1-bos-1"}]},{"s":"pt","p":[{"name":"aws/geoproximity-bias","value":"0"},{"name":"aws/geoproximity-coordinates","value":"49.22,-74.01"}]}]'
list "$MV1" "$MV2" "$GEO1" "$GEO2" "$GEO3" >"$T/desired.json"
eq "the next loops write nothing (AdjustEndpoints answers what GET /records lists)" \
	"$(for i in 1 2 3; do python3 tests/integration/extdns_loop.py "$EXTDNS_API" "$T/desired.json"; done | paste -sd' ')" \
	"0 - 0 - 0 -"

##### 3. a property dnsbatch cannot map: refused, named ###########################################
plan "$T/unmapped.json" create="$(list "$(rec hz.example.com A "" "$(prop aws/target-hosted-zone Z123)" 192.0.2.30)" \
	"$(rec badgeo.example.com A x "$(prop aws/geoproximity-coordinates north)" 192.0.2.31)")"
extdns_post "$EXTDNS_API" /records "$T/unmapped.json" >/dev/null
eq "an unmappable property: dropped invalid, named" \
	"$(jq -r 'select(.change.create[0].dnsName == "hz.example.com") | "\(.reason) \(.message)"' "$T/drops.jsonl")" \
	"invalid \$.create[0] (hz.example.com.): providerSpecific aws/target-hosted-zone: not a property dnsbatch can map"
eq "coordinates that are not LATITUDE,LONGITUDE: dropped invalid, named" \
	"$(jq -r 'select(.change.create[0].dnsName == "badgeo.example.com") | .reason' "$T/drops.jsonl")" invalid
eq "neither was sent" "$(fake_sets '^(hz|badgeo)[.]')" ""

extdns_stop
[ "$failures" -eq 0 ]
