#!/usr/bin/env bash
#
# bench_google.sh - the google provider against tests/fakes/fake_clouddns
# over HTTPS, the fake adding 20 ms to every request: 1,000 A-record
# creations in one batch (--batch-size 1000, --google-batch-change-size 1000),
# k of them conflicting (the name exists beforehand with other data), for
# k in 0 1 10. Per k: submissions and reads (dnsbatch's counts), HTTP requests
# and TCP connections opened (the fake's counts), and whole-process wall
# seconds (median of RUNS runs, each on a fresh fake) against the floor
# submissions x 20 ms. Targets (issue 10): 1 connection per run; with the
# provider's culprit hints, submissions <= k + 2.
#
# Env: DNSBATCH (default build/dnsbatch), FAKE (default: beside DNSBATCH),
# RUNS (default 3), CHANGES (default 1000), LATENCY (seconds, default 0.02),
# KS (default "0 1 10"). Prints figures; exits non-zero only if a run is
# wrong (exit code or counts), not on a missed target.
set -u
export LC_ALL=C
cd "$(dirname "$0")/../.." || exit 1
. tests/integration/checks.sh # tls_pki, fake_started

DNSBATCH=${DNSBATCH:-build/dnsbatch}
FAKE=${FAKE:-$(dirname "$DNSBATCH")/fake_clouddns}
RUNS=${RUNS:-3}
CHANGES=${CHANGES:-1000}
LATENCY=${LATENCY:-0.02}
KS=${KS:-0 1 10}
broken=0

for tool in openssl jq curl bc; do
	command -v "$tool" >/dev/null 2>&1 || { echo "bench_google: $tool is not installed"; exit 1; }
done
[ -x "$FAKE" ] || { echo "bench_google: $FAKE is not built (make tests)"; exit 1; }

fake_scratch # $T (its CA and certificate), PIDS stopped at exit

{
	openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$T/sa.key" &&
	openssl pkey -in "$T/sa.key" -pubout -out "$T/sa.pub"
} >"$T/pki.log" 2>&1 || { echo "bench_google: openssl failed: $(tail -2 "$T/pki.log")"; exit 1; }
EMAIL=bench@test-project.iam.gserviceaccount.com

jq -n --argjson n "$CHANGES" '{create: [range($n) | {dnsName: "host\(.).bench.example", recordType: "A", recordTTL: 300,
	labels: {}, targets: ["10.\(. / 65536 | floor % 256).\(. / 256 | floor % 256).\(. % 256)"]}],
	updateOld: [], updateNew: [], delete: []}' >"$T/plan.json"

# seed K: the k conflicting names, spread over the batch, holding another address.
seed() {
	local k=$1 i step
	: >"$T/seed.records"
	[ "$k" -gt 0 ] || return 0
	step=$((CHANGES / k))
	for ((i = step / 2; i < CHANGES; i += step)); do
		echo "bench-zone host$i.bench.example. 300 A 192.0.2.1" >>"$T/seed.records"
	done
}

start_fake() {
	rm -f "$T/bench.port"
	"$FAKE" --port-file "$T/bench.port" --cert "$T/server.pem" --key "$T/server.key" --zone bench-zone=bench.example \
		--records "$T/seed.records" --pubkey "$T/sa.pub" --client-email "$EMAIL" --latency "$LATENCY" \
		2>"$T/bench.fake.err" &
	fake_started bench $! || exit 1
	jq -n --rawfile key "$T/sa.key" --arg email "$EMAIL" --arg uri "https://127.0.0.1:$PORT/token" \
		'{type: "service_account", client_email: $email, private_key: $key, token_uri: $uri}' >"$T/key.json"
}
stop_fake() { kill "$FAKE_PID" 2>/dev/null && wait "$FAKE_PID" 2>/dev/null; }
stats() { curl -s --cacert "$T/ca.pem" "https://127.0.0.1:$PORT/_fake/stats"; }

now() { date +%s.%N; }
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }

echo "# $CHANGES A-record creations, one batch of $CHANGES, fake latency ${LATENCY}s per request, median of $RUNS runs"
printf '%-4s %8s %6s %6s %9s %6s %8s %8s %8s  %s\n' k wall floor subm reads http conns "k+2" "conn=1" "outcome"
for k in $KS; do
	seed "$k"
	walls=()
	for ((r = 0; r < RUNS; r++)); do
		start_fake
		t0=$(now)
		"$DNSBATCH" apply --plan "$T/plan.json" --provider google --google-project test-project \
			--google-api-endpoint "https://127.0.0.1:$PORT/dns/v1/" --google-ca-file "$T/ca.pem" \
			--google-credentials "$T/key.json" --google-batch-change-interval 0 --google-batch-change-size 1000 \
			--batch-size 1000 --output json --quiet >"$T/out.json" 2>"$T/err"
		rc=$?
		t1=$(now)
		walls+=("$(echo "$t1 - $t0" | bc -l)")
		stats >"$T/stats.json"
		stop_fake
		want_rc=0
		[ "$k" -gt 0 ] && want_rc=3
		got=$(jq -r '"\(.applied) applied, \(.dropped) dropped, \(.failed) failed"' "$T/out.json" 2>/dev/null)
		if [ "$rc" != "$want_rc" ] || [ "$got" != "$((CHANGES - k)) applied, $k dropped, 0 failed" ]; then
			echo "# k=$k: exit $rc (expected $want_rc), $got: $(head -c 300 "$T/err")"
			broken=1
		fi
	done
	subm=$(jq -r .submissions "$T/out.json")
	reads=$(jq -r .reads "$T/out.json")
	http=$(jq -r .requests.any "$T/stats.json")
	conns=$(jq -r .connections "$T/stats.json")
	wall=$(median "${walls[@]}")
	floor=$(echo "$subm * $LATENCY" | bc -l)
	printf '%-4s %8.3f %6.3f %6s %9s %6s %8s %8s %8s  %s\n' "$k" "$wall" "$floor" "$subm" "$reads" "$http" "$conns" \
		"$([ "$subm" -le $((k + 2)) ] && echo met || echo MISSED)" "$([ "$conns" = 1 ] && echo met || echo MISSED)" "$got"
done
echo "# wall: whole process (TLS handshake, token, projects.get, reads included); floor: submissions x latency;"
echo "# http: every request the fake served (token, projects.get, changes.create, rrsets.list pages)"
exit "$broken"
