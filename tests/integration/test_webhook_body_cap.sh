#!/usr/bin/env bash
# test_webhook_body_cap.sh - GET /records answers over the body limit of external-dns after v0.22
# (--webhook-provider-max-body-size, 32 MiB by default; it refuses a larger body, so no zone is
# listed and every loop fails). dnsbatch still sends the answer whole (a larger limit may be set on
# both sides), but logs a warning naming --webhook-provider-max-body-size and counts it in
# dnsbatch_webhook_oversized_replies_total. The limit is --max-body-size, 32 MiB by default as the
# POST limit is:
# - a zone whose listing is over 32 MiB (2,100 TXT RRsets of 8 records, 34.5 MB): 200 with every
#   RRset, one warning, the counter at 1; a second GET: at 2;
# - a small zone: no warning, the counter at 0;
# - the small zone with --max-body-size 4k: the limit follows the flag.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/integration/extdns_client.sh

tmp=$(mktemp -d "${TMPDIR:-/tmp}/dnsbatch-body-cap.XXXXXX")
trap 'extdns_cleanup; rm -rf "$tmp"' EXIT
limit=$((32 * 1024 * 1024))
oversized=dnsbatch_webhook_oversized_replies_total

# zone FILE RRSETS: example.com with RRSETS TXT RRsets of 8 records of 8 strings of 250 characters
# (2,100 RRsets: 16,800 records, a 33 MB zone file, a listing of 34.5 MB)
zone() {
	awk -v n="$2" 'BEGIN {
		print "$ORIGIN example.com.\n$TTL 300"
		print "@ IN SOA ns1.example.com. hostmaster.example.com. 1 7200 3600 1209600 300\n@ IN NS ns1.example.com."
		pad = sprintf("%240s", ""); gsub(/ /, "x", pad)
		for (i = 0; i < n; i++)
			for (j = 0; j < 8; j++) {
				printf "t%05d IN TXT", i
				for (k = 0; k < 8; k++)
					printf " \"%s-%05d-%d-%d\"", pad, i, j, k
				print ""
			}
	}' >"$1"
}
# serve LOG ARGS...: extdns_serve, but waiting up to 120 s for the listeners (loading the big zone takes
# seconds, more under the sanitizers on a loaded machine)
serve() {
	local log=$1 i api mon
	shift
	"$DNSBATCH" serve --listen 127.0.0.1:0 --metrics-listen 127.0.0.1:0 "$@" 2>"$log" &
	EXTDNS_PID=$!
	EXTDNS_PIDS+=("$EXTDNS_PID")
	for i in $(seq 1 1200); do
		api=$(sed -n 's/.*webhook on \(127\.0\.0\.1:[0-9]*\).*/\1/p' "$log" | head -n1)
		mon=$(sed -n 's/.*\/metrics on \(127\.0\.0\.1:[0-9]*\).*/\1/p' "$log" | head -n1)
		[ -n "$api" ] && [ -n "$mon" ] && break
		kill -0 "$EXTDNS_PID" 2>/dev/null || break
		sleep 0.1
	done
	EXTDNS_API=http://$api
	EXTDNS_MON=http://$mon
	[ -n "$api" ] && [ -n "$mon" ]
}
warnings() { grep -c -- '--webhook-provider-max-body-size' "$1"; }

zone "$tmp/big.zone" 2100
zone "$tmp/small.zone" 10

# The big zone, at the default limit.
if serve "$tmp/big.log" --provider memory --memory-zonefile "example.com=$tmp/big.zone"; then
	extdns_check "serve ready (the big zone loaded)" extdns_wait_ready 120
	extdns_get "$EXTDNS_API" /records >"$tmp/big.json"
	bytes=$(wc -c <"$tmp/big.json")
	extdns_check "GET /records answers 200 with the whole listing ($bytes bytes, over $limit)" \
		[ "$EXTDNS_STATUS:$((bytes > limit))" = 200:1 ]
	extdns_check "every RRset is in it (2,100 TXT of 8 records)" \
		[ "$(jq '[.[] | select(.recordType == "TXT" and (.targets | length) == 8)] | length' "$tmp/big.json")" = 2100 ]
	extdns_check "one warning naming external-dns's --webhook-provider-max-body-size and the size" \
		bash -c '[ "$(grep -c -- --webhook-provider-max-body-size "$1")" = 1 ] && grep -q -- "$2 bytes" "$1"' _ \
		"$tmp/big.log" "$bytes"
	extdns_check "$oversized is 1" [ "$(extdns_metric $oversized)" = 1 ]
	extdns_get "$EXTDNS_API" /records >/dev/null
	extdns_check "a second GET: $oversized is 2" [ "$(extdns_metric $oversized)" = 2 ]
	extdns_stop
	extdns_check "SIGTERM: exit status 0" [ "$EXTDNS_EXIT" = 0 ]
else
	echo "not ok - serve starts with the big zone"
	EXTDNS_FAILED=$((EXTDNS_FAILED + 1))
fi

# The small zone: under the limit, then over a --max-body-size of 4 KiB.
for max in default 4k; do
	opt=()
	[ "$max" = default ] || opt=(--max-body-size "$max")
	if ! serve "$tmp/small-$max.log" --provider memory --memory-zonefile "example.com=$tmp/small.zone" \
		"${opt[@]}"; then
		echo "not ok - serve starts with the small zone (--max-body-size $max)"
		EXTDNS_FAILED=$((EXTDNS_FAILED + 1))
		continue
	fi
	extdns_wait_ready 10
	extdns_get "$EXTDNS_API" /records >"$tmp/small.json"
	bytes=$(wc -c <"$tmp/small.json")
	want=0
	[ "$max" = default ] || want=1
	extdns_check "small zone ($bytes bytes), --max-body-size $max: 200, $want warning(s), $oversized $want" \
		[ "$EXTDNS_STATUS $(warnings "$tmp/small-$max.log") $(extdns_metric $oversized)" = "200 $want $want" ]
	extdns_stop
done
extdns_done
