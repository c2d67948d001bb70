#!/usr/bin/env bash
#
# test_ratelimit_aws.sh - one rate budget for several dnsbatch instances
# writing to one AWS account: a real redis-server on a free loopback port
# (stopped by PID), tests/fakes/fake_route53.py with Route53's account-wide
# token bucket (--account-rate 5 --account-burst 5, answering Throttling when
# it is empty), and N `dnsbatch apply` processes at once, each with its own
# names. Behaviour, not timing (tests/bench/bench_ratelimit.sh measures):
#
#  1. 8 instances, 500 changes each in 10 batches, with --rate-budget at the
#     account's rate and burst: every change applied, the budget's margin in
#     force (4.85/s granted), throttled requests <= 1% of all.
#  2. One throttle lowers the shared rate for a short hold, not for 10 s: the
#     rate is back in force before the run's last batches.
#  3. Redis stopped in the middle of a run and started again: every change
#     applied, the fallback logged and counted, the shared budget resumed.
#  4. A throttle during zone discovery is waited out, not fatal.
#
# Prints "ok - NAME" or "not ok - NAME" per check; exits 1 if any failed.
. "$(dirname "$0")/checks.sh"
test_begin
. tests/integration/aws_fake.sh
. tests/integration/redis.sh

fake_begin botocore.auth python3-botocore openssl jq curl python3 redis-server redis-cli

RATE=5
BURST=5
ACCOUNT=(--account-rate "$RATE" --account-burst "$BURST")

# instances N LABEL CHANGES [dnsbatch flags]: N applies at once, each CHANGES creations in its own names,
# batches of 50; sets RCS (the exit codes), WALL (seconds), SPREAD (the slowest instance's time over the
# fastest's) and leaves $T/LABEL.i.{json,err,metrics}
instances() {
	local n=$1 label=$2 changes=$3 i start
	shift 3
	local pids=()
	start=$(date +%s.%N)
	for i in $(seq 1 "$n"); do
		creates "$T/$label.$i.plan" "$changes" "i$i-" example.com "10.$i"
		( run apply --provider aws --plan "$T/$label.$i.plan" --batch-size 50 --output json \
			--metrics-file "$T/$label.$i.metrics" "$@" >"$T/$label.$i.json" 2>"$T/$label.$i.err"
		  rc=$?; date +%s.%N >"$T/$label.$i.end"; exit $rc ) &
		pids+=($!)
	done
	RCS=""
	for i in "${!pids[@]}"; do wait "${pids[$i]}"; RCS="$RCS $?"; done
	WALL=$(echo "$(date +%s.%N) - $start" | bc)
	SPREAD=$(for i in $(seq 1 "$n"); do echo "$(cat "$T/$label.$i.end") - $start" | bc; done |
		sort -g | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%.2f", hi / lo }')
}
# figures: "throttled all capacity": of the fake, since it started
figures() {
	stat "\"\(.throttled) \(.api_requests) \(.admitted / ($RATE * (.last_admitted - .first_admitted) + $BURST) * 100 | floor)\""
}
applied_all() { # LABEL N: every instance applied its 500
	local i sum=0
	for i in $(seq 1 "$2"); do sum=$((sum + $(jq -r '.applied' "$T/$1.$i.json" 2>/dev/null || echo 0))); done
	echo "$sum"
}

REDIS_PASSWORD=dnsb-redis-hunter2
CREDS+=(DNSBATCH_REDIS_PASSWORD=$REDIS_PASSWORD)
start_redis "$T/redis" || { not_ok "redis-server started"; exit 1; }
BUDGET=(--rate-budget "redis://127.0.0.1:$REDIS_PORT" --rate-budget-key aws:123456789012 --rate-budget-rate "$RATE")

# ---- 1. eight instances, one budget at the account's rate and burst
start_fake shared "${ACCOUNT[@]}" || exit 1
instances 8 shared 500 "${BUDGET[@]}" --rate-budget-burst "$BURST"
eq "shared: 8 instances exit 0" "$RCS" " 0 0 0 0 0 0 0 0"
eq "shared: every change applied" "$(applied_all shared 8)" 4000
read -r thr all cap <<<"$(figures)"
echo "# shared budget, 8 instances: $thr of $all requests throttled, capacity used $cap%, wall ${WALL}s, slowest/fastest $SPREAD"
le "shared: throttled requests <= 1% of all ($thr of $all)" "$((thr * 100))" "$all"
check "shared: the metrics count the shared tokens" grep -q '^dnsbatch_rate_budget_tokens_total{bucket="shared"} [1-9]' "$T/shared.1.metrics"
check "shared: the budget grants the account's rate less its margin (4.85/s)" grep -q '^dnsbatch_rate_budget_rate 4.85$' "$T/shared.1.metrics"
clean_requests shared
stop_fake

# ---- 2. one throttle: a short hold, not 10 s
# The first batch meets Throttling; the five that follow leave a second apart (--aws-batch-change-interval).
start_fake hold --fault throttle "${ACCOUNT[@]}" || exit 1
instances 1 hold 250 "${BUDGET[@]}" --rate-budget-key aws:hold
eq "hold: exit 0, every change applied" "$RCS $(applied_all hold 1)" " 0 250"
check "hold: the throttle counted" grep -q '^dnsbatch_rate_budget_throttles_total 1$' "$T/hold.1.metrics"
check "hold: the rate back in force by the last batch (lowered for 2 s, not 10)" \
	grep -q '^dnsbatch_rate_budget_rate 4.85$' "$T/hold.1.metrics"
stop_fake

# ---- 3. Redis away in the middle of a run, then back
start_fake away "${ACCOUNT[@]}" || exit 1
( sleep 3; stop_redis; sleep 3; start_redis_again ) &
PIDS+=($!)
instances 4 away 500 "${BUDGET[@]}"
wait "${PIDS[-1]}"
eq "away: 4 instances exit 0" "$RCS" " 0 0 0 0"
eq "away: every change applied" "$(applied_all away 4)" 2000
check "away: the fallback is logged" grep -q "the shared bucket is away" "$T/away.1.err"
check "away: the return to the shared bucket is logged" grep -q "the shared bucket answers again" "$T/away.1.err"
check "away: the metrics count the fallback" grep -q '^dnsbatch_rate_budget_fallbacks_total 1$' "$T/away.1.metrics"
check "away: the metrics show the shared budget in use at the end" grep -q '^dnsbatch_rate_budget_shared 1$' "$T/away.1.metrics"
stop_fake

# ---- 4. zone discovery throttled: waited out
start_fake setup --account-rate 1 --account-burst 1 || exit 1
instances 3 setup 50
eq "setup: 3 instances, throttled in zone discovery, exit 0" "$RCS" " 0 0 0"
ge "setup: the fake throttled some of them" "$(stat .throttled)" 1
stop_fake

check "no Redis password in any log, report or metrics file" test -z "$(grep -l hunter2 "$T"/*.err "$T"/*.json "$T"/*.metrics)"

[ "$failures" -eq 0 ]
