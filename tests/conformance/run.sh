#!/usr/bin/env bash
#
# run.sh - the conformance suite: every scenario (scenarios/*.scn) on every provider, judged by judge.py against
# what the provider truly holds afterwards (tests/conformance/README.md says it all).
#
#   run.sh [--providers a,b] [--scenarios GLOB] [--random N | --with-random N] [--seed S] [--jobs J] [--quiet] [--keep]
#
# --random N: N random fault schedules per provider instead of the scenarios; --with-random N: the scenarios, then
# N schedules on the same servers; --jobs J: J providers at once; --quiet: one line for a scenario whose checks
# all passed.
# Prints "ok - PROVIDER SCENARIO CHECK" / "not ok - ..." lines (SKIP lines for scenarios a provider cannot meet),
# then per provider "conformance PROVIDER: N scenarios, F false outcomes" (random mode: "N schedules"). Exit 1 when
# any check failed. Env: BUILD (build), DNSBATCH (build/dnsbatch), DNSB_KEEP_TMP=1 keeps the temp dir,
# CONF_TIMING=1 prints the seconds each scenario and its steps (load, apply, truth and judge) took.
#
# Internal entry (the fault proxies' out-of-band writer): run.sh --oob PROVIDER STATEFILE RECORD
# shellcheck disable=SC2034 # PROXY_PORT, RC: set here and in the drivers for each other
set -u
export LC_ALL=C
CONF=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$CONF/../.." && pwd)
BUILD=${BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$ROOT/$BUILD ;; esac
DNSBATCH=${DNSBATCH:-$BUILD/dnsbatch}
ALL_PROVIDERS="zonefile memory bind knot pdns google route53 cloudflare azure akamai digitalocean"
# the judge reads names and RDATA with dnspython (Debian's python3-dnspython): the first python3 that has it
JUDGE_PY=python3
for py in python3 /usr/bin/python3; do
	if "$py" -c 'import dns.name' 2>/dev/null; then JUDGE_PY=$py; break; fi
done

##### helpers the drivers use ########################################################################################

# conf_servers: the servers a driver starts with tests/integration/servers.sh live under $T/servers and are stopped
# by its drv_stop (servers.sh sets no trap: run.sh's own stays)
conf_servers() {
	DNSB_SERVERS_NOTRAP=1
	DNSB_SERVERS_TMP=$T/servers
	mkdir -p "$DNSB_SERVERS_TMP"
}

# conf_wait_file FILE [SECONDS]: wait (10 s) for FILE to exist and be non-empty
conf_wait_file() {
	local i
	for ((i = 0; i < ${2:-10} * 20; i++)); do
		[ -s "$1" ] && return 0
		sleep 0.05
	done
	return 1
}

# conf_oob_cmd: the command (one word per line) a fault proxy runs for oob-before, RECORD appended by the proxy:
# this script's --oob entry with the driver's saved state (its DRV_* variables, saved by conf_save_state)
conf_oob_cmd() { printf '%s\n' bash "$CONF/run.sh" --oob "$PROVIDER" "$T/$PROVIDER.state"; }

# conf_save_state: save the driver's DRV_* variables (and T) for the --oob entry; run.sh calls it after drv_start
# and after each drv_load (a driver that changes them in drv_apply calls it again)
conf_save_state() {
	local vars
	vars=$(compgen -v DRV_ | tr '\n' ' ')
	{
		declare -p T PROVIDER
		[ -n "$vars" ] && declare -p $vars
	} >"$T/$PROVIDER.state" 2>/dev/null
}

# conf_http_proxy UPSTREAM FAULTFILE [proxy flags...]: start faultproxy_http.py in front of UPSTREAM with the
# scenario's faults (bodies from scenarios/bodies/PROVIDER, oob through drv_oob); sets PROXY_PORT, PROXY_PID (in
# PIDS); its request log is $T/proxy.log. Flags: --cert/--key (serve TLS), --upstream-ca, --ignore REGEX.
conf_http_proxy() {
	local upstream=$1 faults=$2 mapfile_cmd
	shift 2
	rm -f "$T/proxy.port"
	mapfile -t mapfile_cmd < <(conf_oob_cmd)
	python3 "$CONF/faultproxy_http.py" --upstream "$upstream" --port-file "$T/proxy.port" \
		${faults:+--faults "$faults"} --bodies "$CONF/scenarios/bodies/$PROVIDER" --log "$T/proxy.log" "$@" \
		-- "${mapfile_cmd[@]}" 2>>"$T/proxy.err" &
	PROXY_PID=$!
	PIDS+=("$PROXY_PID")
	conf_wait_file "$T/proxy.port" || { echo "faultproxy_http.py did not start: $(cat "$T/proxy.err")" >&2; return 1; }
	PROXY_PORT=$(cat "$T/proxy.port")
}

# conf_dns_proxy SERVERPORT FAULTFILE [KEYFILE]: start faultproxy_dns.py in front of a DNS server (TCP: dnsbatch's
# rfc2136 provider sends every message over TCP), TSIG with the BIND key file; sets PROXY_PORT, PROXY_PID (in PIDS)
conf_dns_proxy() {
	local upstream=$1 faults=$2 key=${3:-} cmd
	rm -f "$T/proxy.port"
	mapfile -t cmd < <(conf_oob_cmd)
	"$JUDGE_PY" "$CONF/faultproxy_dns.py" --upstream-port "$upstream" --port-file "$T/proxy.port" \
		${faults:+--faults "$faults"} ${key:+--keyfile "$key"} --log "$T/proxy.log" -- "${cmd[@]}" 2>>"$T/proxy.err" &
	PROXY_PID=$!
	PIDS+=("$PROXY_PID")
	conf_wait_file "$T/proxy.port" || { echo "faultproxy_dns.py did not start: $(cat "$T/proxy.err")" >&2; return 1; }
	PROXY_PORT=$(cat "$T/proxy.port")
}

# conf_stop_proxy: stop the proxy conf_*_proxy started (by its PID)
conf_stop_proxy() {
	[ -n "${PROXY_PID:-}" ] || return 0
	kill "$PROXY_PID" 2>/dev/null
	wait "$PROXY_PID" 2>/dev/null
	local kept=() p
	for p in "${PIDS[@]}"; do [ "$p" = "$PROXY_PID" ] || kept+=("$p"); done
	PIDS=("${kept[@]}")
	PROXY_PID=
}

# conf_zone_file SCNZONE OUT [SERIAL]: a whole zone file for example.com. from a scenario's [zone] records: the
# SOA and NS every driver starts from, then the records
conf_zone_file() {
	{
		printf '$ORIGIN example.com.\n$TTL 300\n'
		printf '@ 3600 IN SOA ns1.example.net. hostmaster.example.com. %s 3600 600 86400 60\n' "${3:-1}"
		printf '@ 3600 IN NS ns1.example.net.\n'
		cat "$1"
	} >"$2"
}

# conf_zone_truth ZONEFILE: the driver truth of a zone file, read by ldns (ldns-read-zone -c: names lower-cased,
# RDATA canonical): "owner. TTL TYPE RDATA", SOA left out, sorted
conf_zone_truth() {
	ldns-read-zone -c "$1" | awk -F'\t' '$4 != "SOA" && $3 == "IN" { print $1 " " $2 " " $4 " " $5 }' | sort
}

# conf_stop_pids: stop every process in PIDS (by PID), last first
conf_stop_pids() {
	local i p
	for ((i = ${#PIDS[@]} - 1; i >= 0; i--)); do
		p=${PIDS[i]}
		kill "$p" 2>/dev/null
	done
	for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null; done
	PIDS=()
}

##### scenarios ######################################################################################################

# scn_split FILE DIR: the scenario's sections as DIR/about, needs, zone, plan.json, faults, flags
scn_split() {
	mkdir -p "$2" && rm -f "$2"/{about,needs,zone,plan.json,faults,flags}
	awk -v dir="$2" '
		/^\[[a-z]+\][ \t]*$/ { s = substr($0, 2, index($0, "]") - 2); f = dir "/" (s == "plan" ? "plan.json" : s)
			printf "" > f; next }
		/^#/ || s == "" { next }
		{ print >> f }' "$1"
	: >>"$2/faults"
	: >>"$2/flags"
	: >>"$2/needs"
	: >>"$2/zone"
}

# scn_faults_for DIR: DIR/faults kept for this provider: a line prefixed "CAP: " (http, dns, mem, ...) or
# "PROVIDER: " only where the driver has that capability or is that provider (the prefix removed); others as they are
scn_faults_for() {
	local line pre
	while IFS= read -r line; do
		if [[ $line =~ ^([a-z0-9]+):\ (.*)$ ]]; then
			pre=${BASH_REMATCH[1]}
			{ has_cap "$pre" || [ "$pre" = "$PROVIDER" ]; } && printf '%s\n' "${BASH_REMATCH[2]}"
		elif [ -n "$line" ]; then
			printf '%s\n' "$line"
		fi
	done <"$1/faults"
}

# fault_needs FAULTFILE: the capabilities its lines need
fault_needs() {
	awk '{ v = $1
		if (v == "lose-reply") print "lost-reply"; else if (v == "oob-before" || v == "oob-after") print "oob"
		else if (v == "refuse" || v == "refuse-match") print "refuse"; else if (v == "rcode" || v == "rcode-match") print "rcode"
		else if (v ~ /^fail-reads/) print "fail-reads"; else if (v == "delay") print "delay"
		else if (v == "expire-credential") print "expire-credential"
		else if (v == "refuse-reads") print "http"
		if ((v == "refuse" || v == "refuse-match" || v == "refuse-reads") && NF >= 4 && $4 != "-") print "body:" $4 }' "$1" | sort -u
}

has_cap() { case " $CAPS " in *" $1 "*) return 0 ;; esac; return 1; }

# missing_caps DIR FAULTFILE: the needs (scenario's [needs] and its faults') this provider lacks
missing_caps() {
	local need miss=()
	for need in $( (cat "$1/needs"; fault_needs "$2") | tr ' ' '\n' | sort -u); do
		case $need in
		body:*)
			local b=$CONF/scenarios/bodies/$PROVIDER/${need#body:} e found=
			for e in "" .json .xml .txt .html; do [ -f "$b$e" ] && found=1; done
			[ -n "$found" ] || miss+=("$need") ;;
		*) has_cap "$need" || miss+=("$need") ;;
		esac
	done
	echo "${miss[*]}"
}

# conf_load_view TRUTH LEFTOUT: a truth without the apex NS, the " ;; " annotations and the owners in LEFTOUT
conf_load_view() {
	awk 'NR == FNR { skip[tolower($1)] = 1; next }
		$1 == "example.com." && $3 == "NS" { next }
		{ o = $1; if (o in skip) next; sub(/ ;; .*$/, ""); print }' "$2" "$1"
}

# run_shown NAME DIR: run_one, its lines printed (with --quiet, a scenario whose checks all passed in one line).
# run_one runs in a subshell of its own, which stops the processes it started (PIDS: its fault proxy) when it ends.
# The provider's shell lives for the whole run and keeps its server as a child; a schedule forks some 60 processes,
# so the PIDs (32,768 here) wrap within a 1,000-schedule soak. The Knot soak stalled twice past that point (schedules
# 689 and 771, both after drv_truth had written its output): the provider's shell sat in waitpid(-1) with knotd its
# only child, i.e. bash (5.2.15) still counted on a child that had been reaped, probably one whose PID it had seen
# before (a proxy's, remembered in its job table). A scenario's subshell lives seconds and has no server child, so
# neither can happen there; the provider's shell now forks a few processes per schedule, and no background ones.
run_shown() {
	local rc
	(
		PIDS=()
		trap conf_stop_pids EXIT
		run_one "$1" "$2"
	) >"$2/out"
	rc=$?
	grep -q '# SKIP' "$2/out" && SKIPPED=$((SKIPPED + 1))
	if [ -z "$QUIET" ] || grep -q '^not ok' "$2/out"; then
		cat "$2/out"
	elif grep -q '# SKIP' "$2/out"; then
		grep '# SKIP' "$2/out"
	else
		echo "ok - $PROVIDER $1 ($(grep -c '^ok' "$2/out") checks)"
	fi
	return $rc
}

# With CONF_PREVIEW=1 (test_conformance.sh sets it), a scenario without faults is previewed first (`dnsbatch plan`
# through the driver's own drv_apply, preview_wrap.sh; memory's driver runs the engine's preview itself, told by
# CONF_PREVIEWING) and judged twice (issue 33 §1): the preview wrote nothing (the truth read after it is the truth
# read before), and its outcomes are the apply's, change by change (path, outcome, reason).
# shellcheck disable=SC2016
preview_before() { # DIR FLAGS...
	local d=$1
	shift
	rm -f "$d/preview.json" "$d/preview.truth"
	[ -n "${CONF_PREVIEW:-}" ] && [ ! -s "$d/faults.$PROVIDER" ] || return 0
	# the real binary baked in: the cloud drivers run dnsbatch under env -i
	[ -x "$T/preview-dnsbatch" ] || { printf '#!/bin/sh\nCONF_REAL_DNSBATCH=%q exec %q "$@"\n' "$DNSBATCH" \
		"$CONF/preview_wrap.sh" >"$T/preview-dnsbatch" && chmod +x "$T/preview-dnsbatch"; }
	CONF_PREVIEWING=1 DNSBATCH=$T/preview-dnsbatch drv_apply "$d/plan.json" /dev/null "$d/preview.json" \
		"$d/faults.$PROVIDER" "$@" 2>"$d/preview.err"
	RC=
	drv_truth >"$d/preview.truth" 2>>"$d/truth.err" || echo "(the truth could not be read)" >>"$d/preview.truth"
}
# preview_judge NAME DIR: the preview's two checks, as ok / not ok lines; returns 1 when either failed
preview_judge() {
	local view='[.outcomes[]? | {path, outcome, reason}]' rc=0
	[ -f "$2/preview.truth" ] || return 0
	if cmp -s "$2/before" "$2/preview.truth"; then
		echo "ok - $PROVIDER $1: the preview wrote nothing"
	else
		echo "not ok - $PROVIDER $1: the preview wrote nothing"
		diff "$2/before" "$2/preview.truth" | grep '^[<>]' | head -n 6 | sed 's/^/#   /'
		rc=1
	fi
	if [ -s "$2/preview.json" ] && [ "$(jq -c "$view" "$2/preview.json" 2>&1)" = "$(jq -c "$view" "$2/summary.json" 2>&1)" ]; then
		echo "ok - $PROVIDER $1: the preview agrees with the apply, change by change"
	else
		echo "not ok - $PROVIDER $1: the preview agrees with the apply, change by change"
		[ -s "$2/preview.json" ] || { echo "#   the preview printed nothing:"; tail -n 3 "$2/preview.err"; } | sed 's/^/#   /'
		diff <(jq -c "$view | .[]" "$2/preview.json" 2>&1) <(jq -c "$view | .[]" "$2/summary.json" 2>&1) |
			grep '^[<>]' | head -n 6 | sed 's/^/#   /'
		rc=1
	fi
	return $rc
}

# run_one NAME DIR: load, apply, read the truth, judge; prints the judge's lines; returns 1 on a false outcome
run_one() {
	local name=$1 d=$2 miss
	scn_faults_for "$d" >"$d/faults.$PROVIDER"
	miss=$(missing_caps "$d" "$d/faults.$PROVIDER")
	if [ -n "$miss" ]; then
		echo "ok - $PROVIDER $name # SKIP cannot meet: $miss"
		return 0
	fi
	local tl=$EPOCHREALTIME
	if ! drv_load "$d/zone" 2>"$d/load.err"; then
		echo "not ok - $PROVIDER $name: the zone loads"
		sed 's/^/#   /' "$d/load.err"
		rm -f "$T/last.truth"
		return 1
	fi
	conf_save_state
	drv_truth >"$d/before" 2>"$d/truth.err"
	# the zone as the scenario says, the provider's own apex NS and the truth's annotations aside, and the record
	# sets the driver says it left out ("...: OWNER TYPE left out" on stderr: a provider cannot hold them)
	conf_zone_file "$d/zone" "$d/want.zone" && conf_zone_truth "$d/want.zone" >"$d/want.truth"
	sed -n 's/.*: \([^ ]*\) \([A-Z0-9]*\) left out$/\1/p' "$d/load.err" |
		awk '{ print tolower($1 ~ /\.$/ ? $1 : ($1 == "@" ? "example.com." : $1 ".example.com.")) }' >"$d/left-out"
	if ! cmp -s <(conf_load_view "$d/want.truth" "$d/left-out") <(conf_load_view "$d/before" "$d/left-out"); then
		echo "not ok - $PROVIDER $name: the zone loads as the scenario says"
		diff <(conf_load_view "$d/want.truth" "$d/left-out") <(conf_load_view "$d/before" "$d/left-out") |
			sed 's/^/#   /' | head -n 20
		rm -f "$T/last.truth"
		return 1
	fi
	local tb=$EPOCHREALTIME
	rm -f "$d/drops" "$d/summary.json" "$T/proxy.log"
	local flags=()
	read -r -a flags <"$d/flags" || true
	RC=
	preview_before "$d" "${flags[@]}"
	drv_apply "$d/plan.json" "$d/drops" "$d/summary.json" "$d/faults.$PROVIDER" "${flags[@]}" 2>"$d/apply.err"
	touch "$d/drops"
	printf '%s\n' "${RC:-}" >"$d/rc"
	local ta=$EPOCHREALTIME
	[ -f "$T/proxy.log" ] && cp "$T/proxy.log" "$d/proxy.log"
	# a truth that cannot be read judges nothing (an empty one would make every change look undone): said as such
	if ! drv_truth >"$d/after" 2>>"$d/truth.err"; then
		echo "not ok - $PROVIDER $name: the truth is read after the apply (not judged)"
		sed 's/^/#   /' "$d/truth.err" | tail -n 5
		echo "#   kept: $d"
		rm -f "$T/last.truth"
		return 1
	fi
	cp "$d/after" "$T/last.truth"
	"$JUDGE_PY" "$CONF/judge.py" --provider "$PROVIDER" --scenario "$name" --plan "$d/plan.json" --before "$d/before" \
		--after "$d/after" --drops "$d/drops" --summary "$d/summary.json" --faults "$d/faults.$PROVIDER" \
		--rc "${RC:-}" --caps "$CAPS" --stderr "$d/apply.err" --props "${DRV_PROPS:-}" \
		--ttl-loose "${DRV_TTL_LOOSE:-}" >"$d/judge.out" 2>"$d/judge.err"
	local jrc=$?
	[ -n "${CONF_TIMING:-}" ] && echo "# steps: load+truth $(awk -v a="$tl" -v b="$tb" 'BEGIN { printf "%.2f", b - a }') apply $(awk -v a="$tb" -v b="$ta" 'BEGIN { printf "%.2f", b - a }') truth+judge $(awk -v a="$ta" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f", b - a }')"
	[ -s "$d/judge.out" ] || { echo "not ok - $PROVIDER $name: the judge runs"; sed 's/^/#   /' "$d/judge.err" | tail -n 5; jrc=1; }
	cat "$d/judge.out"
	preview_judge "$name" "$d" || jrc=1
	if [ $jrc -ne 0 ]; then
		echo "#   kept: $d"
		return 1
	fi
	return 0
}

# run_provider PROVIDER: every selected scenario (or N random schedules) on one provider, in a subshell of its own
run_provider() (
	PROVIDER=$1
	PIDS=()
	trap 'drv_stop 2>/dev/null; conf_stop_pids' EXIT
	T=$TOP/$PROVIDER
	mkdir -p "$T"
	# shellcheck source=/dev/null
	. "$CONF/drivers/$PROVIDER.sh"
	CAPS=$(drv_caps)
	if ! drv_start 2>"$T/start.err"; then
		echo "not ok - $PROVIDER: the driver starts"
		sed 's/^/#   /' "$T/start.err" | head -n 20
		echo "conformance $PROVIDER: 0 scenarios, 1 false outcomes"
		exit 1
	fi
	conf_save_state
	local n=0 false=0 name d rn=0 rfalse=0 i f
	SKIPPED=0
	if [ -z "$RANDOM_N" ]; then
		for f in "${SCENARIOS[@]}"; do
			name=$(basename "$f" .scn)
			d=$T/$name
			scn_split "$f" "$d"
			n=$((n + 1))
			run_shown "$name" "$d" || false=$((false + 1))
		done
		echo "conformance $PROVIDER: $((n - SKIPPED)) scenarios, $false false outcomes ($SKIPPED skipped)"
	fi
	for ((i = 1; i <= ${RANDOM_N:-$WITH_RANDOM}; i++)); do
		name=random-$RANDOM_SEED-$i
		d=$T/$name
		mkdir -p "$d"
		if ! "$JUDGE_PY" "$CONF/random_scn.py" --seed "$RANDOM_SEED" --index "$i" --provider "$PROVIDER" \
			--caps "$CAPS" --bodies "$CONF/scenarios/bodies/$PROVIDER" >"$d/scn" 2>"$d/scn.err"; then
			echo "not ok - $PROVIDER $name: a schedule is drawn"
			sed 's/^/#   /' "$d/scn.err" | tail -n 5
			rfalse=$((rfalse + 1))
			continue
		fi
		scn_split "$d/scn" "$d"
		rn=$((rn + 1))
		run_shown "$name" "$d" || rfalse=$((rfalse + 1))
	done
	[ -n "$RANDOM_N" ] || [ "$WITH_RANDOM" -gt 0 ] &&
		echo "conformance $PROVIDER: $rn schedules (seed $RANDOM_SEED), $rfalse false outcomes"
	drv_stop
	false=$((false + rfalse))
	[ $false -eq 0 ]
)

##### main ###########################################################################################################

if [ "${1:-}" = "--oob" ]; then
	PROVIDER=$2
	# shellcheck source=/dev/null
	. "$3"
	# shellcheck source=/dev/null
	. "$CONF/drivers/$PROVIDER.sh"
	drv_oob "$4"
	exit $?
fi

PROVIDERS=$ALL_PROVIDERS
GLOB='*'
RANDOM_N=
WITH_RANDOM=0
RANDOM_SEED=1
KEEP=${DNSB_KEEP_TMP:-}
JOBS=1
QUIET=
while [ $# -gt 0 ]; do
	case $1 in
	--providers) PROVIDERS=${2//,/ }; shift 2 ;;
	--scenarios) GLOB=$2; shift 2 ;;
	--random) RANDOM_N=$2; shift 2 ;;
	--seed) RANDOM_SEED=$2; shift 2 ;;
	--keep) KEEP=1; shift ;;
	--jobs) JOBS=$2; shift 2 ;;
	--with-random) WITH_RANDOM=$2; shift 2 ;;
	--quiet) QUIET=1; shift ;;
	*) echo "run.sh: unknown argument $1" >&2; exit 2 ;;
	esac
done
shopt -s nullglob
# shellcheck disable=SC2206 # GLOB is a glob on purpose
SCENARIOS=("$CONF"/scenarios/$GLOB.scn)
if [ -z "$RANDOM_N" ] && [ ${#SCENARIOS[@]} -eq 0 ]; then
	echo "run.sh: no scenario matches $GLOB" >&2
	exit 2
fi
TOP=$(mktemp -d "${TMPDIR:-/tmp}/dnsbatch-conf.XXXXXX") || exit 2
export DNSBATCH BUILD ROOT CONF TOP
status=0
# one provider after another, or JOBS at once (each into its own file, printed in order when all are done)
running=0
for p in $PROVIDERS; do
	if [ ! -f "$CONF/drivers/$p.sh" ]; then
		echo "ok - $p # SKIP no driver (drivers/$p.sh)" >"$TOP/$p.out"
		echo 0 >"$TOP/$p.rc"
		continue
	fi
	if [ "$JOBS" -le 1 ]; then
		run_provider "$p" || status=1
		continue
	fi
	if [ $running -ge "$JOBS" ]; then
		wait -n
		running=$((running - 1))
	fi
	{ run_provider "$p" >"$TOP/$p.out" 2>&1; echo $? >"$TOP/$p.rc"; } &
	running=$((running + 1))
done
wait
for p in $PROVIDERS; do
	[ -f "$TOP/$p.out" ] && { [ "$JOBS" -gt 1 ] || [ ! -f "$CONF/drivers/$p.sh" ]; } && cat "$TOP/$p.out"
	[ "$(cat "$TOP/$p.rc" 2>/dev/null || echo 0)" = 0 ] || status=1
done
if [ -n "$KEEP" ] || [ $status -ne 0 ]; then
	echo "# temp dir kept: $TOP"
else
	rm -rf "$TOP"
fi
exit $status
