#!/usr/bin/env bash
#
# extdns_roundtrip.sh - the external-dns round trip on every provider (issue 31 §2): each record type external-dns
# v0.22 writes for that provider (extdns/sources.py), sent the way external-dns sends it through the webhook (its
# TXT registry's ownership records, which carry a copy of the record's providerSpecific), written by `dnsbatch
# serve`, listed back by GET /records, and external-dns's next loops plan nothing: writes per loop 1,0,0,0,0
# (extdns/loop.py models v0.22's loop and registry; extdns/check.py compares what is listed).
#
#   extdns_roundtrip.sh [PROVIDER...]
#       (default: zonefile memory bind knot pdns google route53 cloudflare azure akamai digitalocean)
#
# Servers: the zone file in a temp dir; memory in `dnsbatch serve`'s own process; BIND, Knot and PowerDNS from
# tests/integration/servers.sh on free loopback ports; Cloud DNS, Route53, Cloudflare, Azure, Akamai and DigitalOcean
# from the project's fakes through the conformance drivers (drivers/PROVIDER.sh, each in a subshell of its own).
# Beyond GET /records, the provider's own view is checked where the test can read it without dnsbatch (AXFR from BIND
# and Knot, the zone file through ldns, the fakes' state): each endpoint is held there, with the properties that
# provider stores.
# Prints "ok - ..." / "not ok - ..." per check; exits 1 if any failed. Env: BUILD, DNSBATCH, DNSB_KEEP_TMP=1.
set -u
export LC_ALL=C
CONF=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$CONF/../.." && pwd)
cd "$ROOT" || exit 1
BUILD=${BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$ROOT/$BUILD ;; esac
DNSBATCH=${DNSBATCH:-$BUILD/dnsbatch}
case $DNSBATCH in /*) ;; *) DNSBATCH=$ROOT/$DNSBATCH ;; esac
export DNSBATCH BUILD
LOOPS=5
FAILED=0

. tests/integration/servers.sh
. tests/integration/extdns_client.sh
dnsb_servers_init
TOP=$DNSB_SERVERS_TMP/extdns-roundtrip
mkdir -p "$TOP"

# zone_file OUT: example.com. with its SOA and NS only
zone_file() {
	# shellcheck disable=SC2016
	printf '%s\n' '$ORIGIN example.com.' '$TTL 300' \
		'@ 3600 IN SOA ns1.example.net. hostmaster.example.com. 1 3600 600 86400 60' '@ 3600 IN NS ns1.example.net.' >"$1"
}

# roundtrip LABEL TRUTH-CMD SERVE-ARGS...: serve, five loops, the checks; TRUTH-CMD prints the provider's own view
# ("owner TTL TYPE ..." lines) or is "-" where none can be read without dnsbatch
roundtrip() {
	local label=$1 truth=$2 d=$TOP/$1 fails=0
	shift 2
	mkdir -p "$d"
	python3 "$CONF/extdns/sources.py" "$label" >"$d/sources.json" || { echo "not ok - $label: sources"; return 1; }
	if ! extdns_serve "$d/serve.log" --drop-log "$d/drops" "$@"; then
		echo "not ok - $label: dnsbatch serve starts"
		sed 's/^/#   /' "$d/serve.log" | tail -n 5
		return 1
	fi
	python3 "$CONF/extdns/loop.py" "$EXTDNS_API" "$d/sources.json" "$LOOPS" "$d" >"$d/loops" 2>"$d/loops.err"
	extdns_stop
	sed 's/^/# /' "$d/loops"
	local writes
	writes=$(awk '{ printf "%s%s", (NR > 1 ? "," : ""), $3 }' "$d/loops")
	if [ "$writes" = "1$(printf ',0%.0s' $(seq 2 "$LOOPS"))" ]; then
		echo "ok - $label: writes per loop $writes"
	else
		echo "not ok - $label: writes per loop 1,0,0,0,0"
		echo "#   got: ${writes:-none} $(tail -n 2 "$d/loops.err")"
		fails=1
	fi
	local truth_args=()
	if [ "$truth" != - ]; then
		if $truth >"$d/truth" 2>"$d/truth.err"; then
			truth_args=("$d/truth" "${DRV_PROPS:-}")
		else
			echo "not ok - $label: the provider's own view is read"
			sed 's/^/#   /' "$d/truth.err" | tail -n 3
			fails=1
		fi
	fi
	if [ -s "$d/loop2.records.json" ]; then
		python3 "$CONF/extdns/check.py" "$label" "$d/sources.json" "$d" "${truth_args[@]}" || fails=1
	else
		echo "not ok - $label: the second loop listed the records"
		fails=1
	fi
	[ -s "$d/drops" ] && { echo "# $label: drop log"; sed 's/^/#   /' "$d/drops" | cut -c1-300; }
	return $fails
}

##### the providers ##################################################################################################

zonefile_truth() { ldns-read-zone -c "$TOP/zonefile/example.com.zone" | awk -F'\t' '{ print $1, $2, $4, $5 }'; }
run_zonefile() {
	mkdir -p "$TOP/zonefile"
	zone_file "$TOP/zonefile/example.com.zone"
	roundtrip zonefile zonefile_truth --provider zonefile --zonefile "example.com=$TOP/zonefile/example.com.zone"
}

run_memory() { roundtrip memory - --provider memory --memory-zone example.com; }

# dns_truth: the zone by AXFR signed with the key (as dnsb_axfr, but the delegation's NS records kept)
dns_truth() {
	dig +nocmd +nostats +nocomments +noclass +tries=1 +time=5 -k "$TOP/key.conf" -p "$DNSB_SERVER_PORT" @127.0.0.1 \
		example.com AXFR | awk '$0 !~ /^;/ && NF && $3 != "SOA" && $3 != "TSIG"' | sort -u
}
run_dns() { # bind|knot
	local start=dnsb_start_named
	[ "$1" = knot ] && start=dnsb_start_knotd
	[ -s "$TOP/key.conf" ] || dnsb_tsig_keygen "$TOP/key.conf" || { echo "not ok - $1: tsig-keygen"; return 1; }
	zone_file "$TOP/$1.zone"
	if ! $start example.com "$TOP/$1.zone" "$TOP/key.conf" >"$TOP/$1.start" 2>&1; then
		echo "not ok - $1: the server starts"
		sed 's/^/#   /' "$TOP/$1.start" | tail -n 5
		return 1
	fi
	roundtrip "$1" dns_truth --provider rfc2136 --rfc2136-host 127.0.0.1 --rfc2136-port "$DNSB_SERVER_PORT" \
		--rfc2136-zone example.com --rfc2136-tsig-keyfile "$TOP/key.conf"
	local rc=$?
	dnsb_stop_pid "$DNSB_SERVER_PID"
	return $rc
}

run_pdns() {
	if ! dnsb_start_pdns example.com >"$TOP/pdns.start" 2>&1; then
		echo "not ok - pdns: the server starts"
		sed 's/^/#   /' "$TOP/pdns.start" | tail -n 5
		return 1
	fi
	roundtrip pdns - --provider pdns --pdns-server "$DNSB_PDNS_URL" --pdns-api-key-file "$DNSB_PDNS_KEYFILE"
	local rc=$?
	dnsb_stop_pid "$DNSB_SERVER_PID"
	return $rc
}

# run_cloud PROVIDER: the driver's fake (drv_start), dnsbatch serve with the driver's flags and environment
# (cfk_args), the driver's truth; in a subshell, its processes stopped by PID at its end
run_cloud() (
	PROVIDER=$1
	T=$TOP/$1.driver
	PIDS=()
	mkdir -p "$T"
	trap 'for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done; extdns_cleanup' EXIT
	# shellcheck source=/dev/null
	. "$CONF/drivers/$1.sh"
	if ! drv_start 2>"$T/start.err"; then
		echo "not ok - $1: the fake starts"
		sed 's/^/#   /' "$T/start.err" | tail -n 5
		exit 1
	fi
	cfk_args "$DRV_URL"
	local v
	for v in "${CFK_CREDS[@]}"; do export "${v?}"; done
	roundtrip "$1" drv_truth "${CFK_ARGS[@]}"
)

PROVIDERS=("$@")
[ ${#PROVIDERS[@]} -gt 0 ] ||
	PROVIDERS=(zonefile memory bind knot pdns google route53 cloudflare azure akamai digitalocean)
for p in "${PROVIDERS[@]}"; do
	case $p in
	zonefile | memory | pdns) "run_$p" || FAILED=$((FAILED + 1)) ;;
	bind | knot) run_dns "$p" || FAILED=$((FAILED + 1)) ;;
	google | route53 | cloudflare | azure | akamai | digitalocean) run_cloud "$p" || FAILED=$((FAILED + 1)) ;;
	*) echo "not ok - $p: no such provider"; FAILED=$((FAILED + 1)) ;;
	esac
done
echo "# extdns round trip: ${#PROVIDERS[@]} providers, $FAILED with a failing check"
[ "$FAILED" -eq 0 ]
