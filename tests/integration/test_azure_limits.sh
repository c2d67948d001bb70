#!/usr/bin/env bash
#
# test_azure_limits.sh - the azure provider's limits through the dnsbatch binary against
# tests/fakes/fake_azure.py over HTTPS (each scenario its own fake on a free loopback port, stopped
# by PID):
#
#  1. the subscription's quota: the fake's x-ms-ratelimit-remaining-subscription-writes falls and
#     refills; dnsbatch paces itself before the quota is spent (no 429), and a 429's Retry-After
#     is waited out and the refused writes sent again, nothing undone; one past the deadline
#     ends the apply there at once;
#  2. tokens that expire: short-lived tokens renewed before they expire over a run that spans
#     several of them (no 401), and tokens revoked early (401 ExpiredAuthenticationToken)
#     renewed and the refused requests sent again, never a fatal 401;
#  3. the rate budget (--rate-budget) holds the writes side by side to its rate: its local bucket
#     (the Redis URL answers nothing), then one bucket in a real redis-server (free loopback port,
#     stopped by PID) shared by three instances writing at once;
#  4. a batch's record sets read by GETs by name when they are fewer than the listing's pages,
#     by the listing otherwise: the requests counted.
#
# Prints "ok - NAME" or "not ok - NAME" per check; exits 1 if any failed.
# Env: DNSBATCH (default build/dnsbatch), DNSB_KEEP_TMP=1 to keep the temp dir.
. "$(dirname "$0")/checks.sh"
test_begin

. tests/integration/azure_fake.sh
. tests/integration/redis.sh

fake_begin jsonschema python3-jsonschema openssl jq curl python3 bc redis-server redis-cli

# apply NAME PLAN [flags...]: sets RC and TOOK (seconds); leaves $T/NAME.json, .err
apply() {
	local name=$1 planfile=$2 started
	shift 2
	started=$(date +%s.%N)
	run apply --plan "$planfile" "${AZ_FLAGS[@]}" --backoff-base 0.01 --backoff-cap 0.05 "$@" \
		--output json >"$T/$name.json" 2>"$T/$name.err"
	RC=$?
	TOOK=$(echo "$(date +%s.%N) - $started" | bc)
}

##### 1. the subscription's quota ##################################################################
# 30 writes an "hour" of 3 s: the bucket refills 10 a second. 80 creations at 4 in flight would
# spend it in a fraction of a second; paced, they take about (80 - 30 + 12) / 10 s.

creates "$T/quota.plan.json" 80 q example.com 10.2
start_fake quota --hourly-writes 30 --hourly-reads 1000 --hour-seconds 3 --page-size 1000
apply quota "$T/quota.plan.json" --azure-max-in-flight 4
eq "quota: 80 creations applied" "$RC $(counts quota)" "0 80 80 0 0 0"
eq "quota: paced before the quota was spent: no 429" "$(stat .quota_429)" 0
eq "quota: 80 writes, none sent twice, nothing undone" "$(stat .writes)" 80
ge "quota: the pace spread the writes (>= 4 s)" "$TOOK" 4
clean_requests quota
stop_fake

# A quota far below the batch and a client that knows nothing of it yet: 429 with Retry-After,
# waited out, the refused writes sent again within the submission.
creates "$T/spent.plan.json" 6 s example.com 10.3
start_fake spent --hourly-writes 3 --hour-seconds 6 --page-size 1000
apply spent "$T/spent.plan.json" --azure-max-in-flight 8
eq "quota spent: 6 creations applied" "$RC $(counts spent)" "0 6 6 0 0 0"
ge "quota spent: the fake refused some with 429" "$(stat .quota_429)" 1
eq "quota spent: each write landed once, nothing undone" "$(stat .writes)" 6
ge "quota spent: the Retry-After waited out (>= 2 s)" "$TOOK" 2
eq "quota spent: one submission" "$(rep spent .submissions)" 1
stop_fake

# A 429 asking 30 s with 4 s left (--backoff-cap 10: the engine would wait up to 100 s): the write
# is not sent again within the deadline, and the answer carries the quota's hold as its Retry-After:
# the engine ends at its deadline at once, not after quick resubmissions (each reading again and
# not writing).
creates "$T/held.plan.json" 1 h example.com 10.7
start_fake held --fault 429 --fault-retry-after 30 --page-size 1000
apply held "$T/held.plan.json" --timeout 4 --backoff-cap 10
eq "429 hold past the deadline: failed, not applied or dropped (exit 4)" "$RC $(counts held)" "4 1 0 0 0 1"
eq "429 hold past the deadline: one submission, no resubmission" "$(rep held .submissions) $(rep held .retries)" "1 0"
eq "429 hold past the deadline: one write, one read of the zone" "$(stat .writes) $(stat .lists)" "1 1"
check "429 hold past the deadline: the refusal names the hold" grep -Eq "held (29|30)\.[0-9] s by the subscription's quota" \
	"$T/held.err"
eq "429 hold past the deadline: ended at once: the engine waited nothing" "$(rep held .backoff_seconds)" 0
stop_fake

##### 2. tokens that expire ##########################################################################

creates "$T/tok.plan.json" 100 t example.com 10.4
start_fake tok --token-lifetime 2 --latency 40 --page-size 1000
apply tok "$T/tok.plan.json" --azure-max-in-flight 1
eq "short-lived tokens: applied" "$RC $(counts tok)" "0 100 100 0 0 0"
ge "short-lived tokens: the run spanned several (>= 4 s)" "$TOOK" 4
ge "short-lived tokens: renewed (>= 3 tokens)" "$(stat .tokens)" 3
eq "short-lived tokens: renewed before they expired (no 401)" "$(stat '"\(.expired) \(.bad_auth)"')" "0 0"
stop_fake

start_fake revoked --token-lifetime 3600 --token-valid 1.5 --latency 40 --page-size 1000
apply revoked "$T/tok.plan.json" --azure-max-in-flight 2
eq "tokens revoked early: applied, no fatal 401" "$RC $(counts revoked)" "0 100 100 0 0 0"
ge "tokens revoked early: the fake refused expired tokens" "$(stat .expired)" 1
ge "tokens revoked early: renewed after the 401s" "$(stat .tokens)" 2
eq "tokens revoked early: 100 writes landed, none twice" "$(stat '.status["201"]')" 100
check "tokens revoked early: no token in what dnsbatch printed" \
	test "$(grep -cE 'tok-[0-9a-f]{8}' "$T/revoked.err" "$T/revoked.json" | awk -F: '{ s += $2 } END { print s }')" = 0
stop_fake

##### 3. the rate budget, its local bucket ##########################################################
# The Redis URL points at a port nobody listens on: the budget falls back to its local bucket at
# rate / instances = 20 requests a second, burst 1.

creates "$T/budget.plan.json" 60 b example.com 10.5
start_fake budget --page-size 1000
apply budget "$T/budget.plan.json" --azure-max-in-flight 8 --rate-budget redis://127.0.0.1:9 \
	--rate-budget-rate 20 --rate-budget-burst 1 --rate-budget-instances 1
eq "budget: 60 creations applied" "$RC $(counts budget)" "0 60 60 0 0 0"
le "budget: at most 20 requests in any second (+1 of the burst)" "$(stat .max_per_second)" 21
ge "budget: the 60 writes took >= 2.5 s at 20/s" "$TOOK" 2.5
stop_fake
start_fake nobudget --page-size 1000
apply nobudget "$T/budget.plan.json" --azure-max-in-flight 8
ge "without the budget: the same writes leave faster than 20 a second" "$(stat .max_per_second)" 25
stop_fake

# Three instances, 30 creations each, one subscription: one bucket of 20 a second in Redis.
if start_redis "$T/redis"; then
	start_fake shared --page-size 1000
	pids=()
	started=$(date +%s.%N)
	for i in 1 2 3; do
		creates "$T/shared.$i.plan.json" 30 "i$i-" example.com "10.1$i"
		( apply "shared.$i" "$T/shared.$i.plan.json" --azure-max-in-flight 8 \
			--rate-budget "redis://127.0.0.1:$REDIS_PORT" --rate-budget-key azure:sub-0001 \
			--rate-budget-rate 20 --rate-budget-burst 1
		  echo "$RC $(counts "shared.$i")" >"$T/shared.$i.rc" ) &
		pids+=($!)
	done
	wait "${pids[@]}"
	took=$(echo "$(date +%s.%N) - $started" | bc)
	eq "shared budget: the three instances applied their 30" "$(cat "$T"/shared.[123].rc | sort -u)" "0 30 30 0 0 0"
	le "shared budget: at most 20 requests in any second for the three together (+ the burst)" \
		"$(stat .max_per_second)" 22
	ge "shared budget: their 90 writes at 20 a second together took >= 4 s" "$took" 4
	stop_fake
	stop_redis
else
	not_ok "redis-server started"
fi

##### 4. GETs by name or the listing ################################################################
# 250 record sets and the SOA, 100 a page: the zone's listing takes 3 pages. A group of two record
# sets is read by 2 GETs; 30 creations by the listing.

for i in $(seq 1 250); do
	printf 'example.com h%d A {"TTL": 300, "ARecords": [{"ipv4Address": "192.0.2.%d"}]}\n' "$i" $((i % 250))
done >"$T/seed"
jq -n '{create: [{dnsName: "web.example.com", recordType: "A", recordTTL: 300, targets: ["192.0.2.200"],
	labels: {}}, {dnsName: "a-web.example.com", recordType: "TXT", recordTTL: 300,
	targets: ["heritage=external-dns,external-dns/owner=default"], labels: {ownedRecord: "web.example.com"}}],
	updateOld: [], updateNew: [], delete: []}' >"$T/pair.plan.json"
start_fake reads --seed "$T/seed" --page-size 100
apply pair "$T/pair.plan.json"
eq "2 record sets: applied" "$RC $(counts pair)" "0 2 2 0 0 0"
eq "2 record sets: read by GETs, the zone not listed" "$(stat .lists)" 0
ge "2 record sets: 2 GETs before writing" "$(stat .gets)" 2
le "2 record sets: and as many to verify, no more" "$(stat .gets)" 4
gets=$(stat .gets)
creates "$T/thirty.plan.json" 30 m example.com 10.6
apply thirty "$T/thirty.plan.json"
eq "30 record sets: applied" "$RC $(counts thirty)" "0 30 30 0 0 0"
eq "30 record sets: read by the listing, no GET" "$(stat .gets)" "$gets"
ge "30 record sets: the listing's 3 pages" "$(stat .lists)" 3
clean_requests reads
stop_fake

echo "# $failures failed"
[ "$failures" -eq 0 ]
