#!/usr/bin/env bash
#
# bench_pdns.sh - the pdns provider against a real pdns_server (gsqlite3,
# started by tests/integration/servers.sh on free loopback ports): 2,000
# A-record creations (--batch-size 1000, --pdns-batch-change-size 1000),
# k of them conflicting (the name is held beforehand with another address),
# for k in 0 and 20. Per k: dnsbatch's submissions and reads and its
# whole-process wall seconds (median of RUNS runs, each on a fresh server),
# beside a shell loop of one curl PATCH (REPLACE) per change against the same
# kind of server. The loop cannot see conflicts: PowerDNS's REPLACE
# overwrites the k held records silently. Each dnsbatch submission is one GET
# of the zone (the pre-check) and, unless the pre-check refuses, one PATCH;
# each read one GET.
#
# Env: DNSBATCH (default build/dnsbatch), RUNS (default 3), CHANGES (default
# 2000), KS (default "0 20"). Prints figures; exits non-zero only if a run is
# wrong (exit code or counts), not on a slow figure.
set -u
export LC_ALL=C
cd "$(dirname "$0")/../.." || exit 1

DNSBATCH=${DNSBATCH:-build/dnsbatch}
RUNS=${RUNS:-3}
CHANGES=${CHANGES:-2000}
KS=${KS:-0 20}
broken=0

for tool in pdns_server sqlite3 jq curl; do
	command -v "$tool" >/dev/null 2>&1 || { echo "bench_pdns: $tool is not installed (make deps)"; exit 1; }
done
[ -x "$DNSBATCH" ] || { echo "bench_pdns: $DNSBATCH is not built"; exit 1; }

. tests/integration/servers.sh
dnsb_servers_init
T=$DNSB_SERVERS_TMP

jq -n --argjson n "$CHANGES" '{create: [range($n) | {dnsName: "host\(.).bench.test", recordType: "A", recordTTL: 300,
	labels: {}, targets: ["10.\(. / 65536 | floor % 256).\(. / 256 | floor % 256).\(. % 256)"]}],
	updateOld: [], updateNew: [], delete: []}' >"$T/plan.json"

now() { date +%s.%N; }
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# fresh K: a new server with zone bench.test holding the k conflicting names, spread over the plan.
fresh() {
	local k=$1 i step rrsets='[]'
	[ -n "${DNSB_SERVER_PID:-}" ] && dnsb_stop_pid "$DNSB_SERVER_PID"
	dnsb_start_pdns bench.test 2>"$T/start.err" || { echo "bench_pdns: $(cat "$T/start.err")"; exit 1; }
	KEY=$(cat "$DNSB_PDNS_KEYFILE")
	ZURL=$DNSB_PDNS_URL/api/v1/servers/localhost/zones/bench.test.
	[ "$k" -gt 0 ] || return 0
	step=$((CHANGES / k))
	for ((i = step / 2; i < CHANGES; i += step)); do
		rrsets=$(jq -c --arg n "host$i.bench.test." '. + [{name: $n, type: "A", ttl: 300, changetype: "REPLACE",
			records: [{content: "192.0.2.1", disabled: false}]}]' <<<"$rrsets")
	done
	curl -sf -H "X-API-Key: $KEY" -X PATCH -d "{\"rrsets\": $rrsets}" "$ZURL" || { echo "bench_pdns: seeding failed"; exit 1; }
}

echo "pdns: $CHANGES A-record creations, batch 1000, real pdns_server 4.7 (gsqlite3) on loopback, median of $RUNS runs"
for k in $KS; do
	: >"$T/walls"
	for ((r = 0; r < RUNS; r++)); do
		fresh "$k"
		t0=$(now)
		"$DNSBATCH" apply --plan "$T/plan.json" --provider pdns --pdns-server "$DNSB_PDNS_URL" \
			--pdns-api-key-file "$DNSB_PDNS_KEYFILE" --pdns-zone bench.test --quiet --output json >"$T/out.json" 2>"$T/err"
		rc=$?
		t1=$(now)
		echo "$t1 - $t0" | bc >>"$T/walls"
		want=$([ "$k" -gt 0 ] && echo 3 || echo 0)
		got=$(jq -r '"\(.applied) \(.dropped)"' "$T/out.json" 2>/dev/null)
		if [ "$rc" != "$want" ] || [ "$got" != "$((CHANGES - k)) $k" ]; then
			echo "bench_pdns: k=$k run $r: exit $rc, applied/dropped '$got' (expected exit $want, $((CHANGES - k)) $k)"
			broken=1
		fi
	done
	printf 'pdns n=%d k=%d submissions=%s reads=%s bisections=%s wall=%.3fs\n' "$CHANGES" "$k" \
		"$(jq .submissions "$T/out.json")" "$(jq .reads "$T/out.json")" "$(jq .bisections "$T/out.json")" \
		"$(median <"$T/walls")"
done

# The baseline: one curl PATCH per change, one process each (what a naive loop does).
for k in $KS; do
	: >"$T/walls"
	for ((r = 0; r < RUNS; r++)); do
		fresh "$k"
		jq -r '.create[] | "\(.dnsName). \(.targets[0])"' "$T/plan.json" >"$T/loop.txt"
		t0=$(now)
		fails=0
		while read -r name addr; do
			curl -sf -o /dev/null -H "X-API-Key: $KEY" -X PATCH \
				-d "{\"rrsets\":[{\"name\":\"$name\",\"type\":\"A\",\"ttl\":300,\"changetype\":\"REPLACE\",\"records\":[{\"content\":\"$addr\",\"disabled\":false}]}]}" \
				"$ZURL" || fails=$((fails + 1))
		done <"$T/loop.txt"
		t1=$(now)
		echo "$t1 - $t0" | bc >>"$T/walls"
	done
	printf 'curl-loop n=%d k=%d requests=%d failed=%d overwritten=%d wall=%.3fs\n' "$CHANGES" "$k" "$CHANGES" "$fails" "$k" \
		"$(median <"$T/walls")"
done
exit "$broken"
