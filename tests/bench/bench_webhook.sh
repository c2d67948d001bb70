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
#      BENCH_SECONDS (10), BENCH_CLIENTS (8).
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
run "POST /records 100 changes, zonefile" post bench.test \
	--provider zonefile --zonefile "bench.test=$tmp/post.zone"
run "GET /records 10,000 records, zonefile" get big.test \
	--provider zonefile --zonefile "big.test=$tmp/get.zone"
run "POST /records 100 changes, memory" post bench.test \
	--provider memory --memory-zone bench.test
# Issue 8: one external-dns loop (GET /records, AdjustEndpoints, POST /records
# of 100 changes) on a 10,000-record zone, one client, 200 loops.
CLIENTS=1 SECONDS_PER_RUN=600 LOOPS=200 run "external-dns loop, 10,000 records + 100 changes, zonefile" loop big.test \
	--provider zonefile --zonefile "big.test=$tmp/get.zone"
