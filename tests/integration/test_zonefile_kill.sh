#!/bin/bash
# test_zonefile_kill.sh - the zone file holds a zone's batches and writes them once (issue 21): a
# `dnsbatch apply` of many batches killed with SIGKILL at any moment leaves the file whole (all of the
# plan or none of it, never some batches), a report of `applied` is never ahead of the file, the next
# apply finishes the work, and no temporary file stays.
# Prints "ok - NAME" / "not ok - NAME" per check; exits 1 when any check failed.
# Environment: DNSBATCH (the binary; default build/dnsbatch under the repository root).
. "$(dirname "$0")/checks.sh"
test_begin
scratch
N=20000

printf '$ORIGIN big.test.\n$TTL 300\n; kept as written\n@ SOA ns1 hostmaster 1 3600 600 86400 300\n@ NS ns1\nns1 A 192.0.2.53\n' \
	>"$T/start.zone"
jq -cn --argjson n "$N" '{create: [range($n) | {dnsName: "h\(.).big.test", recordType: "A", recordTTL: 300,
	targets: ["10.\(. / 65536 | floor).\(. / 256 | floor % 256).\(. % 256)"]}]}' >"$T/plan.json" ||
	{ not_ok "plan written"; exit 1; }
held() { grep -c '^h[0-9]' "$1"; }
args=(apply --plan "$T/plan.json" --provider zonefile --zonefile "big.test=$T/z.zone" --batch-size 100 --output json --quiet)

for delay in 0.02 0.1 0.3 0.6 1 2; do
	cp "$T/start.zone" "$T/z.zone"
	# dnsbatch itself in the background (not a subshell around it), so that the kill reaches it.
	"$DNSBATCH" "${args[@]}" >"$T/out.json" 2>"$T/err" &
	pid=$!
	sleep "$delay"
	kill -KILL "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	n=$(held "$T/z.zone")
	reported=$(jq -r '.applied' "$T/out.json" 2>/dev/null)
	check "killed after ${delay}s: the file holds all of the plan or none ($n of $N)" \
		test "$n" = 0 -o "$n" = "$N"
	if [ -n "$reported" ]; then
		eq "killed after ${delay}s: what was reported applied is in the file" "$n" "$reported"
	else
		ok "killed after ${delay}s: nothing reported yet"
	fi
	eq "killed after ${delay}s: the comment stays" "$(grep -c '^; kept as written' "$T/z.zone")" 1
	"$DNSBATCH" "${args[@]}" >"$T/again.json" 2>"$T/err2"
	eq "killed after ${delay}s: the next apply finishes (exit)" "$?" 0
	eq "killed after ${delay}s: every change applied or already in effect" \
		"$(jq -r '.applied + .already_applied' "$T/again.json")" "$N"
	eq "killed after ${delay}s: all of the plan in the file" "$(held "$T/z.zone")" "$N"
	eq "killed after ${delay}s: no temporary file stays" "$(find "$T" -name 'z.zone.dnsbatch.*' | wc -l)" 0
done
if command -v named-checkzone >/dev/null 2>&1; then
	check "named-checkzone accepts the zone" named-checkzone -q big.test "$T/z.zone"
fi

echo "# $failures failed"
[ "$failures" -eq 0 ]
