#!/usr/bin/env bash
#
# bench_ratelimit.sh - N dnsbatch instances writing to one AWS account at once
# against tests/fakes/fake_route53.py with Route53's account-wide bucket (5
# requests/s, burst 5, continuous refill; every API request takes a token;
# 400 Throttling when it is empty), each instance CHANGES creations in
# batches of 50, in three modes:
#
#   shared  one --rate-budget in a real redis-server on loopback, rate 5, burst 5
#   local   the same flags with Redis away: each instance takes its share
#           (--rate-budget-instances N)
#   alone   no budget: each instance paces itself, throttles retried
#
# Prints a table: requests, throttled (and %), the account's capacity used
# (admitted / (5 x the span of admissions + 5)), the slowest instance's share
# (the time the admitted requests take at the account's full rate, over that
# instance's time: 1 = its fair share of a fully used account), wall time.
# The goal (issue 31): shared <= 1% throttled, >= 90% capacity, every instance
# >= 0.5, never slower than alone. Nothing asserted.
#
# Env: SIZES ("8:500 4:200 16:200" by default: instances:changes), MODES.
set -u
export LC_ALL=C
cd "$(dirname "$0")/../.." || exit 1
DNSBATCH=${DNSBATCH:-$PWD/build/dnsbatch}
. tests/integration/checks.sh
. tests/integration/aws_fake.sh
. tests/integration/redis.sh

fake_scratch # $T (its CA and certificate), PIDS stopped at exit
start_redis "$T/redis" >/dev/null || { echo "bench_ratelimit: redis-server did not start"; exit 1; }
# A loopback port nothing listens on: Redis away.
AWAY=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')

RATE=5 BURST=5
printf '%-9s %-7s %8s %9s %10s %9s %9s %8s\n' instances budget requests throttled "throttled%" capacity slowest "wall s"
for size in ${SIZES:-8:500 4:200 16:200}; do
	n=${size%%:*} changes=${size##*:}
	for mode in ${MODES:-shared local alone}; do
		flags=()
		case $mode in
		shared) flags=(--rate-budget "redis://127.0.0.1:$REDIS_PORT" --rate-budget-key "aws:bench-$n-$changes") ;;
		local) flags=(--rate-budget "redis://127.0.0.1:$AWAY" --rate-budget-instances "$n") ;;
		esac
		[ "$mode" = alone ] || flags+=(--rate-budget-rate "$RATE" --rate-budget-burst "$BURST")
		start_fake "b$n$mode" --account-rate "$RATE" --account-burst "$BURST" >/dev/null 2>&1 || exit 1
		for i in $(seq 1 "$n"); do creates "$T/p$i.json" "$changes" "n$n-$mode-$i-" example.com "10.$i"; done
		start=$(date +%s.%N)
		pids=()
		for i in $(seq 1 "$n"); do
			( run apply --provider aws --plan "$T/p$i.json" --batch-size 50 --quiet "${flags[@]}" >/dev/null 2>&1
			  date +%s.%N >"$T/end.$i" ) &
			pids+=($!)
		done
		for p in "${pids[@]}"; do wait "$p"; done
		wall=$(echo "$(date +%s.%N) - $start" | bc)
		slowest=$(for i in $(seq 1 "$n"); do echo "$(cat "$T/end.$i") - $start" | bc; done | sort -g | tail -n1)
		stat "\"\(.api_requests) \(.throttled) \(.admitted) \(.admitted / ($RATE * (.last_admitted - .first_admitted) + $BURST) * 100 | floor)\"" |
			{ read -r all thr admitted cap
			  printf '%-9s %-7s %8s %9s %9.1f%% %8s%% %9.2f %8.1f\n' "$n" "$mode" "$all" "$thr" \
				"$(echo "$thr * 100 / $all" | bc -l)" "$cap" \
				"$(echo "($admitted - $BURST) / $RATE / $slowest" | bc -l)" "$wall"; }
		stop_fake
	done
done
# Figures only: the last stop_fake waited for a killed fake (143), which is no failure of the bench.
exit 0
