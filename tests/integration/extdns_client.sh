# shellcheck shell=bash
#
# extdns_client.sh - talk to `dnsbatch serve` from bash exactly as external-dns
# does (the same headers as tests/integration/extdns_client.c: Accept and
# Content-Type application/external.dns.webhook+json;version=1, Go's
# User-Agent and Accept-Encoding, no Expect: 100-continue), plus the
# bookkeeping the shell tests share. Source it from bash.
#
#   extdns_check NAME CMD...      run CMD; print "ok - NAME" or "not ok - NAME"
#   extdns_done                   exit 1 if any check failed, else 0
#   extdns_serve LOG ARGS...      start "$DNSBATCH serve" on free loopback ports
#                                 (port 0, read back from its log), wait for
#                                 it to listen; sets EXTDNS_PID, EXTDNS_API and
#                                 EXTDNS_MON (base URLs)
#   extdns_stop                   SIGTERM the server, wait; EXTDNS_EXIT = its status
#   extdns_wait_ready [SECONDS]   until /healthz answers 200
#   extdns_get URL PATH           GET with Accept; body on stdout; sets
#                                 EXTDNS_STATUS and EXTDNS_CT
#   extdns_post URL PATH FILE     POST FILE with Content-Type (and Accept for
#                                 /adjustendpoints); body on stdout; same vars
#   extdns_metric SERIES          the value of one series (exact name and
#                                 labels) in $EXTDNS_MON/metrics, 0 if absent
#   extdns_on_providers SUITE ZONE DIR
#                                 run SUITE LABEL SERVE-ARGS... on the zone-file
#                                 provider (a copy of ZONE, zone example.test, in
#                                 DIR) and on rfc2136 against a real BIND serving
#                                 ZONE (TSIG); needs servers.sh sourced
#
# Servers are stopped by PID in the EXIT trap that extdns_serve installs
# (it chains a trap already set, e.g. servers.sh's cleanup).

EXTDNS_MEDIA_TYPE='application/external.dns.webhook+json;version=1'
DNSBATCH=${DNSBATCH:-build/dnsbatch}
EXTDNS_FAILED=0
EXTDNS_PIDS=()

extdns_check() {
	local name=$1
	shift
	if "$@" >/dev/null 2>&1; then
		echo "ok - $name"
	else
		echo "not ok - $name"
		EXTDNS_FAILED=$((EXTDNS_FAILED + 1))
	fi
}

extdns_done() {
	[ "$EXTDNS_FAILED" -eq 0 ]
	exit $?
}

extdns_cleanup() {
	local pid
	for pid in "${EXTDNS_PIDS[@]}"; do
		kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	done
	EXTDNS_PIDS=()
}

_extdns_curl() { # METHOD URL [curl args]; prints body, sets EXTDNS_STATUS/EXTDNS_CT
	local method=$1 url=$2 hdr body
	shift 2
	hdr=$(mktemp) body=$(mktemp)
	EXTDNS_STATUS=$(curl -s -o "$body" -D "$hdr" -w '%{http_code}' -X "$method" \
		-A 'Go-http-client/1.1' --compressed -H 'Expect:' "$@" "$url")
	EXTDNS_CT=$(sed -n 's/^[Cc]ontent-[Tt]ype: *\(.*\)\r$/\1/p' "$hdr" | tail -n1)
	cat "$body"
	rm -f "$hdr" "$body"
}

extdns_get() {
	_extdns_curl GET "$1$2" -H "Accept: $EXTDNS_MEDIA_TYPE"
}

extdns_post() {
	# Go sends Accept only where external-dns sets it; curl would send "*/*".
	local extra=(-H 'Accept:')
	[ "$2" = /adjustendpoints ] && extra=(-H "Accept: $EXTDNS_MEDIA_TYPE")
	_extdns_curl POST "$1$2" -H "Content-Type: $EXTDNS_MEDIA_TYPE" "${extra[@]}" --data-binary "@$3"
}

extdns_serve() {
	local log=$1 i api mon
	shift
	"$DNSBATCH" serve --listen 127.0.0.1:0 --metrics-listen 127.0.0.1:0 "$@" 2>"$log" &
	EXTDNS_PID=$!
	EXTDNS_PIDS+=("$EXTDNS_PID")
	if [ -z "${_EXTDNS_TRAPPED:-}" ]; then
		_EXTDNS_TRAPPED=1
		local prev
		prev=$(trap -p EXIT | sed "s/^trap -- '\(.*\)' EXIT$/\1/")
		# shellcheck disable=SC2064
		trap "extdns_cleanup; $prev" EXIT
	fi
	for i in $(seq 1 100); do
		api=$(sed -n 's/.*webhook on \(127\.0\.0\.1:[0-9]*\).*/\1/p' "$log" | head -n1)
		mon=$(sed -n 's/.*\/metrics on \(127\.0\.0\.1:[0-9]*\).*/\1/p' "$log" | head -n1)
		[ -n "$api" ] && [ -n "$mon" ] && break
		kill -0 "$EXTDNS_PID" 2>/dev/null || break
		sleep 0.05
	done
	if [ -z "$api" ]; then
		echo "dnsbatch serve did not start:" >&2
		cat "$log" >&2
		return 1
	fi
	EXTDNS_API=http://$api
	EXTDNS_MON=http://$mon
}

extdns_stop() {
	kill -TERM "$EXTDNS_PID" 2>/dev/null
	wait "$EXTDNS_PID"
	EXTDNS_EXIT=$?
	local keep=() pid
	for pid in "${EXTDNS_PIDS[@]}"; do
		[ "$pid" = "$EXTDNS_PID" ] || keep+=("$pid")
	done
	EXTDNS_PIDS=("${keep[@]}")
}

extdns_wait_ready() {
	local n=$(( ${1:-10} * 20 )) i
	for i in $(seq 1 "$n"); do
		[ "$(curl -s -o /dev/null -w '%{http_code}' "$EXTDNS_MON/healthz")" = 200 ] && return 0
		sleep 0.05
	done
	return 1
}

extdns_metric() {
	curl -s "$EXTDNS_MON/metrics" | awk -v s="$1" 'index($0, s " ") == 1 { v = $NF } END { print v + 0 }'
}

extdns_on_providers() {
	local suite=$1 zone=$2 dir=$3
	cp "$zone" "$dir/example.test.zone"
	"$suite" zonefile --provider zonefile --zonefile "example.test=$dir/example.test.zone"
	if ! command -v named >/dev/null || ! command -v tsig-keygen >/dev/null; then
		echo "not ok - named and tsig-keygen are installed (apt-get install bind9 bind9-utils)"
		EXTDNS_FAILED=$((EXTDNS_FAILED + 1))
	elif ! dnsb_tsig_keygen "$dir/key.conf" || ! dnsb_start_named example.test "$zone" "$dir/key.conf"; then
		echo "not ok - named starts"
		EXTDNS_FAILED=$((EXTDNS_FAILED + 1))
	else
		"$suite" rfc2136 --provider rfc2136 --rfc2136-host 127.0.0.1 --rfc2136-port "$DNSB_SERVER_PORT" \
			--rfc2136-zone example.test --rfc2136-tsig-keyfile "$dir/key.conf"
	fi
}
