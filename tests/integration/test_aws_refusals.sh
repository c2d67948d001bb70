#!/usr/bin/env bash
#
# test_aws_refusals.sh - what Route53 refuses, through the dnsbatch binary
# against tests/fakes/fake_route53.py over HTTPS: a CNAME at the zone apex, a
# CloudFront alias evaluating target health and a request of more than 32,000
# characters of values are each isolated and dropped invalid with Route53's
# message while the rest of the plan is applied; an A value that is not IPv4
# is dropped before sending and an unquoted TXT value is sent quoted (the
# fake's own refusals of both checked with botocore's client); batches are cut
# within the 1,000-record and 32,000-character limits as AWS counts them
# (600 updates: 2 POSTs, none refused); the zones carry their apex SOA and NS.
#
# Prints "ok - NAME" or "not ok - NAME" per check; exits 1 if any failed.
# Env: DNSBATCH (default build/dnsbatch), DNSB_KEEP_TMP=1 to keep the temp dir.
. "$(dirname "$0")/checks.sh"
test_begin
. tests/integration/aws_fake.sh

fake_begin 'botocore.session, botocore.auth' python3-botocore openssl jq curl python3

AWS_APPLY_FLAGS=(--aws-zone-id ZEXAMPLE)
# why NAME DNSNAME: "reason | message" of DNSNAME's drop
why() { jq -r --arg n "$2" 'select([.change[][]?.dnsName] | index($n)) | "\(.reason) | \(.message)"' "$T/$1.drops" | head -1; }
# txt_values N LEN: N quoted values of LEN characters each, as ep arguments
txt_values() { local i; for ((i = 0; i < $1; i++)); do printf 'v%03d%s\n' "$i" "$(head -c $(($2 - 4)) /dev/zero | tr '\0' x)"; done; }

##### the zone as Route53 creates it ##################################################################
start_fake zone --zone ZOTHER=other.example.net --zone-page 1
eq "a new zone holds its apex SOA and NS, as Route53 creates them" "$(zone | awk '{print $1, $3}' | paste -sd' ')" \
	"example.com. NS example.com. SOA"
run records --provider aws >"$T/records.out" 2>"$T/records.err"
eq "records: both zones listed through ListHostedZones pages (Marker on every page), apex NS and SOA each" \
	"$?:$(cut -f1,4 "$T/records.out" | sort -u | tr '\t\n' '  ')" \
	"0:example.com. NS example.com. SOA other.example.net. NS other.example.net. SOA "
run records --provider aws --output json >"$T/records.json" 2>"$T/records.err"
eq "records --output json: the apex NS listed for external-dns, the SOA not" \
	"$(jq -r '[.[] | "\(.dnsName) \(.recordType)"] | join(",")' "$T/records.json")" "example.com NS,other.example.net NS"
python3 tests/integration/r53_refusals.py "$URL" "$T/ca.pem" "$KEY_ID" "$SECRET" ZEXAMPLE >"$T/boto.out" 2>"$T/boto.err"
eq "the fake, asked by botocore: an A value not IPv4 refused as Route53 words it" "$(grep '^a-not-ipv4 ' "$T/boto.out")" \
	"a-not-ipv4 InvalidChangeBatch Invalid Resource Record: FATAL problem: ARRDATAIllegalIPv4Address (Value is not a valid IPv4 address) encountered with '192.0.2.300'"
eq "the fake, asked by botocore: an unquoted TXT value refused, a quoted one taken" "$(grep '^txt-' "$T/boto.out")" \
	"txt-unquoted InvalidChangeBatch Invalid Resource Record: FATAL problem: InvalidCharacterString (Value should be enclosed in quotation marks) encountered with 'hello world'
txt-quoted ok -"
eq "the fake, asked by botocore: 600 records in an UPSERT count 1,200 (refused), in a CREATE 600" \
	"$(grep -E '^(upsert|create)-600 ' "$T/boto.out")" \
	"upsert-600 InvalidChangeBatch Number of records limit of 1000 exceeded.
create-600 ok -"
eq "the fake, asked by botocore: the apex NS cannot be deleted" "$(grep '^apex-ns-delete ' "$T/boto.out")" \
	"apex-ns-delete InvalidChangeBatch A HostedZone must contain at least one NS record for the zone itself."
eq "the fake, asked by botocore: ListHostedZones' first page carries Marker, an unknown marker is refused" \
	"$(grep '^zones-' "$T/boto.out")" "zones-first-page ok Marker=''
zones-unknown-marker InvalidInput Invalid marker: no hosted zone with ID ZNOSUCHZONE"
clean_requests zone
stop_fake

##### each refusal isolated, the rest applied, the cause named ######################################
start_fake refusals
CDN=d111111abcdef8.cloudfront.net
mapfile -t big < <(txt_values 130 250) # 130 x 252 characters quoted: over 32,000
plan "$T/r.plan.json" create="$(list "$(ep example.com CNAME 300 www.example.net)" "$(ep ok1.example.com A 300 192.0.2.1)" \
	"$(alias_ep cf.example.com A "$CDN" true)" "$(ep ok2.example.com A 300 192.0.2.2)" \
	"$(ep big.example.com TXT 300 "${big[@]}")" "$(ep ok3.example.com A 300 192.0.2.3)" \
	"$(alias_ep cf-ok.example.com A "$CDN" false)" "$(ep notip.example.com A 300 192.0.2.300)")"
apply refusals "$T/r.plan.json"
eq "refusals: exit 3, 4 applied, 4 dropped, none failed" "$RC $(counts refusals)" "3 8 4 0 4 0"
eq "refusals: the apex CNAME dropped invalid with Route53's message" "$(why refusals example.com)" \
	"invalid | RRSet of type CNAME with DNS name example.com. is not permitted at apex in zone example.com."
eq "refusals: the CloudFront alias evaluating health dropped invalid, the message naming it" \
	"$(why refusals cf.example.com | grep -c "^invalid | Tried to create an alias that targets $CDN., type A in zone Z2FDTNDATAQYW2, but EvaluateTargetHealth cannot be true")" 1
eq "refusals: the RRset over 32,000 characters dropped invalid, Route53's limit named" "$(why refusals big.example.com)" \
	"invalid | RDATA character limit of 32000 exceeded."
eq "refusals: the A value not IPv4 dropped invalid by the plan's parser (never sent: no ARRDATA refusal)" \
	"$(why refusals notip.example.com | grep -v ARRDATA | grep -c "^invalid | .*A target '192.0.2.300'")" 1
eq "refusals: drops --explain gives each cause: invalid, with Route53's message or the parser's" \
	"$("$DNSBATCH" drops "$T/refusals.drops" --explain 2>&1 | grep -cE '^dropped create (example\.com\. CNAME: invalid: RRSet of type CNAME|cf\.example\.com\. A: invalid: Tried to create an alias|big\.example\.com\. TXT: invalid: RDATA character limit|notip\.example\.com\. A: invalid: .*could not parse)')" 4
eq "refusals: the rest applied (the CloudFront alias evaluating no health among them)" \
	"$(zone | grep -E '^(ok[123]|cf-ok)\.' | awk '{print $1}' | paste -sd' ')" \
	"cf-ok.example.com. ok1.example.com. ok2.example.com. ok3.example.com."
eq "refusals: nothing of the refused written" "$(zone | grep -cE '^(cf|big|notip)\.|^example\.com\. [0-9]+ CNAME')" 0
# Three batches (the big set alone: over 32,000 characters with the others); the first refused once, its two culprits
# named by the messages, each then refused alone (a lone group is dropped only after its own refusal), the rest sent.
eq "refusals: 3 batches, 6 submissions (1 + 2 culprits alone + the rest; the big set; the last batch)" \
	"$(rep refusals '"\(.batches) \(.submissions)"')" "3 6"
clean_requests refusals

##### a TXT value is sent quoted #####################################################################
plan "$T/txt.plan.json" create="$(list "$(ep txt.example.com TXT 300 'hello world')")"
apply txt "$T/txt.plan.json"
eq "txt: an unquoted TXT target applied, held quoted (the fake refuses it unquoted)" \
	"$RC $(counts txt) $(zone | grep '^txt\.')" '0 1 1 0 0 0 txt.example.com. 300 TXT "hello world"'
clean_requests txt
stop_fake

##### batches cut within the limits as AWS counts them ##############################################
for ((i = 0; i < 600; i++)); do echo "ZEXAMPLE u$i.example.com. 300 A 10.1.$((i / 256)).$((i % 256))"; done >"$T/u.records"
start_fake limits --seed "$T/u.records" --page-size 300
jq -n '[range(600) | {dnsName: "u\(.).example.com", recordType: "A", recordTTL: 300, labels: {}, n: .}] |
	{create: [], delete: [], updateOld: map({dnsName, recordType, recordTTL, labels, targets: ["10.1.\(.n / 256 | floor).\(.n % 256)"]}),
	updateNew: map({dnsName, recordType, recordTTL, labels, targets: ["10.2.\(.n / 256 | floor).\(.n % 256)"]})}' >"$T/u.plan.json"
apply updates "$T/u.plan.json" --batch-size 1000 --aws-batch-change-size 1000 --force # every RRset updated: over the 30% threshold
eq "600 updates (1,200 ResourceRecords): all applied in 2 POSTs, none refused for size" \
	"$RC $(counts updates) $(stat '"\(.changes) \(.refused_limit)"')" "0 600 600 0 0 0 2 0"
mapfile -t mid < <(txt_values 1 200)
jq -n --arg v "${mid[0]}" '{create: [range(200) | {dnsName: "t\(.).example.com", recordType: "TXT", recordTTL: 300,
	labels: {}, targets: [$v]}], updateOld: [], updateNew: [], delete: []}' >"$T/t.plan.json"
apply chars "$T/t.plan.json" --batch-size 1000
eq "200 TXT sets of 202 characters (40,400): applied in 2 POSTs, none refused for size" \
	"$RC $(counts chars) $(stat '"\(.changes) \(.refused_limit)"')" "0 200 200 0 0 0 4 0"
clean_requests limits
stop_fake

echo "# $failures failed"
[ "$failures" -eq 0 ]
