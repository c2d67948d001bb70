#!/usr/bin/env bash
#
# test_webhook_aws.sh - `dnsbatch serve --provider aws` as external-dns v0.22's
# sidecar, against tests/fakes/fake_route53.py: alias records through
# AdjustEndpoints (an alias CNAME, or one to a load balancer unless
# --aws-prefer-cname, becomes an A and an AAAA alias; the health property
# added; a set TTL made 300), created by one loop and listed back so
# that the next loops write nothing; a changed health flag is one update; an
# alias where someone else's record is held is dropped with its cause; the
# domain filter narrows the hosted zones served.
#
# Prints "ok - NAME" or "not ok - NAME" per check; exits 1 if any failed.
. "$(dirname "$0")/checks.sh"
test_begin
. tests/integration/extdns_client.sh
. tests/integration/aws_fake.sh

fake_begin botocore.auth python3-botocore openssl jq curl python3

cat >"$T/seed" <<'EOF'
ZEXAMPLE taken.example.com. 300 A 198.51.100.7
ZOTHER www.other.org. 300 A 192.0.2.99
EOF
# The fake allows only what examples/kubernetes/route53-policy.json (the IAM policy the README gives) allows.
POLICY=$PWD/examples/kubernetes/route53-policy.json
start_fake hook --zone ZOTHER=other.org --seed "$T/seed" --page-size 50 --policy "$POLICY" || exit 1

# The sidecar's environment: the fake's endpoint and CA, the env key, no ~/.aws.
export HOME=$T/home AWS_ENDPOINT_URL_ROUTE_53=$URL AWS_CA_BUNDLE=$T/ca.pem AWS_ACCESS_KEY_ID=$KEY_ID \
	AWS_SECRET_ACCESS_KEY=$SECRET
extdns_serve "$T/serve.log" --provider aws --aws-batch-change-interval 0 --domain-filter example.com \
	--drop-log "$T/drops.jsonl" || { not_ok "dnsbatch serve --provider aws starts" "$(tail -5 "$T/serve.log")"; exit 1; }
check "domain filter: 1 of the 2 hosted zones served" grep -q 'serving 1 of 2 zones of provider aws' "$T/serve.log"

# What external-dns's sources make of annotated Services and Ingresses (alias, aws-evaluate-target-health). A CloudFront
# alias says aws-evaluate-target-health "false": Route53 refuses true for one, and external-dns's aws provider puts
# its --aws-evaluate-target-health default (true) on every alias that does not say.
LB=my-lb-1234567890.us-east-1.elb.amazonaws.com
NLB=api-nlb-0123456789abcdef.elb.us-east-1.amazonaws.com
CDN=d111111abcdef8.cloudfront.net
# A CNAME with alias=false: kept a CNAME whatever its target.
cname_no_alias() {
	ep "$1" CNAME 300 "$2" | jq -c '. + {providerSpecific: [{name: "alias", value: "false"}]}'
}
desired() { # HEALTH of api: the desired endpoints
	list "$(alias_ep app.example.com CNAME "$LB")" "$(alias_ep api.example.com A "$NLB" "$1" 60)" \
		"$(alias_ep cdn.example.com A "$CDN" false)" "$(ep plain.example.com A 300 192.0.2.10)" \
		"$(ep example.com CNAME 300 "$LB")" "$(ep docs.example.com CNAME 300 pages.example.net)" \
		"$(cname_no_alias legacy.example.com "$LB")"
}
desired false >"$T/desired.json"
types() { jq -r --arg n "$2" '[.[] | select(.dnsName == $n) | "\(.recordType):\([.providerSpecific[]?.value] | join("/"))"] | join(",")' "$1"; }

extdns_post "$EXTDNS_API" /adjustendpoints "$T/desired.json" >"$T/adjusted.json"
eq "AdjustEndpoints answers 200" "$EXTDNS_STATUS" 200
eq "AdjustEndpoints: the alias CNAME is an A and an AAAA alias" \
	"$(jq -r '[.[] | select(.dnsName == "app.example.com") | .recordType] | join(",")' "$T/adjusted.json")" "A,AAAA"
eq "AdjustEndpoints: the health property added where absent (external-dns's default, true)" \
	"$(jq -r '.[] | select(.dnsName == "app.example.com" and .recordType == "A") | .providerSpecific |
		map("\(.name)=\(.value)") | join(" ")' "$T/adjusted.json")" "alias=true aws/evaluate-target-health=true"
eq "AdjustEndpoints: the CloudFront alias keeps its false" "$(types "$T/adjusted.json" cdn.example.com)" "A:true/false"
eq "AdjustEndpoints: an alias's TTL 60 is 300, as aliases are listed" \
	"$(jq -r '.[] | select(.dnsName == "api.example.com") | "\(.recordTTL) \(.providerSpecific[1].value)"' \
		"$T/adjusted.json")" "300 false"
eq "AdjustEndpoints: an ordinary endpoint has no providerSpecific" \
	"$(jq -r '.[] | select(.dnsName == "plain.example.com") | has("providerSpecific")' "$T/adjusted.json")" false
# external-dns's aws provider (without --aws-prefer-cname) makes a CNAME to a load balancer an alias: the zone apex
# can hold no CNAME, and a migrated install's records are aliases already.
eq "AdjustEndpoints: a CNAME to a load balancer (no alias property) is an A and an AAAA alias" \
	"$(types "$T/adjusted.json" example.com)" "A:true/true,AAAA:true/true"
eq "AdjustEndpoints: a CNAME to another name stays a CNAME" "$(types "$T/adjusted.json" docs.example.com)" "CNAME:"
eq "AdjustEndpoints: alias=false keeps a CNAME to a load balancer a CNAME" \
	"$(types "$T/adjusted.json" legacy.example.com)" "CNAME:"

eq "loop 1 creates the 9 RRsets (204)" "$(python3 tests/integration/extdns_loop.py "$EXTDNS_API" "$T/desired.json")" "9 204"
extdns_get "$EXTDNS_API" /records >"$T/records.json"
eq "GET /records lists the aliases with their properties" \
	"$(jq -r '[.[] | select(.providerSpecific) | "\(.dnsName) \(.recordType) \(.targets[0]) \(.recordTTL) \(.providerSpecific | map(.value) | join(","))"] | sort | join("; ")' "$T/records.json")" \
	"api.example.com A $NLB 300 true,false; app.example.com A $LB 300 true,true; app.example.com AAAA $LB 300 true,true; cdn.example.com A $CDN 300 true,false; example.com A $LB 300 true,true; example.com AAAA $LB 300 true,true"
eq "GET /records: nothing of other.org (outside the domain filter)" \
	"$(jq -r '[.[] | select(.dnsName | endswith("other.org"))] | length' "$T/records.json")" 0
eq "loops 2-4 write nothing" \
	"$(for i in 2 3 4; do python3 tests/integration/extdns_loop.py "$EXTDNS_API" "$T/desired.json"; done | paste -sd' ')" \
	"0 - 0 - 0 -"

desired true >"$T/desired2.json"
eq "a changed evaluate-target-health is one update (204)" \
	"$(python3 tests/integration/extdns_loop.py "$EXTDNS_API" "$T/desired2.json")" "1 204"
eq "then nothing again" "$(python3 tests/integration/extdns_loop.py "$EXTDNS_API" "$T/desired2.json")" "0 -"

# An alias where someone else's A record is held, a CloudFront alias evaluating health (external-dns's default on an
# alias not annotated false) and a name outside the domain filter: dropped, the rest applied.
plan "$T/conflict.json" create="$(list "$(alias_ep taken.example.com A "$LB" true)" \
	"$(ep fresh.example.com A 300 192.0.2.11)" "$(ep new.other.org A 300 192.0.2.12)" \
	"$(alias_ep cf.example.com A "$CDN" true)")"
extdns_post "$EXTDNS_API" /records "$T/conflict.json" >/dev/null
eq "a plan with a conflicting alias answers 204" "$EXTDNS_STATUS" 204
eq "the conflicting alias: dropped, cause exists, the held A shown" \
	"$(jq -r 'select(.change.create[0].dnsName == "taken.example.com") | "\(.reason) \(.cause) \(.current[0].targets[0])"' \
		"$T/drops.jsonl")" "conflict exists 198.51.100.7"
eq "the CloudFront alias evaluating health: dropped invalid, Route53's refusal named" \
	"$(jq -r 'select(.change.create[0].dnsName == "cf.example.com") | "\(.reason) \(.message)"' "$T/drops.jsonl" |
		grep -c '^invalid Tried to create an alias that targets .*cloudfront.net.*EvaluateTargetHealth cannot be true')" 1
eq "the name outside the domain filter: dropped no_zone" \
	"$(jq -r 'select(.change.create[0].dnsName == "new.other.org") | .reason' "$T/drops.jsonl")" no_zone
extdns_get "$EXTDNS_API" /records >"$T/records2.json"
eq "the rest of the plan applied" \
	"$(jq -r '.[] | select(.dnsName == "fresh.example.com") | .targets[0]' "$T/records2.json")" 192.0.2.11
clean_requests "sidecar"
eq "sidecar: every request allowed by examples/kubernetes/route53-policy.json" "$(stat .denied)" 0
eq "sidecar: no UPSERT ever sent" "$(stat '.problems | map(select(startswith("UPSERT"))) | length')" 0

extdns_stop
eq "SIGTERM: exit 0" "$EXTDNS_EXIT" 0

# The policy check can fail: without ListResourceRecordSets, listing is refused (AccessDenied, fatal).
jq '.Statement[0].Action -= ["route53:ListResourceRecordSets"]' "$POLICY" >"$T/narrow-policy.json"
start_fake narrow --policy "$T/narrow-policy.json" || exit 1
run records --provider aws --aws-zone-id ZEXAMPLE >/dev/null 2>"$T/narrow.err"
eq "a policy without ListResourceRecordSets: records fails (exit 4), saying AccessDenied" \
	"$?:$(grep -c 'not authorized to perform: route53:ListResourceRecordSets' "$T/narrow.err")" "4:1"
stop_fake

# --aws-prefer-cname: CNAMEs stay CNAMEs unless marked.
extdns_serve "$T/serve2.log" --provider aws --aws-batch-change-interval 0 --aws-prefer-cname --domain-filter example.com ||
	{ not_ok "dnsbatch serve --aws-prefer-cname starts" "$(tail -5 "$T/serve2.log")"; exit 1; }
extdns_post "$EXTDNS_API" /adjustendpoints "$T/desired.json" >"$T/adjusted2.json"
eq "--aws-prefer-cname: a CNAME to a load balancer stays a CNAME" "$(types "$T/adjusted2.json" example.com)" "CNAME:"
eq "--aws-prefer-cname: a CNAME marked alias=true is still an A and an AAAA alias" \
	"$(types "$T/adjusted2.json" app.example.com)" "A:true/true,AAAA:true/true"
extdns_stop
extdns_serve "$T/serve3.log" --provider aws --aws-batch-change-interval 0 --no-aws-evaluate-target-health \
	--domain-filter example.com || { not_ok "dnsbatch serve --no-aws-evaluate-target-health starts"; exit 1; }
extdns_post "$EXTDNS_API" /adjustendpoints "$T/desired2.json" >"$T/adjusted3.json"
eq "--no-aws-evaluate-target-health: an alias that does not say gets false, one that says true keeps it" \
	"$(types "$T/adjusted3.json" app.example.com) $(types "$T/adjusted3.json" api.example.com)" \
	"A:true/false,AAAA:true/false A:true/true"
extdns_stop
exit $((failures > 0))
