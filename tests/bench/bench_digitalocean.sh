#!/usr/bin/env bash
#
# bench_digitalocean.sh - the digitalocean provider against tests/fakes/fake_digitalocean.py over HTTPS (every request
# checked against DigitalOcean's OpenAPI description, the token's limits enforced with 429s): 1,000 A-record
# creations (--batch-size 1000), k of them conflicting (the name holds an A record with another address), for k in 0
# 1 10 50. Per run: submissions (dnsbatch's count), the fake's requests (record reads, POSTs, all), 429s, and wall
# seconds, beside what external-dns's removed in-tree provider spent on the same plan (one listing of the domain in
# pages of 50, then one POST per record in plan order, stopping at the first refusal: the records before it created,
# the rest not, on every loop).
#
# DigitalOcean's limits are 250 requests a minute and 5,000 an hour per token. The bench runs them SCALE (10) times
# faster: the fake's minute lasts 60/SCALE s and its hour 3600/SCALE s; "at 250/min" is the wall time measured x
# SCALE (without --rate-budget, which needs Redis: the ratelimit headers and the 429s pace the run). Then one run meets the hourly limit: an hour of HOURLY (400)
# requests, the plan needing more: the run pauses at the limit and resumes when requests come back, and must fail no
# change.
#
# Env: DNSBATCH (default build/dnsbatch), CHANGES (1000), KS ("0 1 10 50"), SCALE (10), HOURLY (400). Prints figures;
# exits non-zero only if a run is wrong (exit code, counts, a request off the description).
set -u
export LC_ALL=C
cd "$(dirname "$0")/../.." || exit 1
. tests/integration/checks.sh # tls_pki, fake_started

DNSBATCH=${DNSBATCH:-build/dnsbatch}
CHANGES=${CHANGES:-1000}
KS=${KS:-0 1 10 50}
SCALE=${SCALE:-10}
HOURLY=${HOURLY:-400}
broken=0
for tool in openssl jq curl python3 bc; do
	command -v "$tool" >/dev/null 2>&1 || { echo "bench_digitalocean: $tool is not installed"; exit 1; }
done
T=$(mktemp -d)
PIDS=()
cleanup() {
	for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null; done
	rm -rf "$T"
}
trap cleanup EXIT
. tests/integration/digitalocean_fake.sh # after T: start_do, stat
tls_pki >"$T/pki.log" 2>&1 || { echo "bench_digitalocean: openssl failed: $(tail -2 "$T/pki.log")"; exit 1; }

jq -n --argjson n "$CHANGES" '{create: [range($n) | {dnsName: "host\(.).example.com", recordType: "A", recordTTL: 300,
	labels: {}, targets: ["10.\(. / 65536 | floor % 256).\(. / 256 | floor % 256).\(. % 256)"]}],
	updateOld: [], updateNew: [], delete: []}' >"$T/plan.json"
now() { date +%s.%N; }
# seed K: K of the plan's names hold another address
seed() {
	local k=$1 step i
	[ "$k" -gt 0 ] || return 0
	step=$((CHANGES / k))
	for ((i = step / 2; i < CHANGES; i += step)); do
		jq -cn --arg n "host$i" '{type: "A", name: $n, data: "192.0.2.1", ttl: 300}'
	done | jq -sc '{records: .}' | curl -s -o /dev/null --cacert "$T/ca.pem" -H 'Content-Type: application/json' \
		--data-binary @- "$URL/_fake/load/example.com"
}
# run_one K LABEL [fake flags...] -- [dnsbatch flags...]: one apply; prints its line
run_one() {
	local k=$1 label=$2 fake=() flags=() rc wall got want ok first scaled
	shift 2
	while [ $# -gt 0 ] && [ "$1" != -- ]; do fake+=("$1"); shift; done
	[ $# -gt 0 ] && shift
	flags=("$@")
	start_do bench "${fake[@]}" || exit 1
	seed "$k"
	t0=$(now)
	run apply --plan "$T/plan.json" --provider digitalocean --digitalocean-api-endpoint "$URL" \
		--digitalocean-ca-file "$T/ca.pem" --digitalocean-token-file "$T/do.token" --batch-size 1000 \
		"${flags[@]}" --output json >"$T/out.json" 2>"$T/err"
	rc=$?
	wall=$(echo "$(now) - $t0" | bc)
	got=$(jq -r '"\(.applied) \(.dropped) \(.failed)"' "$T/out.json")
	want="$((CHANGES - k)) $k 0"
	ok=ok
	[ "$got" = "$want" ] && [ "$rc" = "$([ "$k" -gt 0 ] && echo 3 || echo 0)" ] || { ok="WRONG rc=$rc got $got"; broken=1; }
	[ "$(stat .bad_schema)" = 0 ] || { ok="$ok; requests off the description"; broken=1; }
	first=$([ "$k" -gt 0 ] && echo $((CHANGES / k / 2)) || echo "$CHANGES")
	[ "$label" = limits ] && scaled=$(echo "$wall * $SCALE" | bc) || scaled=-
	printf '%-6s %-4s %8.1f %9s %5s %6s %6s %6s %6s  %-26s %s\n' "$label" "$k" "$wall" \
		"${scaled%.*}" "$(jq -r .submissions "$T/out.json")" "$(stat .reads)" "$(stat .creates)" \
		"$(stat .requests)" "$(stat '.burst_limited + .hourly_limited')" \
		"$((CHANGES / 50 + 1 + first + (k > 0 ? 1 : 0))) req, $first created" "$ok"
	kill "$FAKE_PID"
	wait "$FAKE_PID" 2>/dev/null
}

echo "# $CHANGES A-record creations; DigitalOcean's limits $SCALE x faster; no --rate-budget (the ratelimit headers"
echo "# and the 429s pace the run: the defaults of a single instance)"
printf '%-6s %-4s %8s %9s %5s %6s %6s %6s %6s  %-26s %s\n' run k wall "x$SCALE s" subm reads posts api 429s \
	"removed provider" outcome
for k in $KS; do
	run_one "$k" limits --minute-seconds "$(echo "scale=2; 60 / $SCALE" | bc)" \
		--hour-seconds "$(echo "scale=2; 3600 / $SCALE" | bc)" --
done
# the hourly limit: fewer requests in the "hour" than the plan needs; the budget raised past it, so the fake's
# 429s and ratelimit-reset pace the run
run_one 0 hourly --rate-hour "$HOURLY" --hour-seconds 20 --minute-seconds 1 -- --rate-budget-rate 1000 \
	--rate-budget-burst 1000 --max-rate-limit-waits 1000
exit $broken
