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
set -u
export LC_ALL=C
cd "$(dirname "$0")/../.." || exit 1
DNSBATCH=${DNSBATCH:-$PWD/build/dnsbatch}
. tests/integration/checks.sh
. tests/integration/extdns_client.sh
. tests/integration/aws_fake.sh

needs openssl jq curl python3
python3 -c 'import botocore.auth' 2>/dev/null || { not_ok "python3-botocore is installed (make deps)"; exit 1; }
[ -x "$DNSBATCH" ] || { not_ok "$DNSBATCH is built (make tests)"; exit 1; }

scratch
mkdir -p "$T/home"
tls_pki >"$T/pki.log" 2>&1 || { not_ok "openssl makes the test CA and certificate" "$(tail -3 "$T/pki.log")"; exit 1; }
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

extdns_stop
[ "$failures" -eq 0 ]
