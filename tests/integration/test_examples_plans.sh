#!/usr/bin/env bash
# test_examples_plans.sh - examples/plans/README.md says what a run prints: its metrics block for
# conflicts.json (the indented dnsbatch_ lines) is what `dnsbatch apply --metrics-file` writes for that
# plan on a fresh copy of the example zone, with the exit status and drop log lines it names.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/integration/extdns_client.sh
tmp=$(mktemp -d "${TMPDIR:-/tmp}/dnsbatch-plans-readme.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

cp examples/zones/example.com.zone "$tmp/z.zone"
"$DNSBATCH" apply --plan examples/plans/conflicts.json --provider zonefile --zonefile "example.com=$tmp/z.zone" \
	--drop-log "$tmp/drops.jsonl" --metrics-file "$tmp/metrics.prom" >"$tmp/out" 2>"$tmp/err"
code=$?
extdns_check "conflicts.json: exit 3, as the README says" [ "$code" = 3 ]
extdns_check "conflicts.json: 12 drop log lines, as the README says" [ "$(wc -l <"$tmp/drops.jsonl")" = 12 ]
sed -n 's/^    \(dnsbatch_.*\)$/\1/p' examples/plans/README.md | sort >"$tmp/readme"
grep -E '^dnsbatch_(changes|dropped_changes|failed_changes)_total' "$tmp/metrics.prom" | sort >"$tmp/run"
if [ -s "$tmp/readme" ] && diff -u "$tmp/readme" "$tmp/run" >"$tmp/diff"; then
	echo "ok - the README's metrics for conflicts.json are those a run writes ($(wc -l <"$tmp/run") series)"
else
	echo "not ok - the README's metrics for conflicts.json are those a run writes (- README, + run)"
	sed 's/^/#   /' "$tmp/diff"
	EXTDNS_FAILED=$((EXTDNS_FAILED + 1))
fi
extdns_done
