#!/usr/bin/env bash
#
# bench_aws.sh - the aws provider against tests/fakes/fake_route53.py over
# HTTPS (every request checked by botocore), the fake adding LATENCY to
# every API request: 1,000 A-record creations in one batch (--batch-size
# 1000, --aws-batch-change-size 1000), k of them conflicting (the name exists
# beforehand with other data), for k in 0 1 10 50. Per k: submissions and
# reads (dnsbatch's counts), API requests (the fake's) and wall seconds,
# beside what external-dns's aws provider spends on the same batch: the
# batch, then on failure every ownership group alone (1 + groups). Target
# (issue 12): submissions <= 3 for every k up to 50, from the culprits every
# InvalidChangeBatch message names. Then UPDATES (default 600) updates of
# one-record sets, 2 x UPDATES ResourceRecords: POSTs and limit refusals
# (target, issue 21: 2 POSTs, 0 refused).
#
# Env: DNSBATCH (default build/dnsbatch), CHANGES (default 1000), LATENCY
# (milliseconds, default 20), KS (default "0 1 10 50"), UPDATE_GUARD (the
# updates' threshold flags, default --force). Prints figures; exits
# non-zero only if a run is wrong (exit code, counts, a request botocore
# refused), not on a missed target.
set -u
export LC_ALL=C
cd "$(dirname "$0")/../.." || exit 1
. tests/integration/checks.sh # tls_pki, fake_started

DNSBATCH=${DNSBATCH:-build/dnsbatch}
FAKE=tests/fakes/fake_route53.py
CHANGES=${CHANGES:-1000}
LATENCY=${LATENCY:-20}
KS=${KS:-0 1 10 50}
broken=0

for tool in openssl jq curl bc python3; do
	command -v "$tool" >/dev/null 2>&1 || { echo "bench_aws: $tool is not installed"; exit 1; }
done
python3 -c 'import botocore.auth' 2>/dev/null || { echo "bench_aws: python3-botocore is not installed"; exit 1; }

fake_scratch # $T (its CA and certificate), PIDS stopped at exit

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
		echo "ZBENCH host$i.bench.example. 300 A 192.0.2.1" >>"$T/seed.records"
	done
}

start_fake() {
	rm -f "$T/bench.port"
	python3 "$FAKE" --port-file "$T/bench.port" --cert "$T/server.pem" --key "$T/server.key" --zone ZBENCH=bench.example \
		--seed "$T/seed.records" --creds AKIDBENCH:bench-secret --latency "$LATENCY" --page-size 300 \
		2>"$T/bench.fake.err" &
	fake_started bench $! || exit 1
}
stop_fake() { kill "$FAKE_PID" 2>/dev/null && wait "$FAKE_PID" 2>/dev/null; }
stats() { curl -s --cacert "$T/ca.pem" "https://127.0.0.1:$PORT/_fake/stats"; }
now() { date +%s.%N; }

echo "# $CHANGES A-record creations, one batch of $CHANGES, fake latency ${LATENCY} ms per API request"
printf '%-4s %8s %6s %6s %6s %14s %8s  %s\n' k wall subm reads api "extdns(1+grp)" "subm<=3" outcome
for k in $KS; do
	seed "$k"
	start_fake
	t0=$(now)
	env -i PATH="$PATH" HOME="$T" AWS_ACCESS_KEY_ID=AKIDBENCH AWS_SECRET_ACCESS_KEY=bench-secret \
		AWS_ENDPOINT_URL_ROUTE_53="https://127.0.0.1:$PORT" AWS_CA_BUNDLE="$T/ca.pem" \
		"$DNSBATCH" apply --plan "$T/plan.json" --provider aws --aws-zone-id ZBENCH --aws-batch-change-interval 0 \
		--aws-batch-change-size 1000 --batch-size 1000 --output json --quiet >"$T/out.json" 2>"$T/err"
	rc=$?
	t1=$(now)
	stats >"$T/stats.json"
	stop_fake
	want_rc=0
	[ "$k" -gt 0 ] && want_rc=3
	got=$(jq -r '"\(.applied) applied, \(.dropped) dropped, \(.failed) failed"' "$T/out.json" 2>/dev/null)
	if [ "$rc" != "$want_rc" ] || [ "$got" != "$((CHANGES - k)) applied, $k dropped, 0 failed" ] ||
		[ "$(jq -r '"\(.bad_signature) \(.bad_schema)"' "$T/stats.json")" != "0 0" ]; then
		echo "# k=$k: exit $rc (expected $want_rc), $got, fake: $(jq -c '{bad_signature, bad_schema}' "$T/stats.json"): $(head -c 300 "$T/err")"
		broken=1
	fi
	subm=$(jq -r .submissions "$T/out.json")
	reads=$(jq -r .reads "$T/out.json")
	api=$(jq -r .api_requests "$T/stats.json")
	# external-dns: one ChangeResourceRecordSets; when it fails, one per ownership group (here one change each).
	extdns=$([ "$k" -gt 0 ] && echo $((1 + CHANGES)) || echo 1)
	printf '%-4s %8.3f %6s %6s %6s %14s %8s  %s\n' "$k" "$(echo "$t1 - $t0" | bc -l)" "$subm" "$reads" "$api" "$extdns" \
		"$([ "$subm" -le 3 ] && echo met || echo MISSED)" "$got"
done
echo "# wall: whole process (TLS, signing, reads included); api: every signed request the fake served"
echo "# extdns: requests external-dns's aws provider sends for the same batch (the batch, then each group alone)"

# Route53's per-request limits (issue 21): UPDATES updates of one-record A sets are 2 x UPDATES ResourceRecord
# elements (a DELETE and a CREATE each); over 1,000 they must be cut into batches before sending, not refused.
UPDATES=${UPDATES:-600}
: >"$T/seed.records"
for ((i = 0; i < UPDATES; i++)); do echo "ZBENCH upd$i.bench.example. 300 A 10.1.$((i / 256)).$((i % 256))"; done >"$T/seed.records"
jq -n --argjson n "$UPDATES" '[range($n) | {dnsName: "upd\(.).bench.example", recordType: "A", recordTTL: 300, labels: {}}] |
	{create: [], delete: [], updateOld: map(. + {targets: ["10.1.\(.dnsName | ltrimstr("upd") | split(".")[0] | tonumber /
	256 | floor).\(.dnsName | ltrimstr("upd") | split(".")[0] | tonumber % 256)"]}), updateNew: map(. + {targets:
	["10.2.\(.dnsName | ltrimstr("upd") | split(".")[0] | tonumber / 256 | floor).\(.dnsName | ltrimstr("upd") |
	split(".")[0] | tonumber % 256)"]})}' >"$T/updates.json"
start_fake
# --force: the bench measures the cut of a batch at Route53's limits, and updates every RRset of the zone on purpose
# (UPDATE_GUARD="--max-update-percent 100" instead counts the thresholds' listing of the zone in the api column)
# shellcheck disable=SC2086 # UPDATE_GUARD is flags, split on purpose
env -i PATH="$PATH" HOME="$T" AWS_ACCESS_KEY_ID=AKIDBENCH AWS_SECRET_ACCESS_KEY=bench-secret \
	AWS_ENDPOINT_URL_ROUTE_53="https://127.0.0.1:$PORT" AWS_CA_BUNDLE="$T/ca.pem" \
	"$DNSBATCH" apply --plan "$T/updates.json" --provider aws --aws-zone-id ZBENCH --aws-batch-change-interval 0 \
	--aws-batch-change-size 1000 --batch-size 1000 ${UPDATE_GUARD:---force} --output json --quiet >"$T/upd.json" 2>"$T/upd.err"
rc=$?
stats >"$T/stats.json"
stop_fake
got=$(jq -r '"\(.applied) applied, \(.dropped) dropped, \(.failed) failed"' "$T/upd.json" 2>/dev/null)
if [ "$rc" != 0 ] || [ "$got" != "$UPDATES applied, 0 dropped, 0 failed" ] ||
	[ "$(jq -r '"\(.bad_signature) \(.bad_schema)"' "$T/stats.json")" != "0 0" ]; then
	echo "# updates: exit $rc, $got: $(head -c 300 "$T/upd.err")"
	broken=1
fi
posts=$(jq -r .changes "$T/stats.json")
refused=$(jq -r .refused_limit "$T/stats.json")
want=$(((2 * UPDATES + 999) / 1000))
echo "# Route53 limits: $UPDATES updates ($((2 * UPDATES)) ResourceRecords), one plan, --batch-size 1000"
printf '%-28s %6s %8s %6s %8s  %s\n' case POSTs refused api target outcome
printf '%-28s %6s %8s %6s %8s  %s\n' "$UPDATES updates" "$posts" "$refused" "$(jq -r .api_requests "$T/stats.json")" \
	"$([ "$posts" -le "$want" ] && [ "$refused" = 0 ] && echo met || echo MISSED)" "$got"
echo "# target (issue 21): split before sending, $want POSTs, 0 refused by the 1,000-record limit"
exit "$broken"
