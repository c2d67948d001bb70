#!/usr/bin/env bash
# bench_webhook.sh - benchmark `dnsbatch serve` (issue 4):
#   POST /records, 100-change plans, zonefile provider (each plan really
#     applies: creates of fresh names, then their deletion, alternately)
#   GET /records on a 10,000-record zone (zonefile provider)
#   POST /records, 100-change plans, memory provider (the server and engine
#     without the zone file's write + fsync + rename)
# 8 concurrent clients speaking as external-dns does, 10 s each; the
# server's peak RSS (VmHWM) after each run. Figures only, nothing asserted.
#
# Env: DNSBATCH (default build/dnsbatch), BENCH_WEBHOOK ($BUILD/bench_webhook),
#      BENCH_SECONDS (10), BENCH_CLIENTS (8), BENCH_WEBHOOK_SCALE_ONLY=1 (only
#      the issue 21 rows at the end: GET /records at 100k and 310k RRsets,
#      POST /records of 400,000 endpoints).
set -u
cd "$(dirname "$0")/../.." || exit 1
DNSBATCH=${DNSBATCH:-build/dnsbatch}
BENCH_WEBHOOK=${BENCH_WEBHOOK:-${BUILD:-build}/bench_webhook}
SECONDS_PER_RUN=${BENCH_SECONDS:-10}
CLIENTS=${BENCH_CLIENTS:-8}
. tests/integration/extdns_client.sh

tmp=$(mktemp -d "${TMPDIR:-/tmp}/dnsbatch-bench-webhook.XXXXXX")
trap 'extdns_cleanup; rm -rf "$tmp"' EXIT

zone() { # FILE APEX RECORDS
	{
		printf '$ORIGIN %s.\n$TTL 300\n' "$2"
		printf '@ IN SOA ns1.%s. hostmaster.%s. 1 7200 3600 1209600 300\n@ IN NS ns1.%s.\nns1 IN A 192.0.2.53\n' "$2" "$2" "$2"
		awk -v n="$3" 'BEGIN { for (i = 0; i < n; i++) printf "h%d IN A 10.%d.%d.%d\n", i, int(i / 65536) % 256, int(i / 256) % 256, i % 256 }'
	} >"$1"
}

peak_rss() { awk '/^VmHWM:/ { printf "%.1f MiB", $2 / 1024 }' "/proc/$EXTDNS_PID/status"; }

run() { # TITLE MODE ZONE-APEX SERVE-ARGS...
	local title=$1 mode=$2 apex=$3 out
	shift 3
	extdns_serve "$tmp/serve.log" --log-format text "$@" || return 1
	extdns_wait_ready 10 || { echo "$title: not ready"; return 1; }
	out=$("$BENCH_WEBHOOK" --url "$EXTDNS_API" --mode "$mode" --clients "$CLIENTS" --seconds "$SECONDS_PER_RUN" \
		--changes 100 --zone "$apex" --loops "${LOOPS:-0}")
	printf '%-48s %s peak_rss=%s\n' "$title" "$out" "$(peak_rss)"
	extdns_stop
}

zone "$tmp/post.zone" bench.test 100
zone "$tmp/get.zone" big.test 10000
echo "# dnsbatch serve benchmark: $CLIENTS clients, ${SECONDS_PER_RUN} s per run, $(nproc) CPUs, $(date -u +%Y-%m-%dT%H:%MZ)"
if [ "${BENCH_WEBHOOK_SCALE_ONLY:-0}" != 1 ]; then
# --force on the POST runs: they measure the sidecar's POST throughput, and each client deletes every RRset it
# created on purpose (over the 30% delete threshold of a zone of ~200 RRsets, which would answer 503).
run "POST /records 100 changes, zonefile" post bench.test \
	--provider zonefile --zonefile "bench.test=$tmp/post.zone" --force
run "GET /records 10,000 records, zonefile" get big.test \
	--provider zonefile --zonefile "big.test=$tmp/get.zone"
run "POST /records 100 changes, memory" post bench.test \
	--provider memory --memory-zone bench.test --force
# Issue 8: one external-dns loop (GET /records, AdjustEndpoints, POST /records
# of 100 changes) on a 10,000-record zone, one client, 200 loops.
CLIENTS=1 SECONDS_PER_RUN=600 LOOPS=200 run "external-dns loop, 10,000 records + 100 changes, zonefile" loop big.test \
	--provider zonefile --zonefile "big.test=$tmp/get.zone"
fi

# Issue 21: GET /records at scale, memory provider, one client: names with an
# A record and the registry's TXT record ("a-NAME"), 50,000 names (100k RRsets)
# and 155,000 (310k); the median of 5 requests each, the ratio (linear: <= 3.5
# for 3.1x the RRsets) and the server's peak RSS (the listing is in memory
# twice, the store's and the copy listed; the reply is streamed).
registry_zone() { # FILE APEX NAMES
	{
		printf '$ORIGIN %s.\n$TTL 300\n' "$2"
		printf '@ IN SOA ns1.%s. hostmaster.%s. 1 7200 3600 1209600 300\n@ IN NS ns1.%s.\nns1 IN A 192.0.2.53\n' "$2" "$2" "$2"
		awk -v n="$3" 'BEGIN { for (i = 0; i < n; i++) {
			printf "h%d IN A 10.%d.%d.%d\n", i, int(i / 65536) % 256, int(i / 256) % 256, i % 256
			printf "a-h%d IN TXT \"heritage=external-dns,external-dns/owner=default,external-dns/resource=service/default/h%d\"\n", i, i } }'
	} >"$1"
}
get_median() { # prints the median seconds of 5 GET /records, and the reply's bytes
	local i
	for i in 1 2 3 4 5; do
		curl -s -o /dev/null -w '%{time_total} %{size_download}\n' -H "Accept: $EXTDNS_MEDIA_TYPE" "$EXTDNS_API/records"
	done | sort -n | sed -n 3p
}
declare -A get_s
for names in 50000 155000; do
	registry_zone "$tmp/reg.zone" big.test "$names"
	extdns_serve "$tmp/serve.log" --log-format text --provider memory --memory-zonefile "big.test=$tmp/reg.zone" || break
	extdns_wait_ready 60 || { echo "GET /records $names names: not ready"; extdns_stop; break; }
	read -r s bytes < <(get_median)
	get_s[$names]=$s
	printf '%-48s rrsets=%d median_s=%s bytes=%s peak_rss=%s\n' "GET /records $((names * 2 / 1000))k RRsets, memory" \
		$((names * 2 + 3)) "$s" "$bytes" "$(peak_rss)"
	extdns_stop
done
[ -n "${get_s[50000]:-}" ] && [ -n "${get_s[155000]:-}" ] &&
	awk -v a="${get_s[50000]}" -v b="${get_s[155000]}" \
		'BEGIN { printf "GET /records ratio 310k/100k=%.2f (target <= 3.5)\n", b / a }'

# Issue 21: POST /records of 400,000 creates (32.3 MB, under the default
# 32 MiB cap), memory provider, default --apply-timeout (10 s): the time to the
# first submission (the provider's first submit in /metrics, polled every
# 20 ms; target <= 2 s), the answer's time and status, the server's peak RSS,
# the stderr and drop-log bytes it left.
awk 'BEGIN {
	printf "{\"Create\":["
	for (i = 0; i < 400000; i++) {
		printf "%s{\"dnsName\":\"host-%d.big.test\",\"targets\":[\"10.%d.%d.%d\"],\"recordType\":\"A\"%s}", i ? "," : "",
			i, int(i / 65536) % 256, int(i / 256) % 256, i % 256, i % 5 == 0 ? ",\"recordTTL\":300" : ""
	}
	printf "],\"UpdateOld\":[],\"UpdateNew\":[],\"Delete\":[]}"
}' >"$tmp/post400k.json"
submits() { curl -s "$EXTDNS_MON/metrics" | awk '/^dnsbatch_provider_requests_total\{.*operation="submit"/ { s += $NF } END { print s + 0 }'; }
# The second run's deadline (1 s) passes before the first batch: every change fails, and the logs stay bounded.
for timeout in 10 1; do
	rm -f "$tmp"/drops.jsonl*
	extdns_serve "$tmp/serve.log" --log-format text --provider memory --memory-zone big.test \
		--drop-log "$tmp/drops.jsonl" --apply-timeout "$timeout" || break
	extdns_wait_ready 10 || { echo "POST /records 400,000: not ready"; extdns_stop; break; }
	t0=$(date +%s.%N)
	curl -s -o /dev/null -w '%{http_code}\n' -H "Content-Type: $EXTDNS_MEDIA_TYPE" -H 'Expect:' \
		--data-binary "@$tmp/post400k.json" "$EXTDNS_API/records" >"$tmp/post.status" &
	post=$!
	first=""
	while kill -0 "$post" 2>/dev/null; do
		if [ -z "$first" ] && [ "$(submits)" -gt 0 ]; then first=$(date +%s.%N); fi
		sleep 0.02
	done
	wait "$post"
	t1=$(date +%s.%N)
	[ -z "$first" ] && [ "$(submits)" -gt 0 ] && first=$t1
	awk -v t0="$t0" -v f="$first" -v t1="$t1" -v st="$(cat "$tmp/post.status")" -v rss="$(peak_rss)" \
		-v body="$(stat -c %s "$tmp/post400k.json")" -v err="$(stat -c %s "$tmp/serve.log")" \
		-v drops="$(cat "$tmp"/drops.jsonl* 2>/dev/null | wc -c)" -v title="POST /records 400,000 creates, timeout $timeout s" \
		'BEGIN { printf "%-48s body=%d first_submission_s=%s total_s=%.2f status=%s peak_rss=%s stderr_bytes=%d droplog_bytes=%d\n",
			title, body, f == "" ? "none" : sprintf("%.2f", f - t0), t1 - t0, st, rss, err, drops }'
	grep 'POST /records:' "$tmp/serve.log" | tail -n 1
	extdns_stop
done
