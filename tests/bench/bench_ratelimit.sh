#!/usr/bin/env bash
#
# bench_ratelimit.sh - N dnsbatch instances writing to one AWS account at once
# (tests/fakes/fake_route53.py with an account-wide bucket of 5 requests/s,
# burst 5), each 200 creations in batches of 50, with and without one rate
# budget kept in a real redis-server on loopback. Prints a table: throttled
# requests, wall time, the account's capacity used. Nothing asserted.
set -u
export LC_ALL=C
cd "$(dirname "$0")/../.." || exit 1
DNSBATCH=${DNSBATCH:-$PWD/build/dnsbatch}
. tests/integration/checks.sh
. tests/integration/aws_fake.sh
. tests/integration/redis.sh

T=$(mktemp -d)
PIDS=()
cleanup() {
	[ -n "${REDIS_DIR:-}" ] && stop_redis
	for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null; done
	rm -rf "$T"
}
trap cleanup EXIT
tls_pki "$T" >/dev/null 2>&1 || { echo "bench_ratelimit: cannot make certificates"; exit 1; }
mkdir -p "$T/home"
start_redis "$T/redis" >/dev/null || { echo "bench_ratelimit: redis-server did not start"; exit 1; }

RATE=5 BURST=5 CHANGES=200
printf '%-9s %-7s %10s %9s %9s %9s %8s\n' instances budget requests throttled "throttled%" "wall s" "capacity"
for n in 1 4 8 16; do
	for mode in shared alone; do
		flags=()
		[ "$mode" = shared ] && flags=(--rate-budget "redis://127.0.0.1:$REDIS_PORT" --rate-budget-key "aws:bench-$n")
		start_fake "b$n$mode" --account-rate "$RATE" --account-burst "$BURST" >/dev/null 2>&1 || exit 1
		start=$(date +%s.%N)
		pids=()
		for i in $(seq 1 "$n"); do
			creates "$T/p$i.json" "$CHANGES" "n$n-$mode-$i-" example.com "10.$i"
			run apply --provider aws --plan "$T/p$i.json" --batch-size 50 --quiet "${flags[@]}" >/dev/null 2>&1 &
			pids+=($!)
		done
		for p in "${pids[@]}"; do wait "$p"; done
		wall=$(echo "$(date +%s.%N) - $start" | bc)
		stat "\"\(.api_requests) \(.throttled) \(.admitted / ($RATE * (.last_admitted - .first_admitted) + $BURST) * 100 | floor)\"" |
			{ read -r all thr cap; printf '%-9s %-7s %10s %9s %9.1f %9.1f %7s%%\n' "$n" "$mode" "$all" "$thr" \
				"$(echo "$thr * 100 / $all" | bc -l)" "$wall" "$cap"; }
		stop_fake
	done
done
