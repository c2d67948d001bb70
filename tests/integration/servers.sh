# shellcheck shell=bash
#
# servers.sh - start real DNS servers (BIND named, Knot knotd) on free
# loopback ports in temp dirs, for integration tests and benchmarks.
#
# Source it from bash:   . tests/integration/servers.sh
#
# Functions (each returns 0 on success, non-zero with a message on stderr):
#
#   dnsb_servers_init
#       Create the run's scratch dir ($DNSB_SERVERS_TMP) and install a trap
#       on EXIT/INT/TERM that stops every server started here (by PID) and
#       removes the scratch dir. A caller with its own EXIT trap must call
#       dnsb_servers_cleanup from it instead (set DNSB_SERVERS_NOTRAP=1
#       before dnsb_servers_init to skip installing ours).
#       Set DNSB_KEEP_TMP=1 to keep the scratch dir for post-mortems.
#
#   dnsb_free_port
#       Print a port on 127.0.0.1 that has no TCP or UDP listener now.
#       (Racy by nature: the start functions retry with a new port when the
#       server cannot bind.)
#
#   dnsb_tsig_keygen FILE [NAME] [ALG]
#       Write a BIND key file with tsig-keygen (NAME default "dnsbatch-key",
#       ALG default hmac-sha256), mode 0600.
#
#   dnsb_keyfile_name FILE / dnsb_keyfile_alg FILE / dnsb_keyfile_secret FILE
#       Print the key name, algorithm or base64 secret from a BIND key file.
#       (Only for configuring servers: never pass the secret in argv.)
#
#   dnsb_start_named ZONE ZONEFILE KEYFILE [ZONE2 ZONEFILE2 ...]
#   dnsb_start_knotd ZONE ZONEFILE KEYFILE [ZONE2 ZONEFILE2 ...]
#       Copy each ZONEFILE into a fresh dir, start the server as primary for
#       each ZONE (updates and AXFR allowed only with the key in KEYFILE) on
#       a free port, and wait until it answers SOA for every zone. On return:
#         DNSB_SERVER_PORT  the port (TCP and UDP, 127.0.0.1)
#         DNSB_SERVER_PID   the server's PID
#         DNSB_SERVER_DIR   its dir (config, zone, log: named.log / knotd.log)
#       Both keep dynamic updates in memory/journal; read the zone with
#       dnsb_axfr, not from the zone file.
#
#   dnsb_wait_dns PORT ZONE [SECONDS] [PID]
#       Wait (default 10 s) until 127.0.0.1:PORT answers SOA for ZONE;
#       fail early when PID is given and the process has died.
#
#   dnsb_stop_pid PID
#       Stop one server: SIGTERM, wait up to 5 s, then SIGKILL. Forgets it.
#
#   dnsb_track_pid PID
#       Have dnsb_servers_cleanup stop another background process too (a
#       proxy, a sidecar) started by the caller.
#
#   dnsb_servers_cleanup
#       Stop every server started here and remove the scratch dir.
#
#   dnsb_axfr PORT ZONE KEYFILE
#       Print the zone's records by AXFR signed with the key, one per line,
#       sorted, without SOA/NS and without the TSIG record:
#       "owner TTL type rdata" (dig output without class).
#
#   dnsb_start_pdns ZONE [ZONE2 ...]
#       Start PowerDNS Authoritative (pdns_server, gsqlite3 backend, schema
#       from Debian's pdns-backend-sqlite3) in a fresh dir, DNS and the HTTP
#       API on two free ports, the API key random (in a mode 0600 file);
#       create each ZONE as a Native zone through the API and wait until DNS
#       answers SOA for it. On return:
#         DNSB_SERVER_PORT  the DNS port (TCP and UDP, 127.0.0.1)
#         DNSB_SERVER_PID   the server's PID
#         DNSB_SERVER_DIR   its dir (pdns.conf, pdns.sqlite3, pdns.log)
#         DNSB_PDNS_URL     http://127.0.0.1:HTTPPORT, the API's base URL
#         DNSB_PDNS_KEYFILE the file holding the API key
#
#   dnsb_test_pdns ZONE TOOL...
#       A test script's start with one PowerDNS server (test_pdns.sh,
#       test_pdns_setup.sh; checks.sh sourced first): each TOOL installed,
#       $DNSBATCH built, dnsb_servers_init, T=$DNSB_SERVERS_TMP, then
#       dnsb_start_pdns ZONE. Any of them missing or failing: one failed check
#       (not_ok) and exit 1.
#
#   dnsb_restart_pdns DIR
#       Start the server of DIR again (same ports, same database) after
#       dnsb_stop_pid stopped it; sets DNSB_SERVER_PID.
#
#   dnsb_nsupdate PORT KEYFILE  (update script on stdin)
#       Run nsupdate against 127.0.0.1:PORT signed with the key file
#       (no "server" line needed in the script; "send" is).
#
# Everything runs as the current user, in $DNSB_SERVERS_TMP (under $TMPDIR).
# Set LC_ALL=C for a stable dnsb_axfr order.
#
# Example:
#   . tests/integration/servers.sh
#   dnsb_servers_init
#   dnsb_tsig_keygen "$DNSB_SERVERS_TMP/key.conf"
#   dnsb_start_named example.test my.zone "$DNSB_SERVERS_TMP/key.conf" || exit 1
#   build/dnsbatch apply --plan p.json --provider rfc2136 --rfc2136-host 127.0.0.1 \
#       --rfc2136-port "$DNSB_SERVER_PORT" --rfc2136-zone example.test \
#       --rfc2136-tsig-keyfile "$DNSB_SERVERS_TMP/key.conf"
#   dnsb_axfr "$DNSB_SERVER_PORT" example.test "$DNSB_SERVERS_TMP/key.conf"
#   # named is stopped by PID when the script exits, also on failure.

DNSB_SERVERS_TMP=${DNSB_SERVERS_TMP:-}
DNSB_SERVERS_PIDS=()

dnsb_servers_init() {
	if [ -z "$DNSB_SERVERS_TMP" ]; then
		DNSB_SERVERS_TMP=$(mktemp -d "${TMPDIR:-/tmp}/dnsbatch-servers.XXXXXX") || return 1
	fi
	if [ -z "${DNSB_SERVERS_NOTRAP:-}" ]; then
		trap 'dnsb_servers_cleanup' EXIT
		trap 'dnsb_servers_cleanup; exit 130' INT
		trap 'dnsb_servers_cleanup; exit 143' TERM
	fi
}

dnsb_stop_pid() {
	local pid=$1 i
	[ -n "$pid" ] || return 0
	if kill -0 "$pid" 2>/dev/null; then
		kill -TERM "$pid" 2>/dev/null
		for ((i = 0; i < 50; i++)); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
		kill -0 "$pid" 2>/dev/null && kill -KILL "$pid" 2>/dev/null
	fi
	wait "$pid" 2>/dev/null
	local kept=() p
	for p in "${DNSB_SERVERS_PIDS[@]}"; do
		[ "$p" = "$pid" ] || kept+=("$p")
	done
	DNSB_SERVERS_PIDS=("${kept[@]}")
	return 0
}

dnsb_track_pid() {
	DNSB_SERVERS_PIDS+=("$1")
}

dnsb_servers_cleanup() {
	local p
	for p in "${DNSB_SERVERS_PIDS[@]}"; do
		dnsb_stop_pid "$p"
	done
	DNSB_SERVERS_PIDS=()
	if [ -n "$DNSB_SERVERS_TMP" ] && [ -d "$DNSB_SERVERS_TMP" ]; then
		if [ -n "${DNSB_KEEP_TMP:-}" ]; then
			echo "# kept $DNSB_SERVERS_TMP" >&2
		else
			rm -rf "$DNSB_SERVERS_TMP"
		fi
	fi
	return 0
}

# Is anything listening on 127.0.0.1:$1 (TCP or UDP)?
dnsb_port_busy() {
	local port=$1
	if command -v ss >/dev/null 2>&1; then
		ss -Hltun "sport = :$port" 2>/dev/null | grep -q . && return 0
		return 1
	fi
	(exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null
}

# dnsb_wait_port PORT: wait (up to 5 s) until something listens on 127.0.0.1:PORT. @return 0, or 1 when nothing did
dnsb_wait_port() {
	local i
	for ((i = 0; i < 100; i++)); do
		dnsb_port_busy "$1" && return 0
		sleep 0.05
	done
	return 1
}

# dnsb_wait_healthz PID PORT: wait (up to 10 s) until the dnsbatch serve of PID answers GET /healthz on
# 127.0.0.1:PORT (its --metrics-listen). @return 0, or 1 when it did not or exited first
dnsb_wait_healthz() {
	local i
	for ((i = 0; i < 200; i++)); do
		curl -sf -o /dev/null "http://127.0.0.1:$2/healthz" && return 0
		kill -0 "$1" 2>/dev/null || return 1
		sleep 0.05
	done
	return 1
}

dnsb_free_port() {
	local i port
	for ((i = 0; i < 200; i++)); do
		# Stay below the Linux ephemeral range (32768+) so that outgoing
		# connections do not take the port between pick and bind; avoid 5353.
		port=$((20000 + (RANDOM % 12000)))
		[ "$port" = 5353 ] && continue
		dnsb_port_busy "$port" || { echo "$port"; return 0; }
	done
	echo "dnsb_free_port: no free port found" >&2
	return 1
}

dnsb_tsig_keygen() {
	local file=$1 name=${2:-dnsbatch-key} alg=${3:-hmac-sha256}
	(umask 077 && tsig-keygen -a "$alg" "$name" >"$file") || {
		echo "dnsb_tsig_keygen: tsig-keygen -a $alg $name failed" >&2
		return 1
	}
}

dnsb_keyfile_name() { sed -n 's/^[[:space:]]*key[[:space:]]*"\([^"]*\)".*/\1/p' "$1" | head -n1; }
dnsb_keyfile_alg() { sed -n 's/^[[:space:]]*algorithm[[:space:]]*\([^;[:space:]]*\).*/\1/p' "$1" | head -n1; }
dnsb_keyfile_secret() { sed -n 's/^[[:space:]]*secret[[:space:]]*"\([^"]*\)".*/\1/p' "$1" | head -n1; }

dnsb_wait_dns() {
	local port=$1 zone=$2 secs=${3:-10} pid=${4:-} i
	for ((i = 0; i < secs * 20; i++)); do
		if [ -n "$pid" ] && ! kill -0 "$pid" 2>/dev/null; then
			return 2
		fi
		if dig +norec +tries=1 +time=1 -p "$port" @127.0.0.1 "$zone" SOA 2>/dev/null |
			grep -q 'status: NOERROR'; then
			return 0
		fi
		sleep 0.05
	done
	echo "dnsb_wait_dns: 127.0.0.1:$port did not answer for $zone within ${secs}s" >&2
	return 1
}

# Common tail of the start functions: start "$@" in the background with its
# output in $log, register the PID, wait for it. Return 2 when the process
# died (e.g. the port was taken), so the caller can retry.
dnsb_launch() {
	local log=$1 port=$2 zone=$3
	shift 3
	"$@" >"$log" 2>&1 &
	local pid=$!
	DNSB_SERVERS_PIDS+=("$pid")
	if dnsb_wait_dns "$port" "$zone" 10 "$pid"; then
		DNSB_SERVER_PID=$pid
		DNSB_SERVER_PORT=$port
		return 0
	fi
	local rc=$?
	dnsb_stop_pid "$pid"
	return "$rc"
}

dnsb_newdir() {
	[ -n "$DNSB_SERVERS_TMP" ] || dnsb_servers_init || return 1
	mktemp -d "$DNSB_SERVERS_TMP/$1.XXXXXX"
}

# Parse "ZONE ZONEFILE KEYFILE [ZONE2 ZONEFILE2 ...]" into DNSB_ZONES, DNSB_ZONEFILES, DNSB_KEYFILE.
dnsb_zone_args() {
	DNSB_ZONES=("${1%.}")
	DNSB_ZONEFILES=("$2")
	DNSB_KEYFILE=$3
	shift 3
	while [ $# -ge 2 ]; do
		DNSB_ZONES+=("${1%.}")
		DNSB_ZONEFILES+=("$2")
		shift 2
	done
	if [ $# -ne 0 ]; then
		echo "servers.sh: zone '$1' has no zone file" >&2
		return 1
	fi
}

# Wait for the zones after the first (dnsb_launch waited for that one).
dnsb_wait_zones() {
	local z
	for z in "${DNSB_ZONES[@]:1}"; do
		dnsb_wait_dns "$DNSB_SERVER_PORT" "$z" 10 "$DNSB_SERVER_PID" || return 1
	done
}

# dnsb_start_server NAME DIR WRITE CMD...: start the server CMD (in the foreground) for the zones of DNSB_ZONES, up
# to 5 tries, each on a new free port: WRITE DIR PORT writes its configuration (non-zero: no more tries), CMD runs
# with its output in DIR/NAME.log and is waited for until it answers SOA for every zone; a server that died (its
# port taken) is tried again on another. @return 0 with DNSB_SERVER_PORT, DNSB_SERVER_PID and DNSB_SERVER_DIR set;
# 1, the log's tail on stderr
dnsb_start_server() {
	local name=$1 dir=$2 write=$3 port attempt rc
	shift 3
	for ((attempt = 0; attempt < 5; attempt++)); do
		port=$(dnsb_free_port) || return 1
		"$write" "$dir" "$port" || return 1
		dnsb_launch "$dir/$name.log" "$port" "${DNSB_ZONES[0]}" "$@"
		rc=$?
		if [ "$rc" = 0 ]; then
			DNSB_SERVER_DIR=$dir
			dnsb_wait_zones && return 0
			dnsb_stop_pid "$DNSB_SERVER_PID"
			break
		fi
		# Retry on another port only when the process died (port taken).
		[ "$rc" = 2 ] || break
	done
	echo "dnsb_start_$name: $name did not start; log $dir/$name.log:" >&2
	tail -n 20 "$dir/$name.log" >&2
	return 1
}

dnsb_named_conf() {
	local dir=$1 port=$2 keyname=$3 i
	cat <<EOF
include "$dir/key.conf";
options {
	directory "$dir/data";
	pid-file "$dir/data/named.pid";
	session-keyfile "$dir/data/session.key";
	listen-on port $port { 127.0.0.1; };
	listen-on-v6 { none; };
	recursion no;
	allow-query { 127.0.0.1; };
	dnssec-validation no;
	notify no;
};
controls { };
EOF
	for i in "${!DNSB_ZONES[@]}"; do
		cat <<EOF
zone "${DNSB_ZONES[$i]}" {
	type primary;
	file "$dir/data/zone$i.db";
	allow-update { key "$keyname"; };
	allow-transfer { key "$keyname"; };
};
EOF
	done
}

# dnsb_named_write DIR PORT: DIR/named.conf for PORT (the key of DNSB_KEYFILE)
dnsb_named_write() {
	dnsb_named_conf "$1" "$2" "$(dnsb_keyfile_name "$DNSB_KEYFILE")" >"$1/named.conf"
}

dnsb_start_named() {
	local dir i user=()
	dnsb_zone_args "$@" || return 1
	dir=$(dnsb_newdir named) || return 1
	mkdir -p "$dir/data"
	for i in "${!DNSB_ZONES[@]}"; do
		cp "${DNSB_ZONEFILES[$i]}" "$dir/data/zone$i.db" || return 1
	done
	cp "$DNSB_KEYFILE" "$dir/key.conf" || return 1
	[ "$(id -u)" = 0 ] && user=(-u root)
	dnsb_start_server named "$dir" dnsb_named_write named -g "${user[@]}" -c "$dir/named.conf"
}

dnsb_knot_conf() {
	local dir=$1 port=$2 keyfile=$3 i
	cat <<EOF
server:
    rundir: "$dir/run"
    listen: 127.0.0.1@$port
database:
    storage: "$dir/storage"
    journal-db-max-size: 256M
    kasp-db-max-size: 16M
    timer-db-max-size: 16M
    catalog-db-max-size: 16M
log:
  - target: stderr
    any: info
key:
  - id: $(dnsb_keyfile_name "$keyfile")
    algorithm: $(dnsb_keyfile_alg "$keyfile")
    secret: $(dnsb_keyfile_secret "$keyfile")
acl:
  - id: dnsbatch_update
    key: $(dnsb_keyfile_name "$keyfile")
    action: [update, transfer]
template:
  - id: default
    storage: "$dir/storage"
    zonefile-sync: -1
    journal-content: all
zone:
EOF
	for i in "${!DNSB_ZONES[@]}"; do
		cat <<EOF
  - domain: ${DNSB_ZONES[$i]}
    file: zone$i.db
    acl: dnsbatch_update
EOF
	done
}

# dnsb_knotd_write DIR PORT: DIR/knot.conf for PORT (the key of DNSB_KEYFILE), checked by knotc
dnsb_knotd_write() {
	# The config holds the secret: readable by us only.
	(umask 077 && dnsb_knot_conf "$1" "$2" "$DNSB_KEYFILE" >"$1/knot.conf")
	if ! knotc -c "$1/knot.conf" conf-check >"$1/conf-check.log" 2>&1; then
		echo "dnsb_start_knotd: knot.conf rejected:" >&2
		cat "$1/conf-check.log" >&2
		return 1
	fi
}

dnsb_start_knotd() {
	local dir i
	dnsb_zone_args "$@" || return 1
	dir=$(dnsb_newdir knotd) || return 1
	mkdir -p "$dir/run" "$dir/storage"
	for i in "${!DNSB_ZONES[@]}"; do
		cp "${DNSB_ZONEFILES[$i]}" "$dir/storage/zone$i.db" || return 1
	done
	dnsb_start_server knotd "$dir" dnsb_knotd_write knotd -c "$dir/knot.conf"
}

dnsb_axfr() {
	local port=$1 zone=$2 keyfile=$3
	dig +nocmd +nostats +nocomments +noclass +tries=1 +time=5 -k "$keyfile" \
		-p "$port" @127.0.0.1 "$zone" AXFR |
		awk '$0 !~ /^;/ && NF && $3 != "SOA" && $3 != "NS" && $3 != "TSIG"' |
		sort -u
}

dnsb_nsupdate() {
	local port=$1 keyfile=$2
	{
		echo "server 127.0.0.1 $port"
		cat
	} | nsupdate -t 10 -k "$keyfile"
}

dnsb_pdns_conf() {
	local dir=$1 dnsport=$2 httpport=$3
	cat <<EOF
launch=gsqlite3
gsqlite3-database=$dir/pdns.sqlite3
api=yes
api-key=$(cat "$dir/api.key")
webserver=yes
webserver-address=127.0.0.1
webserver-port=$httpport
webserver-allow-from=127.0.0.1/32
local-address=127.0.0.1
local-port=$dnsport
socket-dir=$dir/run
setuid=
setgid=
EOF
}

# Start the server of DIR (its config written); wait for its API. Return 2 when it died (a port taken).
dnsb_pdns_launch() {
	local dir=$1 url i pid
	url=$(cat "$dir/url")
	pdns_server --config-dir="$dir" --daemon=no --guardian=no >>"$dir/pdns.log" 2>&1 &
	pid=$!
	DNSB_SERVERS_PIDS+=("$pid")
	for ((i = 0; i < 200; i++)); do
		if ! kill -0 "$pid" 2>/dev/null; then
			dnsb_stop_pid "$pid"
			return 2
		fi
		if curl -sf -o /dev/null -H "X-API-Key: $(cat "$dir/api.key")" "$url/api/v1/servers/localhost"; then
			DNSB_SERVER_PID=$pid
			return 0
		fi
		sleep 0.05
	done
	dnsb_stop_pid "$pid"
	return 1
}

dnsb_start_pdns() {
	local dir dnsport httpport attempt rc=1 z
	dir=$(dnsb_newdir pdns) || return 1
	mkdir -p "$dir/run"
	(umask 077 && head -c 18 /dev/urandom | base64 | tr '+/' '-_' >"$dir/api.key") || return 1
	sqlite3 "$dir/pdns.sqlite3" </usr/share/pdns-backend-sqlite3/schema/schema.sqlite3.sql || return 1
	for ((attempt = 0; attempt < 5; attempt++)); do
		dnsport=$(dnsb_free_port) || return 1
		httpport=$(dnsb_free_port) || return 1
		[ "$dnsport" = "$httpport" ] && continue
		(umask 077 && dnsb_pdns_conf "$dir" "$dnsport" "$httpport" >"$dir/pdns.conf")
		echo "http://127.0.0.1:$httpport" >"$dir/url"
		dnsb_pdns_launch "$dir"
		rc=$?
		[ "$rc" = 2 ] || break
	done
	if [ "$rc" != 0 ]; then
		echo "dnsb_start_pdns: pdns_server did not start; log $dir/pdns.log:" >&2
		tail -n 20 "$dir/pdns.log" >&2
		return 1
	fi
	DNSB_SERVER_DIR=$dir
	DNSB_SERVER_PORT=$dnsport
	DNSB_PDNS_URL=$(cat "$dir/url")
	DNSB_PDNS_KEYFILE=$dir/api.key
	for z in "$@"; do
		z=${z%.}.
		curl -sf -o /dev/null -H "X-API-Key: $(cat "$dir/api.key")" -H 'Content-Type: application/json' \
			-d "{\"name\":\"$z\",\"kind\":\"Native\",\"nameservers\":[\"ns1.$z\"]}" \
			"$DNSB_PDNS_URL/api/v1/servers/localhost/zones" || {
			echo "dnsb_start_pdns: creating zone $z through the API failed" >&2
			return 1
		}
		dnsb_wait_dns "$dnsport" "$z" 10 "$DNSB_SERVER_PID" || return 1
	done
}

dnsb_test_pdns() {
	local zone=$1
	shift
	needs "$@"
	if [ ! -x "$DNSBATCH" ]; then
		not_ok "$DNSBATCH is built (make tests)"
		exit 1
	fi
	dnsb_servers_init
	T=$DNSB_SERVERS_TMP
	if ! dnsb_start_pdns "$zone" 2>"$T/start.err"; then
		not_ok "pdns_server starts with the gsqlite3 backend" "$(cat "$T/start.err")"
		exit 1
	fi
}

dnsb_restart_pdns() {
	local dir=$1
	if ! dnsb_pdns_launch "$dir"; then
		echo "dnsb_restart_pdns: pdns_server did not start again; log $dir/pdns.log" >&2
		return 1
	fi
}
