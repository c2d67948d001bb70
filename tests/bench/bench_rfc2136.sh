#!/usr/bin/env bash
#
# bench_rfc2136.sh - 2,000 A-record additions to a real BIND on loopback:
#   dnsbatch (rfc2136 provider) with 0 and with 20 conflicting changes
#   (RRsets that exist beforehand: one in each batch of 100, or all in the
#   first batch), against nsupdate given the same 2,000 additions as one
#   UPDATE per record and as one single UPDATE.
# Whole-process wall seconds, the median of RUNS runs (default 3), each on a
# freshly started named, the cases interleaved round by round; then the ratios and the targets of issue 3.
# "submissions" counts the engine's calls to the provider: an UPDATE sent, or
# a batch whose conflicts the rfc2136 pre-check named without sending it;
# "reads" the engine's read-backs (not the pre-check's own confirming queries,
# nor the zone transfer that makes its snapshot).
#
# Env: DNSBATCH (default build/dnsbatch), RUNS, RECORDS (default 2000),
# CONFLICTS (default 20), BATCH (--rfc2136-batch-change-size, default: the
# provider's default). Prints figures; exits non-zero only if a run is wrong
# (wrong exit code or counts), not on missed targets.
set -u
export LC_ALL=C
cd "$(dirname "$0")/../.." || exit 1
. tests/integration/servers.sh

DNSBATCH=${DNSBATCH:-build/dnsbatch}
RUNS=${RUNS:-3}
RECORDS=${RECORDS:-2000}
CONFLICTS=${CONFLICTS:-20}
BATCH=${BATCH:-}
broken=0

dnsb_servers_init
T=$DNSB_SERVERS_TMP
KEY=$T/key.conf
dnsb_tsig_keygen "$KEY" bench-key hmac-sha256 || exit 1

cat >"$T/zone.db" <<'EOF'
$ORIGIN bench.test.
$TTL 300
@    SOA  ns1 hostmaster 1 3600 600 86400 300
@    NS   ns1
ns1  A    192.0.2.53
EOF

# host$i gets 10.x.y.z; the conflicting ones exist beforehand with 192.0.2.1.
addr() { echo "10.$(($1 / 65536 % 256)).$(($1 / 256 % 256)).$(($1 % 256))"; }

jq -n --argjson n "$RECORDS" '{create: [range($n) | {dnsName: "host\(.).bench.test", recordType: "A",
	recordTTL: 300, labels: {}, targets: ["10.\(. / 65536 | floor % 256).\(. / 256 | floor % 256).\(. % 256)"]}],
	updateOld: [], updateNew: [], delete: []}' >"$T/plan.json"
{
	echo "zone bench.test"
	for ((i = 0; i < RECORDS; i++)); do
		echo "update add host$i.bench.test. 300 A $(addr "$i")"
		echo "send"
	done
} >"$T/per-record.nsupdate"
{
	echo "zone bench.test"
	for ((i = 0; i < RECORDS; i++)); do
		echo "update add host$i.bench.test. 300 A $(addr "$i")"
	done
	echo "send"
} >"$T/single.nsupdate"
# The conflicts: every (RECORDS/CONFLICTS)-th name already holds another address.
{
	echo "zone bench.test"
	if [ "$CONFLICTS" -gt 0 ]; then
		step=$((RECORDS / CONFLICTS))
		for ((i = step / 2; i < RECORDS; i += step)); do
			echo "update add host$i.bench.test. 300 A 192.0.2.1"
		done
	fi
	echo "send"
} >"$T/conflicts.nsupdate"
# The same number of conflicts, all among the first names (one batch refused again and again).
{
	echo "zone bench.test"
	for ((i = 0; i < CONFLICTS; i++)); do
		echo "update add host$((i * 5 + 2)).bench.test. 300 A 192.0.2.1"
	done
	echo "send"
} >"$T/clustered.nsupdate"

now() { date +%s.%N; }

# fresh [conflicts]: start a new named with the empty zone (plus the conflicting RRsets).
fresh() {
	[ -n "${PID:-}" ] && dnsb_stop_pid "$PID"
	dnsb_start_named bench.test "$T/zone.db" "$KEY" || exit 1
	PORT=$DNSB_SERVER_PORT
	PID=$DNSB_SERVER_PID
	if [ "${1:-0}" = 1 ]; then
		dnsb_nsupdate "$PORT" "$KEY" <"$T/conflicts.nsupdate" || exit 1
	elif [ "${1:-0}" = 2 ]; then
		dnsb_nsupdate "$PORT" "$KEY" <"$T/clustered.nsupdate" || exit 1
	fi
}

# time_cmd VAR CMD...: wall seconds of one run into VAR; the command's exit code into RC.
time_cmd() {
	local var=$1 t0 t1
	shift
	t0=$(now)
	"$@"
	RC=$?
	t1=$(now)
	printf -v "$var" '%.3f' "$(echo "$t1 - $t0" | bc -l)"
}

run_dnsbatch() {
	local batch=()
	[ -n "$BATCH" ] && batch=(--rfc2136-batch-change-size "$BATCH")
	"$DNSBATCH" apply --plan "$T/plan.json" --provider rfc2136 --rfc2136-host 127.0.0.1 --rfc2136-port "$PORT" \
		--rfc2136-zone bench.test --rfc2136-tsig-keyfile "$KEY" "${batch[@]}" --output json --quiet \
		>"$T/out.json" 2>"$T/err"
}
run_nsupdate() { dnsb_nsupdate "$PORT" "$KEY" <"$1" >/dev/null 2>&1; }

median() { printf '%s\n' "$@" | sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }

# once NAME CONFLICTS EXPECTED_RC EXPECTED_COUNTS CMD...: one run of a case on a fresh named, its time appended.
once() {
	local name=$1 conflicts=$2 want_rc=$3 want=$4 secs got
	shift 4
	fresh "$conflicts"
	time_cmd secs "$@"
	TIMES[$name]+="$secs "
	if [ "$RC" != "$want_rc" ]; then
		echo "# $name: exit $RC, expected $want_rc: $(head -c 300 "$T/err" 2>/dev/null)"
		broken=1
	fi
	if [ -n "$want" ]; then
		got=$(jq -r '"\(.applied) applied, \(.dropped) dropped, \(.failed) failed, \(.submissions) submissions, \(.reads) reads"' "$T/out.json")
		case $got in "$want"*) ;; *) echo "# $name: $got, expected $want"; broken=1 ;; esac
		DETAIL[$name]=$got
	fi
}

declare -A RESULT DETAIL TIMES
CASES=(
	"nsupdate, one UPDATE per record|0|0||run_nsupdate $T/per-record.nsupdate"
	"nsupdate, one single UPDATE|0|0||run_nsupdate $T/single.nsupdate"
	"dnsbatch, 0 conflicts|0|0|$RECORDS applied, 0 dropped, 0 failed|run_dnsbatch"
	"dnsbatch, $CONFLICTS conflicts|1|3|$((RECORDS - CONFLICTS)) applied, $CONFLICTS dropped, 0 failed|run_dnsbatch"
	"dnsbatch, $CONFLICTS conflicts in one batch|2|3|$((RECORDS - CONFLICTS)) applied, $CONFLICTS dropped, 0 failed|run_dnsbatch"
	"nsupdate per record, $CONFLICTS conflicts|1|0||run_nsupdate $T/per-record.nsupdate"
)
echo "# $RECORDS A-record additions to named $(named -v | awk '{print $2}') on 127.0.0.1, median of $RUNS runs" \
	"(the cases interleaved: round r runs each once, so a slow spell of the machine weighs on all alike)"
for ((r = 0; r < RUNS; r++)); do
	for c in "${CASES[@]}"; do
		IFS='|' read -r name conflicts want_rc want cmd <<<"$c"
		# shellcheck disable=SC2086 # cmd is a function and its file argument
		once "$name" "$conflicts" "$want_rc" "$want" $cmd
	done
done
for c in "${CASES[@]}"; do
	name=${c%%|*}
	# shellcheck disable=SC2086 # the run times, one word each
	RESULT[$name]=$(median ${TIMES[$name]})
	printf '%-40s %8s s   (runs: %s)%s\n' "$name" "${RESULT[$name]}" "${TIMES[$name]% }" \
		"${DETAIL[$name]:+   ${DETAIL[$name]}}"
done

ratio() { echo "scale=2; $1 / $2" | bc -l; }
single=${RESULT["nsupdate, one single UPDATE"]}
per=${RESULT["nsupdate, one UPDATE per record"]}
d0=${RESULT["dnsbatch, 0 conflicts"]}
d20=${RESULT["dnsbatch, $CONFLICTS conflicts"]}
r0=$(ratio "$d0" "$single")
r20=$(ratio "$d20" "$single")
speed=$(ratio "$per" "$d20")
rc0=$(ratio "$d20" "$d0")
verdict() { [ "$(echo "$1" | bc -l)" = 1 ] && echo "met" || echo "MISSED"; }
echo "dnsbatch 0 conflicts / nsupdate single UPDATE:         ${r0}x  (target <= 1.5x: $(verdict "$r0 <= 1.5"))"
echo "dnsbatch $CONFLICTS conflicts / nsupdate single UPDATE:        ${r20}x  (target <= 4x: $(verdict "$r20 <= 4"))"
echo "nsupdate one UPDATE per record / dnsbatch $CONFLICTS conflicts: ${speed}x  (target >= 10x: $(verdict "$speed >= 10"))"
# Issue 21: refused groups read together.
echo "dnsbatch $CONFLICTS conflicts / dnsbatch 0 conflicts:          ${rc0}x  (target <= 1.3x: $(verdict "$rc0 <= 1.3"); ${DETAIL["dnsbatch, $CONFLICTS conflicts"]#*failed, })"
echo "dnsbatch $CONFLICTS conflicts in one batch:                     ${DETAIL["dnsbatch, $CONFLICTS conflicts in one batch"]#*failed, }"
exit "$broken"
