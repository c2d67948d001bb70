#!/bin/sh
# make run: apply an example plan (with conflicts) to a copy of the example zone with the zone-file provider, then
# show the summary, the drop log and the metrics. What it wrote (the zone, the drop log, the metrics) is kept in
# $OUT (default $BUILD/run, made afresh each run) for you to read or apply again.
set -u
BUILD=${BUILD:-build}
tmp=${OUT:-$BUILD/run}
rm -rf "$tmp" && mkdir -p "$tmp" || exit 1
tmp=$(cd "$tmp" && pwd)
cp examples/zones/example.com.zone "$tmp/"
plan=${PLAN:-examples/plans/conflicts.json}

echo "\$ dnsbatch apply --plan $plan --provider zonefile --zonefile example.com=$tmp/example.com.zone \\"
echo "    --drop-log $tmp/drops.jsonl --metrics-file $tmp/metrics.prom"
"$BUILD/dnsbatch" apply --plan "$plan" --provider zonefile --zonefile "example.com=$tmp/example.com.zone" \
	--drop-log "$tmp/drops.jsonl" --metrics-file "$tmp/metrics.prom" --seed 1
code=$?
echo "exit code: $code (0 all applied, 3 some dropped, 4 some failed)"
echo
echo "== drop log ($tmp/drops.jsonl), summarised by 'dnsbatch drops':"
"$BUILD/dnsbatch" drops "$tmp/drops.jsonl"
echo
echo "== first drop log line:"
head -n 1 "$tmp/drops.jsonl"
echo
echo "== metrics (dnsbatch_changes_total and dnsbatch_dropped_changes_total):"
grep -E '^dnsbatch_(changes|dropped_changes)_total' "$tmp/metrics.prom"
if command -v named-checkzone >/dev/null 2>&1; then
	echo
	echo "== named-checkzone on the written zone:"
	named-checkzone example.com "$tmp/example.com.zone" | tail -n 2
fi
echo
echo "== kept in $tmp: example.com.zone (the zone as written), drops.jsonl, metrics.prom; try:"
echo "   $BUILD/dnsbatch drops $tmp/drops.jsonl --explain"
# Dropped changes are the expected result of this example; anything else is a failure.
[ "$code" -eq 0 ] || [ "$code" -eq 3 ]
