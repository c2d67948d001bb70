#!/usr/bin/env bash
# test_webhook_body_cap.sh - GET /records answers over the body limit of external-dns after v0.22
# (--webhook-provider-max-body-size, 32 MiB by default; it refuses a larger body, so no zone is
# listed and every loop fails). dnsbatch still sends the answer whole (a larger limit may be set on
# both sides), but logs a warning naming --webhook-provider-max-body-size and counts it in
# dnsbatch_webhook_oversized_replies_total. The limit is --max-body-size, 32 MiB by default as the
# POST limit is:
# - a zone whose listing is over 32 MiB (20,000 TXT RRsets of 7 records, ~34 MB): 200 with every
#   RRset, one warning, the counter at 1; a second GET: at 2;
# - a small zone: no warning, the counter at 0;
# - the small zone with --max-body-size 4k: the limit follows the flag.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/integration/extdns_client.sh

tmp=$(mktemp -d "${TMPDIR:-/tmp}/dnsbatch-body-cap.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
limit=$((32 * 1024 * 1024))
oversized=dnsbatch_webhook_oversized_replies_total

# zone FILE RRSETS: example.com with RRSETS TXT RRsets of 7 strings of 240 characters each
zone() {
	awk -v n="$2" 'BEGIN {
		print "$ORIGIN example.com.\n$TTL 300"
		print "@ IN SOA ns1.example.com. hostmaster.example.com. 1 7200 3600 1209600 300\n@ IN NS ns1.example.com."
		pad = sprintf("%230s", ""); gsub(/ /, "x", pad)
		for (i = 0; i < n; i++)
			for (j = 0; j < 7; j++)
				printf "t%06d IN TXT \"%s-%06d-%d\"\n", i, pad, i, j
	}' >"$1"
}
warnings() { grep -c -- '--webhook-provider-max-body-size' "$1"; }

zone "$tmp/big.zone" 20000
zone "$tmp/small.zone" 100

# The big zone, at the default limit.
if extdns_serve "$tmp/big.log" --provider memory --memory-zonefile "example.com=$tmp/big.zone"; then
	extdns_check "serve ready (the big zone loaded)" extdns_wait_ready 60
	extdns_get "$EXTDNS_API" /records >"$tmp/big.json"
	bytes=$(wc -c <"$tmp/big.json")
	extdns_check "GET /records answers 200 with the whole listing ($bytes bytes, over $limit)" \
		[ "$EXTDNS_STATUS:$((bytes > limit))" = 200:1 ]
	extdns_check "every RRset is in it (20,000 TXT)" \
		[ "$(jq '[.[] | select(.recordType == "TXT")] | length' "$tmp/big.json")" = 20000 ]
	extdns_check "one warning naming external-dns's --webhook-provider-max-body-size and the size" \
		bash -c '[ "$(grep -c -- --webhook-provider-max-body-size "$1")" = 1 ] && grep -q -- "$2 bytes" "$1"' _ \
		"$tmp/big.log" "$bytes"
	extdns_check "$oversized is 1" [ "$(extdns_metric $oversized)" = 1 ]
	extdns_get "$EXTDNS_API" /records >/dev/null
	extdns_check "a second GET: $oversized is 2" [ "$(extdns_metric $oversized)" = 2 ]
	extdns_stop
else
	echo "not ok - serve starts with the big zone"
	EXTDNS_FAILED=$((EXTDNS_FAILED + 1))
fi

# The small zone: under the limit, then over a --max-body-size of 4 KiB.
for max in default 4k; do
	opt=()
	[ "$max" = default ] || opt=(--max-body-size "$max")
	if ! extdns_serve "$tmp/small-$max.log" --provider memory --memory-zonefile "example.com=$tmp/small.zone" \
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
