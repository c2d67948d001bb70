#!/usr/bin/env bash
#
# bench_records.sh - `dnsbatch records` of a 100,000-RRset zone from a real BIND on loopback
# (AXFR with TSIG), against `dig AXFR` of the same zone in the same run. Target: dnsbatch
# within 3x dig's wall time. Median of RUNS runs (default 3); RRSETS sets the zone size.
# Prints figures; exits non-zero only if a listing is wrong (record count), not on a missed target.
set -u
export LC_ALL=C
cd "$(dirname "$0")/../.." || exit 1
. tests/integration/servers.sh

DNSBATCH=${DNSBATCH:-build/dnsbatch}
RUNS=${RUNS:-3}
RRSETS=${RRSETS:-100000}

dnsb_servers_init
T=$DNSB_SERVERS_TMP
KEY=$T/key.conf
dnsb_tsig_keygen "$KEY" bench-key hmac-sha256 || exit 1
{
	printf '$ORIGIN big.test.\n$TTL 300\n@ SOA ns1 hostmaster 1 3600 600 86400 300\n@ NS ns1\nns1 A 192.0.2.53\n'
	# Two RRsets a name (A and TXT), so that merging records into RRsets is exercised.
	awk -v n="$RRSETS" 'BEGIN { for (i = 0; i < (n - 3) / 2; i++) {
		printf "h%d A 10.%d.%d.%d\n", i, int(i / 65536) % 256, int(i / 256) % 256, i % 256
		printf "h%d TXT \"v=%d\"\n", i, i } }'
} >"$T/zone.db"
dnsb_start_named big.test "$T/zone.db" "$KEY" || exit 1
PORT=$DNSB_SERVER_PORT

now() { date +%s.%N; }
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
dig_times=() dnsb_times=()
broken=0
for ((r = 0; r < RUNS; r++)); do
	t0=$(now)
	dig +nocmd +nostats +tries=1 +time=30 -k "$KEY" -p "$PORT" @127.0.0.1 big.test AXFR >"$T/dig.out"
	t1=$(now)
	"$DNSBATCH" records --provider rfc2136 --rfc2136-host 127.0.0.1 --rfc2136-port "$PORT" \
		--rfc2136-zone big.test --rfc2136-tsig-keyfile "$KEY" >"$T/dnsbatch.out" 2>"$T/err"
	rc=$?
	t2=$(now)
	dig_times+=("$(echo "$t1 - $t0" | bc -l)")
	dnsb_times+=("$(echo "$t2 - $t1" | bc -l)")
	sets=$(awk '{print $1, $4}' "$T/dnsbatch.out" | sort -u | wc -l)
	if [ "$rc" != 0 ] || [ "$sets" -lt "$RRSETS" ]; then
		echo "# dnsbatch records: exit $rc, $sets RRsets: $(head -c 300 "$T/err")"
		broken=1
	fi
done
d=$(median "${dig_times[@]}")
b=$(median "${dnsb_times[@]}")
printf 'records-axfr rrsets=%d dig=%.3fs dnsbatch=%.3fs ratio=%.2f (target <= 3)\n' "$RRSETS" "$d" "$b" \
	"$(echo "$b / $d" | bc -l)"
exit "$broken"
