# checks.sh - sourced by the provider tests (test_google.sh, test_pdns.sh,
# test_rfc2136.sh, test_aws.sh): one "ok - NAME" / "not ok - NAME" line per
# check (scripts/run-tests.sh counts them), the plans the checks send, and
# readers of what `dnsbatch apply` left (its JSON report in $T/NAME.json, its
# drop log in $T/NAME.drops; T is the calling test's temp dir).
# shellcheck shell=bash

failures=0

# test_begin: the opening the test scripts share (source this file as "$(dirname "$0")/checks.sh", then call it):
# unset variables are errors, the C locale, the repository root as the working directory ($ROOT), $BUILD (the
# build directory, default build) and $DNSBATCH, the binary under test (default $ROOT/$BUILD/dnsbatch)
test_begin() {
	set -u
	export LC_ALL=C
	cd "$(dirname "$0")/../.." || exit 1
	ROOT=$PWD
	BUILD=${BUILD:-build}
	case $BUILD in
	/*) DNSBATCH=${DNSBATCH:-$BUILD/dnsbatch} ;;
	*) DNSBATCH=${DNSBATCH:-$ROOT/$BUILD/dnsbatch} ;;
	esac
}

ok() { echo "ok - $1"; }
# needs TOOL...: each command is installed; else one failed check, and the test stops
needs() {
	local tool
	for tool in "$@"; do
		command -v "$tool" >/dev/null 2>&1 || { not_ok "tool $tool is installed"; exit 1; }
	done
}
# scratch: the test's temp dir $T, and PIDS, the processes it starts: at exit those are stopped and $T
# removed (DNSB_KEEP_TMP=1 keeps it); a redis-server of redis.sh (REDIS_DIR set) is stopped first, by its
# pidfile, as a subshell may have started it again
scratch() {
	T=$(mktemp -d)
	PIDS=()
	trap scratch_cleanup EXIT
}
scratch_cleanup() {
	local pid
	[ -n "${REDIS_DIR:-}" ] && declare -F stop_redis >/dev/null && stop_redis
	for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null; done
	if [ "${DNSB_KEEP_TMP:-0}" = 1 ]; then echo "# kept $T"; else rm -rf "$T"; fi
}
# not_ok NAME [DETAIL...]: a failed check, with detail lines
not_ok() {
	echo "not ok - $1"
	shift
	[ $# -gt 0 ] && printf '#   %s\n' "$@"
	failures=$((failures + 1))
}
# eq NAME ACTUAL EXPECTED
eq() { if [ "$2" = "$3" ]; then ok "$1"; else not_ok "$1" "expected: $3" "got:      $2"; fi; }
# check NAME CMD...: CMD succeeds
check() { local name=$1; shift; if "$@"; then ok "$name"; else not_ok "$name"; fi; }
# ge NAME ACTUAL MIN, le NAME ACTUAL MAX: numbers
ge() { if awk -v a="$2" -v b="$3" 'BEGIN { exit !(a + 0 >= b + 0) }'; then ok "$1"; else not_ok "$1" "expected >= $3" "got:      $2"; fi; }
le() { if awk -v a="$2" -v b="$3" 'BEGIN { exit !(a + 0 <= b + 0) }'; then ok "$1"; else not_ok "$1" "expected <= $3" "got:      $2"; fi; }

# ep NAME TYPE TTL TARGET...: an endpoint as external-dns sends it
ep() {
	local name=$1 type=$2 ttl=$3
	shift 3
	jq -cn --arg n "$name" --arg t "$type" --argjson ttl "$ttl" '$ARGS.positional as $targets |
		{dnsName: $n, targets: $targets, recordType: $t, recordTTL: $ttl, labels: {}}' --args "$@"
}
# alias_ep NAME TYPE TARGET [HEALTH [TTL]]: an alias endpoint as external-dns writes it for Route53
# (providerSpecific alias=true; aws/evaluate-target-health only when HEALTH is given; TTL 300 unless given)
alias_ep() {
	jq -cn --arg n "$1" --arg t "$2" --arg target "$3" --arg h "${4:-}" --argjson ttl "${5:-300}" '{dnsName: $n,
		targets: [$target], recordType: $t, recordTTL: $ttl, labels: {}, providerSpecific: ([{name: "alias", value: "true"}] +
		(if $h == "" then [] else [{name: "aws/evaluate-target-health", value: $h}] end))}'
}
# plan FILE create='[..]' updateOld='[..]' updateNew='[..]' delete='[..]'
plan() {
	local file=$1 create='[]' old='[]' new='[]' del='[]' kv
	shift
	for kv in "$@"; do
		case $kv in
		create=*) create=${kv#create=} ;;
		updateOld=*) old=${kv#updateOld=} ;;
		updateNew=*) new=${kv#updateNew=} ;;
		delete=*) del=${kv#delete=} ;;
		esac
	done
	jq -n --argjson c "$create" --argjson o "$old" --argjson n "$new" --argjson d "$del" \
		'{create: $c, updateOld: $o, updateNew: $n, delete: $d}' >"$file"
}
# list JSON...: a JSON array of the arguments
list() { local IFS=,; echo "[$*]"; }
# group3 NAME: the three creations of one external-dns group at NAME.example.com, as list items: its A
# (203.0.113.7, TTL 300), its new-format (a-NAME) and its old-format (NAME) ownership TXT
group3() {
	local v="\"heritage=external-dns,external-dns/owner=default,external-dns/resource=service/default/$1\""
	jq -cn --arg n "$1.example.com" --arg v "$v" '[
		{dnsName: $n, targets: ["203.0.113.7"], recordType: "A", recordTTL: 300},
		{dnsName: ("a-" + $n), targets: [$v], recordType: "TXT", recordTTL: 300, labels: {ownedRecord: $n}},
		{dnsName: $n, targets: [$v], recordType: "TXT", recordTTL: 300, labels: {ownedRecord: $n}}] | .[]' | paste -sd, -
}
# whole_group_plan FILE ZONE: four groups of three (group3 gr-a, gr-n, gr-o, gr-i) as a plan in FILE, and on stdout
# the records ("ZONE OWNER TTL TYPE RDATA") that put one member of each in the way: the A (gr-a), the new-format TXT
# (gr-n), the old-format TXT (gr-o), and the new-format TXT beside an A already in effect (gr-i)
whole_group_plan() {
	plan "$1" create="[$(group3 gr-a),$(group3 gr-n),$(group3 gr-o),$(group3 gr-i)]"
	printf '%s %s\n' "$2" 'gr-a.example.com. 300 A 198.51.100.9' "$2" 'a-gr-n.example.com. 300 TXT "someone-else"' \
		"$2" 'gr-o.example.com. 300 TXT "someone-else"' "$2" 'gr-i.example.com. 300 A 203.0.113.7' \
		"$2" 'a-gr-i.example.com. 300 TXT "someone-else"'
}
# whole_group_checks: apply "whole" of whole_group_plan dropped every group whole and wrote none of their members
# (zone, the fake's records, has the gr-i A that was there only); the A in effect is dropped with its group
whole_group_checks() {
	eq "whole: every group with a member in the way drops whole (exit 3)" "$RC $(counts whole)" "3 12 0 0 12 0"
	zone >"$T/whole.zone"
	eq "whole: no member of any group was written" "$(grep -c 'service/default/gr-\|203\.0\.113\.7' "$T/whole.zone")" 1
	eq "whole: the A in effect is dropped with its group" \
		"$(jq -r 'select(.change.create[0].dnsName == "gr-i.example.com" and .change.create[0].recordType == "A") |
			.message' "$T/whole.drops" | grep -c 'dropped with its group')" 1
}
# mixed_plan FILE: a plan with every conflict kind over a zone holding www (A 192.0.2.1), alias (CNAME www),
# stale (A), moved (A 192.0.2.30) and keep (TXT "v=1"): two creates that apply (good, good-txt), one already in
# effect (www), two in the way (an A at the CNAME alias, a CNAME at the A stale), an update from a stale old value
# (moved), one that applies (keep: value and TTL), a delete of what is not there (gone)
mixed_plan() {
	plan "$1" \
		create="$(list "$(ep good.example.com A 300 192.0.2.50 192.0.2.51)" "$(ep www.example.com A 300 192.0.2.1)" \
			"$(ep alias.example.com A 300 192.0.2.9)" "$(ep stale.example.com CNAME 300 www.example.com)" \
			"$(ep good-txt.example.com TXT 300 '"hello world"')")" \
		updateOld="$(list "$(ep moved.example.com A 300 192.0.2.99)" "$(ep keep.example.com TXT 300 '"v=1"')")" \
		updateNew="$(list "$(ep moved.example.com A 300 192.0.2.31)" "$(ep keep.example.com TXT 600 '"v=2"')")" \
		delete="$(list "$(ep gone.example.com A 300 192.0.2.40)")"
}
# creates FILE N PREFIX DOMAIN NET: N A-record creations PREFIX0.DOMAIN .. PREFIX(N-1).DOMAIN,
# addresses NET.x.y (NET: two octets, "10.0")
creates() {
	jq -n --argjson n "$2" --arg p "$3" --arg d "$4" --arg net "$5" '{create: [range($n) | {dnsName: "\($p)\(.).\($d)",
		recordType: "A", recordTTL: 300, labels: {}, targets: ["\($net).\(. / 256 | floor).\(. % 256)"]}],
		updateOld: [], updateNew: [], delete: []}' >"$1"
}

# mixed_precheck_drops: apply "mixed" of mixed_plan dropped its three conflicts in the pre-check read, each with
# its cause: the A at the CNAME alias and the CNAME at the A stale (cname), the update of moved from a stale value
mixed_precheck_drops() {
	eq "mixed: A beside a CNAME: dropped by the pre-check" "$(drop mixed alias.example.com cause)" \
		"dropped conflict 0 precheck cname"
	eq "mixed: CNAME beside an A: dropped by the pre-check" "$(drop mixed stale.example.com cause)" \
		"dropped conflict 0 precheck cname"
	eq "mixed: update of other values: dropped (pre-check)" "$(drop mixed moved.example.com cause)" \
		"dropped conflict 0 precheck differs"
}
# zone_head ORIGIN [ADDRESS]: the first lines of a zone file for ORIGIN (no final dot): $ORIGIN, $TTL 300, its SOA
# (serial 1), NS ns1.ORIGIN. and ns1's A (192.0.2.53 unless ADDRESS). { zone_head ORIGIN; cat; } >FILE <<EOF
# puts the zone's own records after them
zone_head() {
	printf '$ORIGIN %s.\n$TTL 300\n@ IN SOA ns1.%s. hostmaster.%s. 1 7200 3600 1209600 300\n@ IN NS ns1.%s.\n' \
		"$1" "$1" "$1" "$1"
	printf 'ns1 IN A %s\n' "${2:-192.0.2.53}"
}
# registry_txt OWNER RESOURCE: the value of an external-dns registry TXT record (quoted) for OWNER and RESOURCE
registry_txt() { printf '"heritage=external-dns,external-dns/owner=%s,external-dns/resource=%s"' "$1" "$2"; }

# counts NAME: "changes applied already_applied dropped failed" of the last apply NAME
counts() { jq -r '"\(.changes) \(.applied) \(.already_applied) \(.dropped) \(.failed)"' "$T/$1.json" 2>/dev/null; }
# rep NAME JQ: a field of apply NAME's report
rep() { jq -r "$2" "$T/$1.json" 2>/dev/null; }
# drop NAME DNSNAME [cause]: "outcome reason status code" of DNSNAME's drop log line (and its cause)
drop() {
	jq -r --arg n "$2" --arg c "${3:-}" 'select([.change[][]?.dnsName] | index($n)) |
		"\(.outcome) \(.reason) \(.status) \(.code // "")" + (if $c == "cause" then " \(.cause // "")" else "" end)' \
		"$T/$1.drops" | head -1
}

# fake_started NAME PID: wait (10 s at most) for the fake started as NAME to write its port to
# $T/NAME.port; sets PORT, FAKE_PID and adds PID to PIDS (killed at exit). @return 1, with a
# failed check showing its stderr ($T/NAME.fake.err), when it never does
fake_started() {
	local i
	FAKE_PID=$2
	PIDS+=("$FAKE_PID")
	for ((i = 0; i < 200; i++)); do
		[ -s "$T/$1.port" ] && break
		sleep 0.05
	done
	PORT=$(cat "$T/$1.port" 2>/dev/null)
	[ -n "$PORT" ] && return 0
	not_ok "$1: the fake starts" "$(cat "$T/$1.fake.err")"
	return 1
}

# clean_run HOME [VAR=VALUE...] -- ARGS...: $DNSBATCH ARGS in a clean environment (env -i), as the cloud fakes' tests
# run it: PATH, HOME, the C locale, the sanitizers' options when set, the VARs and $CREDS (an array: the credential
# variables of the next runs); no other variable reaches it, so a credential the test did not give is not found
clean_run() {
	local home=$1 vars=()
	shift
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		vars+=("$1")
		shift
	done
	shift
	env -i PATH="$PATH" HOME="$home" LC_ALL=C ${ASAN_OPTIONS:+ASAN_OPTIONS=$ASAN_OPTIONS} \
		${UBSAN_OPTIONS:+UBSAN_OPTIONS=$UBSAN_OPTIONS} "${vars[@]}" "${CREDS[@]}" "$DNSBATCH" "$@"
}

# tls_pki: a test CA ($T/ca.pem), another CA ($T/other-ca.pem: a wrong trust anchor) and a server certificate
# for 127.0.0.1 signed by the first ($T/server.pem, $T/server.key), made with the openssl CLI
tls_pki() {
	openssl req -x509 -newkey rsa:2048 -nodes -keyout "$T/ca.key" -out "$T/ca.pem" -days 2 -subj /CN=dnsbatch-test-ca &&
	openssl req -x509 -newkey rsa:2048 -nodes -keyout "$T/other-ca.key" -out "$T/other-ca.pem" -days 2 \
		-subj /CN=dnsbatch-other-ca &&
	openssl req -newkey rsa:2048 -nodes -keyout "$T/server.key" -out "$T/server.csr" -subj /CN=127.0.0.1 &&
	printf 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\nbasicConstraints=CA:FALSE\n' >"$T/ext.cnf" &&
	openssl x509 -req -in "$T/server.csr" -CA "$T/ca.pem" -CAkey "$T/ca.key" -CAcreateserial -out "$T/server.pem" \
		-days 2 -extfile "$T/ext.cnf"
}

# fake_needs IMPORT PACKAGE TOOL...: what a test against one of tests/fakes/ needs before it starts:
# each TOOL installed, `python3 -c "import IMPORT"` working (else "PACKAGE is installed"; IMPORT ""
# for a fake that is no Python program) and $DNSBATCH built; the first missing is one failed check,
# and the test stops
fake_needs() {
	local import=$1 package=$2
	shift 2
	needs "$@"
	[ -z "$import" ] || python3 -c "import $import" 2>/dev/null ||
		{ not_ok "$package is installed (make deps)"; exit 1; }
	[ -x "$DNSBATCH" ] || { not_ok "$DNSBATCH is built (make tests)"; exit 1; }
}
# fake_begin IMPORT PACKAGE TOOL...: the start of a test against one of tests/fakes/: fake_needs, then fake_scratch
fake_begin() {
	fake_needs "$@"
	fake_scratch
}
# fake_scratch: scratch, the certificates of tls_pki in $T and an empty $T/home (the HOME of the
# runs); a failed tls_pki is one failed check, and the test stops
fake_scratch() {
	scratch
	tls_pki >"$T/pki.log" 2>&1 ||
		{ not_ok "openssl makes the test CA and certificate" "$(tail -3 "$T/pki.log")"; exit 1; }
	mkdir -p "$T/home"
}

# install_tree DIR: make install of $BUILD with DESTDIR=DIR PREFIX=/opt/dnsbatch (under SANITIZED=1 with the
# sanitizer flags: the shared library then links from sanitized objects); one check, make's output in DIR.log
install_tree() {
	local san=()
	[ "${SANITIZED:-0}" = 1 ] && san=(SAN=1 OPT="-O1 -g")
	if make -s --no-print-directory BUILD="$BUILD" "${san[@]}" install DESTDIR="$1" PREFIX=/opt/dnsbatch \
		>"$1.log" 2>&1; then
		ok "make install DESTDIR=... PREFIX=/opt/dnsbatch"
	else
		not_ok "make install DESTDIR=... PREFIX=/opt/dnsbatch" "$(tail -20 "$1.log")"
	fi
}
# user_program DIR OUT: tests/integration/user_program.c (a plan applied through the public API) built as OUT with
# `pkg-config --cflags --libs dnsbatch` against the dnsbatch.pc that install_tree put in DIR, -Wall -Werror (under
# SANITIZED=1 with the sanitizer runtime, which the sanitized library needs); one check
user_program() {
	local san=() pc=$1/opt/dnsbatch/lib/pkgconfig
	[ "${SANITIZED:-0}" = 1 ] && san=("-fsanitize=address,undefined")
	# shellcheck disable=SC2046
	if cc -std=c11 -Wall -Werror "${san[@]}" -o "$2" tests/integration/user_program.c \
		$(PKG_CONFIG_PATH="$pc" PKG_CONFIG_SYSROOT_DIR="$1" pkg-config --cflags --libs dnsbatch) 2>"$2.log"; then
		ok "a program builds with pkg-config --cflags --libs dnsbatch (the installed dnsbatch.pc)"
	else
		not_ok "a program builds with pkg-config --cflags --libs dnsbatch" "$(cat "$2.log")"
	fi
}
# version_h: DNSBATCH_VERSION of include/dnsbatch/version.h
version_h() { sed -n 's/^#define DNSBATCH_VERSION "\(.*\)"/\1/p' include/dnsbatch/version.h; }
