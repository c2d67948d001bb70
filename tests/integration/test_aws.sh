#!/usr/bin/env bash
#
# test_aws.sh - the aws provider through the dnsbatch binary against
# tests/fakes/fake_route53.py over HTTPS: a CA and a server certificate are
# made here with the openssl CLI; each scenario starts its own fake on a free
# loopback port (stopped by PID at the end, also when a check fails). The
# fake recomputes every request's SigV4 signature with botocore and checks
# every ChangeResourceRecordSets body against botocore's route53 model: each
# scenario checks that it refused none.
#
# Each dnsbatch run gets a clean environment (env -i) with only the AWS
# variables of its credential source.
#
# Prints "ok - NAME" or "not ok - NAME" per check; exits 1 if any failed.
# Env: DNSBATCH (default build/dnsbatch), DNSB_KEEP_TMP=1 to keep the temp dir.
. "$(dirname "$0")/checks.sh"
test_begin

PLANS=$ROOT/examples/plans
ZONEFILE=$ROOT/examples/zones/example.com.zone
. tests/integration/aws_fake.sh

fake_begin 'botocore.auth, botocore.loaders' python3-botocore openssl jq curl python3 bc
printf '%s' "$WEB_TOKEN" >"$T/web-token"
printf '%s\n' "$CONTAINER_TOKEN" >"$T/container-token"
cat >"$T/credentials" <<EOF
[default]
aws_access_key_id = AKIDNOTTHISONE
aws_secret_access_key = not-this-one

[dnsbatch]
aws_access_key_id = $FILE_KEY_ID
aws_secret_access_key = $FILE_SECRET
EOF

# The example zone as the fake's seed: "ZEXAMPLE OWNER TTL TYPE VALUE", its SOA and NS in place of those the fake's
# zone was created with (as a zone moved to Route53 keeps its apex records).
# A copy: the zone-file provider keeps its lock file beside the zone, and the repository's tree stays as it is.
cp "$ZONEFILE" "$T/example.com.zone"
"$DNSBATCH" records --provider zonefile --zonefile "example.com=$T/example.com.zone" |
	awk -F'\t' '{ print "ZEXAMPLE", $1, $2, $4, $5 }' >"$T/example.records"
cat >"$T/small.records" <<'EOF'
ZEXAMPLE www.example.com. 300 A 192.0.2.1
ZEXAMPLE alias.example.com. 300 CNAME www.example.com.
ZEXAMPLE stale.example.com. 300 A 192.0.2.20
ZEXAMPLE owned.example.com. 300 A 192.0.2.40
EOF

# secrets_absent NAME: no key, secret or token in what dnsbatch printed
secrets_absent() {
	local hits
	hits=$(cat "$T/$1.err" "$T/$1.json" "$T/$1.drops" 2>/dev/null |
		grep -cE "$SECRET|$FILE_SECRET|$WEB_TOKEN|$CONTAINER_TOKEN|$KEY_ID|$FILE_KEY_ID|ASIA[0-9A-F]{16}")
	eq "$1: no key, secret or token in stderr, stdout or the drop log" "$hits" 0
}

##### clean.json on the example zone ###############################################################

start_fake clean --seed "$T/example.records" --page-size 100
apply clean "$PLANS/clean.json" --aws-zone-id ZEXAMPLE
eq "clean: exit 0" "$RC" 0
eq "clean: 30 applied" "$(counts clean)" "30 30 0 0 0"
eq "clean: 1 submission, 0 reads" "$(rep clean '"\(.submissions) \(.reads)"')" "1 0"
eq "clean: the fake committed one change batch" "$(stat .changes_ok)" 1
zone >"$T/clean.zone"
check "clean: docs-v2 CNAME created with TTL 3600" grep -Fxq 'docs-v2.example.com. 3600 CNAME docs-v2.pages.example.net.' "$T/clean.zone"
check "clean: events A with both addresses, TTL 60" grep -Fxq 'events.example.com. 60 A 203.0.113.41,203.0.113.42' "$T/clean.zone"
check "clean: app A updated (DELETE + CREATE)" grep -Fxq 'app.example.com. 300 A 203.0.113.13' "$T/clean.zone"
check "clean: SRV created" grep -Fxq '_minecraft._tcp.games.example.com. 300 SRV 0 5 25565 mc.games.example.com.' "$T/clean.zone"
eq "clean: old-promo deleted" "$(grep -c '^old-promo.example.com. ' "$T/clean.zone")" 0
clean_requests clean
secrets_absent clean

apply clean2 "$PLANS/clean.json" --aws-zone-id ZEXAMPLE
eq "clean again: exit 0, 30 already applied" "$RC $(counts clean2)" "0 30 0 30 0 0"
eq "clean again: nothing more committed" "$(stat .changes_ok)" 1

run records --provider aws --aws-zone-id ZEXAMPLE >"$T/records.out" 2>"$T/records.err"
eq "records: exit 0" "$?" 0
eq "records: every RRset the fake holds is listed" \
	"$(awk '{print $1, $4}' "$T/records.out" | sort -u | wc -l | tr -d ' ')" "$(zone | wc -l | tr -d ' ')"
ge "records: ListResourceRecordSets pages followed, each query of several parameters signed right" \
	"$(stat .signed_multi_param)" 3
clean_requests records
stop_fake

##### conflicts.json: each kind of conflict dropped with Route53's message #########################
# The zone-file provider's expectations (examples/plans/README.md): 26 applied, 2 already_applied,
# 12 dropped (conflict 8, invalid 2, no_zone 2). Zones from ListHostedZones, one per page.

start_fake conf --seed "$T/example.records" --zone ZOTHER=other.example.net --page-size 2
apply conf "$PLANS/conflicts.json"
eq "conflicts: exit 3" "$RC" 3
eq "conflicts: changes applied already_applied dropped failed" "$(counts conf)" "40 26 2 12 0"
eq "conflicts: drop log reasons" "$(jq -rs 'group_by(.reason) | map("\(.[0].reason)=\(length)") | join(" ")' "$T/conf.drops")" \
	"conflict=8 invalid=2 no_zone=2"
eq "conflicts: legacy A dropped with 400 InvalidChangeBatch" "$(drop conf legacy.example.com)" \
	"dropped conflict 400 InvalidChangeBatch"
check "conflicts: the message is Route53's" \
	grep -q "Tried to create resource record set \[name='legacy.example.com.', type='A'\] but it already exists" "$T/conf.drops"
check "conflicts: the CNAME message is Route53's" \
	grep -q "RRSet of type CNAME with DNS name status.example.com. is not permitted as it conflicts with other records" "$T/conf.drops"
# own_messages NAME: every conflict drop of a record (its ownership TXT apart) carries Route53's words about that
# record, not the joined messages of its batch
own_messages() {
	jq -rs '[.[] | select(.reason == "conflict") | ([.change[][]?][0]) as $e | select($e.recordType != "TXT") |
		.message | contains($e.dnsName + ".")] | length > 0 and all' "$T/$1.drops"
}
eq "conflicts: each drop carries the message about its own record (several in one reply)" "$(own_messages conf)" true
check "conflicts: a delete's message is Route53's" grep -q "but the values provided do not match the current values\|but it was not found" "$T/conf.drops"
zone >"$T/conf.zone"
check "conflicts: legacy A kept its data" grep -Fxq 'legacy.example.com. 3600 A 192.0.2.100' "$T/conf.zone"
le "conflicts: at most 4 submissions (every culprit named in one reply)" "$(rep conf .submissions)" 4
eq "conflicts: the fake saw as many ChangeResourceRecordSets as dnsbatch counted" "$(stat .changes)" "$(rep conf .submissions)"
ge "conflicts: two ListHostedZones pages" "$(stat .list_zones)" 2
clean_requests conf
secrets_absent conf
stop_fake

##### culprits: 5 conflicts in 200 creations, named in one reply ####################################

creates "$T/hints.plan.json" 200 host example.com 10.0
for i in 3 50 99 150 199; do echo "ZEXAMPLE host$i.example.com. 300 A 192.0.2.$i"; done >"$T/hints.records"
start_fake hints --seed "$T/hints.records" --page-size 50
apply hints "$T/hints.plan.json" --aws-zone-id ZEXAMPLE
eq "hints: exit 3, 195 applied, 5 dropped" "$RC $(counts hints)" "3 200 195 0 5 0"
le "hints: at most 2 submissions for 5 conflicts" "$(rep hints .submissions)" 2
clean_requests hints
stop_fake

##### a group refused in one member: no other member written #######################################
whole_group_plan "$T/whole.plan.json" ZEXAMPLE >"$T/whole.records"
start_fake whole --seed "$T/whole.records"
apply whole "$T/whole.plan.json" --aws-zone-id ZEXAMPLE
whole_group_checks
stop_fake

##### each refusal kind in one batch, named in one reply, the rest applied ##########################

plan "$T/kinds.plan.json" \
	create="$(list "$(ep www.example.com A 300 192.0.2.99)" "$(ep alias.example.com A 300 192.0.2.98)" \
		"$(ep ok1.example.com A 300 192.0.2.11)" "$(ep ok2.example.com TXT 300 '"two"')")" \
	delete="$(list "$(ep stale.example.com A 300 192.0.2.21)" "$(ep missing.example.com A 300 192.0.2.22)")"
start_fake kinds --seed "$T/small.records"
apply kinds "$T/kinds.plan.json" --aws-zone-id ZEXAMPLE
eq "kinds: exit 3, 2 applied, the missing delete already in effect, 3 dropped" "$RC $(counts kinds)" "3 6 2 1 3 0"
le "kinds: at most 2 submissions (4 culprits named in one reply)" "$(rep kinds .submissions)" 2
check "kinds: exists" grep -q "\[name='www.example.com.', type='A'\] but it already exists" "$T/kinds.drops"
check "kinds: beside a CNAME (two spaces, as Route53 writes it)" \
	grep -q "RRSet of type A with DNS name alias.example.com. is not permitted because a conflicting RRSet of type  CNAME" "$T/kinds.drops"
check "kinds: values differ" grep -q "\[name='stale.example.com.', type='A'\] but the values provided do not match" "$T/kinds.drops"
eq "kinds: the delete of a missing record is in effect, not in the drop log" "$(drop kinds missing.example.com)" ""
eq "kinds: each drop carries the message about its own record" "$(own_messages kinds)" true
eq "kinds: every drop is a conflict" "$(jq -r .reason "$T/kinds.drops" | sort -u)" conflict
zone >"$T/kinds.zone"
check "kinds: ok2 TXT created" grep -Fxq 'ok2.example.com. 300 TXT "two"' "$T/kinds.zone"
check "kinds: stale kept" grep -Fxq 'stale.example.com. 300 A 192.0.2.20' "$T/kinds.zone"
clean_requests kinds
stop_fake

##### 502 after commit, then the resubmission refused: all already applied ########################

creates "$T/lost.plan.json" 20 lost example.com 10.0
start_fake lost --fault 502after --page-size 50
apply lost "$T/lost.plan.json" --aws-zone-id ZEXAMPLE
eq "502 then 409: exit 0, 20 already applied" "$RC $(counts lost)" "0 20 0 20 0 0"
eq "502 then 409: committed once" "$(stat .changes_ok)" 1
clean_requests lost
stop_fake

##### Throttling and PriorRequestNotComplete: waited, then applied #################################

creates "$T/slow.plan.json" 10 slow example.com 10.0
start_fake slow --fault 'throttle*2' --fault prior
apply slow "$T/slow.plan.json" --aws-zone-id ZEXAMPLE
eq "throttling: exit 0, 10 applied" "$RC $(counts slow)" "0 10 10 0 0 0"
eq "throttling: 3 refusals, then the commit" "$(stat '"\(.throttled) \(.changes_ok)"')" "3 1"
check "throttling: counted as rate_limited" grep -Eq 'dnsbatch_batches_total\{.*class="rate_limited".*\} [1-9]|dnsbatch_retries_total\{reason="rate_limited"\} [1-9]' "$T/slow.prom"
clean_requests slow
stop_fake

##### a 500 before commit is retried; --aws-zone-type picks zones ###################################

creates "$T/err5.plan.json" 5 err5 example.com 10.0
{ cat "$T/small.records"; echo "ZPRIV db.corp.internal. 300 A 10.1.1.1"; } >"$T/types.records"
start_fake err5 --fault 500 --zone ZPRIV=corp.internal:private --seed "$T/types.records"
apply err5 "$T/err5.plan.json" --aws-zone-type public
eq "500: retried, then applied" "$RC $(counts err5)" "0 5 5 0 0 0"
eq "500: committed once" "$(stat .changes_ok)" 1
run records --provider aws --aws-zone-type private >"$T/private.out" 2>"$T/private.err"
eq "--aws-zone-type private: only the private zone's records (its apex SOA and NS as Route53 made them)" \
	"$(cut -f1,4 "$T/private.out" | sort -u | tr '\t\n' '  ')" "corp.internal. NS corp.internal. SOA db.corp.internal. A "
run records --provider aws --aws-zone-type public >"$T/public.out" 2>"$T/public.err"
eq "--aws-zone-type public: not the private zone" "$(grep -c corp.internal "$T/public.out")" 0
clean_requests err5
stop_fake

##### --aws-batch-change-size and --aws-batch-change-interval ######################################

creates "$T/size.plan.json" 10 size example.com 10.0
start_fake size
t0=$(date +%s.%N)
apply size "$T/size.plan.json" --aws-zone-id ZEXAMPLE --aws-batch-change-size 3 --aws-batch-change-interval 0.2
t1=$(date +%s.%N)
eq "batch size 3: 10 applied in 4 submissions" "$RC $(counts size) $(rep size .submissions)" "0 10 10 0 0 0 4"
eq "batch size 3: the fake saw 4 change batches" "$(stat .changes_ok)" 4
ge "interval 0.2 s: 4 submissions take at least 0.6 s" "$(echo "$t1 - $t0" | bc -l)" 0.6
clean_requests size
stop_fake

##### a wildcard name round-trips (\052 in listings) ################################################

plan "$T/wild.plan.json" create="$(list "$(ep '*.wild.example.com' A 300 192.0.2.77)")"
start_fake wild
apply wild "$T/wild.plan.json" --aws-zone-id ZEXAMPLE
eq "wildcard: created" "$RC $(counts wild)" "0 1 1 0 0 0"
run records --provider aws --aws-zone-id ZEXAMPLE >"$T/wild.records" 2>"$T/wild.records.err"
check "wildcard: listed back as *.wild.example.com." grep -q '^\*\.wild\.example\.com\.' "$T/wild.records"
apply wild2 "$T/wild.plan.json" --aws-zone-id ZEXAMPLE
eq "wildcard: applied again, found in effect by the read-back" "$RC $(counts wild2)" "0 1 0 1 0 0"
plan "$T/wild-del.plan.json" delete="$(list "$(ep '*.wild.example.com' A 300 192.0.2.77)")"
apply wild3 "$T/wild-del.plan.json" --aws-zone-id ZEXAMPLE
eq "wildcard: deleted (exact match)" "$RC $(counts wild3)" "0 1 1 0 0 0"
clean_requests wild
stop_fake

##### alias records (AliasTarget) ##################################################################
# Created with the hosted zone of their target's service (ELB by region, NLB, CloudFront) or the account's own
# zone, listed back with their providerSpecific, updated and deleted by exact match (AliasTarget repeated), found
# in effect by the read-back; a target in no zone known is dropped invalid, unsent, and the rest applies.

start_fake alias --seed "$T/small.records"
plan "$T/alias.plan.json" create="$(list "$(alias_ep lb.example.com A my-lb-1.us-east-1.elb.amazonaws.com true)" \
	"$(alias_ep lb.example.com AAAA dualstack.my-lb-1.us-east-1.elb.amazonaws.com false)" \
	"$(alias_ep nlb.example.com A net-1.elb.us-east-1.amazonaws.com)" \
	"$(alias_ep cdn.example.com A d111111abcdef8.cloudfront.net false)")"
apply alias "$T/alias.plan.json" --aws-zone-id ZEXAMPLE
eq "alias: exit 0, 4 applied" "$RC $(counts alias)" "0 4 4 0 0 0"
zone >"$T/alias.zone"
eq "alias: the fake holds each AliasTarget with its service's hosted zone" "$(grep ' alias ' "$T/alias.zone")" \
"cdn.example.com. alias A Z2FDTNDATAQYW2 d111111abcdef8.cloudfront.net. false
lb.example.com. alias A Z35SXDOTRQ7X7K my-lb-1.us-east-1.elb.amazonaws.com. true
lb.example.com. alias AAAA Z35SXDOTRQ7X7K dualstack.my-lb-1.us-east-1.elb.amazonaws.com. false
nlb.example.com. alias A Z26RNL4JYFTOTI net-1.elb.us-east-1.amazonaws.com. true"
clean_requests alias

run records --provider aws --aws-zone-id ZEXAMPLE --output json >"$T/alias.records.json" 2>"$T/alias.records.err"
eq "alias records: exit 0" "$?" 0
endpoint() { jq -c --arg n "$1" --arg t "$2" '.[] | select(.dnsName == $n and .recordType == $t)' "$T/alias.records.json"; }
eq "alias records: the A alias listed with its providerSpecific" "$(endpoint lb.example.com A)" \
	'{"dnsName":"lb.example.com","targets":["my-lb-1.us-east-1.elb.amazonaws.com"],"recordType":"A","recordTTL":300,"providerSpecific":[{"name":"alias","value":"true"},{"name":"aws/evaluate-target-health","value":"true"}]}'
eq "alias records: the AAAA alias, target health not evaluated" \
	"$(endpoint lb.example.com AAAA | jq -c '[.targets, .providerSpecific[1].value]')" \
	'[["dualstack.my-lb-1.us-east-1.elb.amazonaws.com"],"false"]'
run records --provider aws --aws-zone-id ZEXAMPLE >"$T/alias.records.txt" 2>&1
check "alias records: text output shows the alias (as a comment)" grep -q 'nlb\.example\.com\..*net-1\.elb\.us-east-1\.amazonaws\.com' "$T/alias.records.txt"

apply alias-again "$T/alias.plan.json" --aws-zone-id ZEXAMPLE
eq "alias again: exit 0, 4 already applied (the read-back compares aliases)" "$RC $(counts alias-again)" "0 4 0 4 0 0"

# Updates from the listed endpoints: a new target, and evaluate-target-health false -> true.
lb_a=$(endpoint lb.example.com A)
lb_aaaa=$(endpoint lb.example.com AAAA)
plan "$T/alias-upd.plan.json" updateOld="$(list "$lb_a" "$lb_aaaa")" \
	updateNew="$(list "$(echo "$lb_a" | jq -c '.targets = ["my-lb-2.eu-west-1.elb.amazonaws.com"]')" \
		"$(echo "$lb_aaaa" | jq -c '.providerSpecific[1].value = "true"')")"
apply alias-upd "$T/alias-upd.plan.json" --aws-zone-id ZEXAMPLE
eq "alias update: exit 0, 2 applied (DELETE with the AliasTarget repeated, then CREATE)" "$RC $(counts alias-upd)" "0 2 2 0 0 0"
zone >"$T/alias-upd.zone"
check "alias update: new target, its region's zone" grep -Fxq 'lb.example.com. alias A Z32O12XQLNTSW2 my-lb-2.eu-west-1.elb.amazonaws.com. true' "$T/alias-upd.zone"
check "alias update: target health now evaluated" grep -Fxq 'lb.example.com. alias AAAA Z35SXDOTRQ7X7K dualstack.my-lb-1.us-east-1.elb.amazonaws.com. true' "$T/alias-upd.zone"
apply alias-upd-stale "$T/alias-upd.plan.json" --aws-zone-id ZEXAMPLE
eq "alias update again: already applied" "$RC $(counts alias-upd-stale)" "0 2 0 2 0 0"

plan "$T/alias-del.plan.json" delete="$(list "$(endpoint cdn.example.com A)")"
apply alias-del "$T/alias-del.plan.json" --aws-zone-id ZEXAMPLE
eq "alias delete: exit 0, applied" "$RC $(counts alias-del)" "0 1 1 0 0 0"
eq "alias delete: gone from the fake" "$(zone | grep -c '^cdn\.example\.com\. ')" 0
plan "$T/alias-del2.plan.json" delete="$(list "$(alias_ep nlb.example.com A net-1.elb.us-east-1.amazonaws.com false)")"
apply alias-del2 "$T/alias-del2.plan.json" --aws-zone-id ZEXAMPLE
eq "alias delete with another evaluate-target-health: dropped, differs" "$RC $(counts alias-del2) $(jq -r .cause "$T/alias-del2.drops")" \
	"3 1 0 0 1 0 differs"
check "alias delete with another evaluate-target-health: Route53's message" \
	grep -q "\[name='nlb.example.com.', type='A'\] but the values provided do not match" "$T/alias-del2.drops"
clean_requests alias-upd

# Refusals: over a plain A (exists), beside a CNAME, a target in no zone (invalid, never sent), a target
# record the account's zone lacks (Route53: not found); an alias to a record of the zone applies.
submitted=$(stat .changes)
plan "$T/alias-bad.plan.json" create="$(list "$(alias_ep www.example.com A my-lb-1.us-east-1.elb.amazonaws.com true)" \
	"$(alias_ep alias.example.com A my-lb-1.us-east-1.elb.amazonaws.com true)" \
	"$(alias_ep nowhere.example.com A x.example.net true)" \
	"$(alias_ep ghost.example.com A missing.example.com false)" \
	"$(alias_ep apex-like.example.com A www.example.com false)" \
	"$(ep plain.example.com A 300 192.0.2.55)")"
apply alias-bad "$T/alias-bad.plan.json" --aws-zone-id ZEXAMPLE
eq "alias refusals: exit 3, 2 applied, 4 dropped" "$RC $(counts alias-bad)" "3 6 2 0 4 0"
eq "alias over a plain A: dropped, cause exists" \
	"$(jq -r 'select(.change.create[0].dnsName == "www.example.com") | "\(.reason) \(.cause)"' "$T/alias-bad.drops")" "conflict exists"
eq "alias beside a CNAME: dropped, cause cname" \
	"$(jq -r 'select(.change.create[0].dnsName == "alias.example.com") | "\(.reason) \(.cause)"' "$T/alias-bad.drops")" "conflict cname"
eq "alias to a target in no zone: dropped invalid" "$(drop alias-bad nowhere.example.com)" "dropped invalid 0 "
eq "alias to a target in no zone: the message names record and target" \
	"$(jq -r 'select(.change.create[0].dnsName == "nowhere.example.com") | .message' "$T/alias-bad.drops")" \
	"alias target x.example.net. of nowhere.example.com. A lies in no AWS service zone dnsbatch knows nor in a hosted zone of this account"
eq "alias to a missing record of the zone: dropped conflict" "$(drop alias-bad ghost.example.com)" "dropped conflict 400 InvalidChangeBatch"
check "alias to a missing record of the zone: Route53's message" \
	grep -q "Tried to create an alias that targets missing.example.com., type A in zone ZEXAMPLE, but that target was not found" "$T/alias-bad.drops"
zone >"$T/alias-bad.zone"
check "alias to a record of the account's zone: applied with the zone's id" \
	grep -Fxq 'apex-like.example.com. alias A ZEXAMPLE www.example.com. false' "$T/alias-bad.zone"
check "alias refusals: the plain A beside them applied" grep -Fxq 'plain.example.com. 300 A 192.0.2.55' "$T/alias-bad.zone"
check "alias refusals: www keeps its A" grep -Fxq 'www.example.com. 300 A 192.0.2.1' "$T/alias-bad.zone"
le "alias refusals: at most 3 change batches reached the fake" "$(($(stat .changes) - submitted))" 3
clean_requests alias-bad
submitted=$(stat .changes)
plan "$T/alias-nowhere.plan.json" create="$(list "$(alias_ep nowhere.example.com AAAA x.example.net true)")"
apply alias-nowhere "$T/alias-nowhere.plan.json" --aws-zone-id ZEXAMPLE
eq "alias in no zone alone: exit 3, dropped invalid" "$RC $(counts alias-nowhere) $(drop alias-nowhere nowhere.example.com)" 	"3 1 0 0 1 0 dropped invalid 0 "
eq "alias in no zone alone: nothing sent" "$(($(stat .changes) - submitted))" 0
secrets_absent alias-bad
# --no-aws-evaluate-target-health: an alias that does not say evaluates no target health; one that says keeps it.
plan "$T/alias-nohealth.plan.json" create="$(list "$(alias_ep quiet.example.com A my-lb-1.us-east-1.elb.amazonaws.com)" \
	"$(alias_ep loud.example.com A my-lb-1.us-east-1.elb.amazonaws.com true)")"
apply alias-nohealth "$T/alias-nohealth.plan.json" --aws-zone-id ZEXAMPLE --no-aws-evaluate-target-health
eq "--no-aws-evaluate-target-health: exit 0, 2 applied" "$RC $(counts alias-nohealth)" "0 2 2 0 0 0"
eq "--no-aws-evaluate-target-health: the alias that did not say evaluates none, the other does" \
	"$(zone | grep -E '^(quiet|loud)\.' | awk '{print $1, $NF}' | paste -sd' ')" "loud.example.com. true quiet.example.com. false"
apply alias-nohealth2 "$T/alias-nohealth.plan.json" --aws-zone-id ZEXAMPLE --no-aws-evaluate-target-health
eq "--no-aws-evaluate-target-health: again, both already applied" "$RC $(counts alias-nohealth2)" "0 2 0 2 0 0"
stop_fake

##### --aws-wait-insync: GetChange polled until the change is INSYNC #################################

creates "$T/sync.plan.json" 3 sync example.com 10.0
start_fake sync --insync-after 1
t0=$(date +%s.%N)
apply sync "$T/sync.plan.json" --aws-zone-id ZEXAMPLE --aws-wait-insync
t1=$(date +%s.%N)
eq "wait-insync: exit 0, 3 applied" "$RC $(counts sync)" "0 3 3 0 0 0"
eq "wait-insync: GetChange polled until INSYNC (PENDING once, then INSYNC)" \
	"$(stat '"\(.get_change) \(.get_change_pending)"')" "2 1"
ge "wait-insync: the run waited for both polls (1 s, then 2 s more)" "$(echo "$t1 - $t0" | bc -l)" 3
eq "wait-insync: no warning" "$(grep -c 'not INSYNC' "$T/sync.err")" 0
creates "$T/nosync.plan.json" 3 nosync example.com 10.0
apply nosync "$T/nosync.plan.json" --aws-zone-id ZEXAMPLE
eq "without --aws-wait-insync: applied, no GetChange sent" "$RC $(counts nosync) $(stat .get_change)" "0 3 3 0 0 0 2"
clean_requests sync
stop_fake

start_fake never --insync-after -1
apply never "$T/sync.plan.json" --aws-zone-id ZEXAMPLE --aws-wait-insync --timeout 2.5
eq "never INSYNC, --timeout 2.5: exit 0, still applied" "$RC $(counts never)" "0 3 3 0 0 0"
eq "never INSYNC: one poll (the next would pass the deadline)" "$(stat '"\(.get_change) \(.get_change_pending)"')" "1 1"
eq "never INSYNC: one warning, naming the change and the seconds waited" \
	"$(grep -cE 'warn aws: change C000000000001 of example\.com\. not INSYNC after [0-9]+\.[0-9] s waited' "$T/never.err")" 1
clean_requests never
secrets_absent never
stop_fake

##### credential sources ############################################################################

plan "$T/one.plan.json" create="$(list "$(ep one.example.com A 300 192.0.2.1)")"
# source NAME: one creation with the current CREDS; checks exit, outcome and secrets
source_ok() {
	apply "$1" "$T/one.plan.json" --aws-zone-id ZEXAMPLE "${@:2}"
	eq "$1: exit 0, applied" "$RC $(counts "$1")" "0 1 1 0 0 0"
	clean_requests "$1"
	secrets_absent "$1"
}

start_fake file
CREDS=(AWS_SHARED_CREDENTIALS_FILE=$T/credentials)
source_ok file-profile --aws-profile dnsbatch
stop_fake
start_fake file
CREDS=(AWS_SHARED_CREDENTIALS_FILE=$T/credentials AWS_PROFILE=dnsbatch)
source_ok file-env-profile
stop_fake
start_fake file
mkdir -p "$T/home/.aws" && cp "$T/credentials" "$T/home/.aws/credentials"
CREDS=(AWS_PROFILE=dnsbatch)
source_ok file-home
rm -rf "$T/home/.aws"
CREDS=(AWS_SHARED_CREDENTIALS_FILE=$T/credentials)
apply file-default "$T/one.plan.json" --aws-zone-id ZEXAMPLE
eq "file: the default profile's key, unknown to the service, stops at open (exit 2)" "$RC" 2
check "file: the error says InvalidClientTokenId" grep -q InvalidClientTokenId "$T/file-default.err"
CREDS=(AWS_SHARED_CREDENTIALS_FILE=$T/credentials)
apply file-missing "$T/one.plan.json" --aws-zone-id ZEXAMPLE --aws-profile nosuch
eq "file: a profile the file lacks: exit 2" "$RC" 2
check "file: the error names the profile" grep -q 'no profile \[nosuch\]' "$T/file-missing.err"
secrets_absent file-missing
stop_fake

start_fake web
CREDS=(AWS_ROLE_ARN=arn:aws:iam::123456789012:role/dnsbatch AWS_WEB_IDENTITY_TOKEN_FILE=$T/web-token AWS_ENDPOINT_URL_STS=$URL)
source_ok web-identity
eq "web identity: one AssumeRoleWithWebIdentity" "$(stat .creds_issued)" 1
stop_fake

start_fake container
CREDS=(AWS_CONTAINER_CREDENTIALS_FULL_URI=$URL/_creds/container AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE=$T/container-token)
source_ok container
eq "container: one set of credentials" "$(stat .creds_issued)" 1
stop_fake
start_fake container-env
CREDS=(AWS_CONTAINER_CREDENTIALS_FULL_URI=$URL/_creds/container AWS_CONTAINER_AUTHORIZATION_TOKEN=$CONTAINER_TOKEN)
source_ok container-token-env
CREDS=(AWS_CONTAINER_CREDENTIALS_FULL_URI=$URL/_creds/container AWS_CONTAINER_AUTHORIZATION_TOKEN=wrong)
apply container-refused "$T/one.plan.json" --aws-zone-id ZEXAMPLE
eq "container: a refused authorization token stops at open (exit 2)" "$RC" 2
check "container: the error gives the status" grep -q 'container credentials: HTTP 401' "$T/container-refused.err"
secrets_absent container-refused
stop_fake
CREDS=(AWS_EC2_METADATA_DISABLED=true)
apply none "$T/one.plan.json" --aws-zone-id ZEXAMPLE
eq "no credentials anywhere, IMDS disabled: exit 2" "$RC" 2
check "no credentials: the error lists what was tried" grep -q 'no AWS credentials: none in the environment' "$T/none.err"

start_fake imds
CREDS=(AWS_EC2_METADATA_SERVICE_ENDPOINT=$URL)
source_ok imds
eq "IMDSv2: one set of credentials" "$(stat .creds_issued)" 1
stop_fake

# Credentials that expire (the service says ExpiredToken): fetched anew once, the batch applied.
start_fake expired --fault expired
CREDS=(AWS_CONTAINER_CREDENTIALS_FULL_URI=$URL/_creds/container AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE=$T/container-token)
source_ok expired
eq "expired: refused once, new credentials fetched" "$(stat '"\(.expired_refused) \(.creds_issued)"')" "1 2"
stop_fake
# Temporary credentials within the refresh margin of their expiry are fetched before each request.
start_fake margin --temp-lifetime 120
CREDS=(AWS_CONTAINER_CREDENTIALS_FULL_URI=$URL/_creds/container AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE=$T/container-token)
source_ok margin
ge "refresh: credentials about to expire fetched anew" "$(stat .creds_issued)" 2
eq "refresh: none used after expiry" "$(stat .expired_refused)" 0
stop_fake
# Static keys the service calls expired: fatal, nothing retried forever.
start_fake static --fault expired
CREDS=(AWS_ACCESS_KEY_ID=$KEY_ID AWS_SECRET_ACCESS_KEY=$SECRET)
apply static "$T/one.plan.json" --aws-zone-id ZEXAMPLE
eq "static keys expired: exit 4, failed" "$RC $(counts static)" "4 1 0 0 0 1"
secrets_absent static
stop_fake

##### TLS and signing failures ######################################################################

start_fake tls
run records --provider aws --aws-zone-id ZEXAMPLE >/dev/null 2>"$T/tls.err"
eq "TLS: \$AWS_CA_BUNDLE is trusted" "$?" 0
env -i PATH="$PATH" HOME="$T/home" AWS_ENDPOINT_URL_ROUTE_53="$URL" AWS_CA_BUNDLE="$T/other-ca.pem" \
	"${CREDS[@]}" "$DNSBATCH" records --provider aws --aws-zone-id ZEXAMPLE >/dev/null 2>"$T/tls2.err"
eq "TLS: a server the CA bundle does not vouch for: exit 2" "$?" 2
env -i PATH="$PATH" HOME="$T/home" AWS_ENDPOINT_URL_ROUTE_53="$URL" AWS_CA_BUNDLE="$T/ca.pem" \
	AWS_ACCESS_KEY_ID=$KEY_ID AWS_SECRET_ACCESS_KEY=wrong-secret "$DNSBATCH" records --provider aws \
	--aws-zone-id ZEXAMPLE >/dev/null 2>"$T/badsig.err"
eq "a wrong secret: exit 2" "$?" 2
check "a wrong secret: botocore's signature differs (SignatureDoesNotMatch)" grep -q SignatureDoesNotMatch "$T/badsig.err"
stop_fake

echo "# $failures failed"
[ "$failures" -eq 0 ]
