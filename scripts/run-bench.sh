#!/bin/sh
# make bench: every benchmark, figures printed, nothing asserted.
set -u
BUILD=${BUILD:-build}
DNSBATCH=${DNSBATCH:-$PWD/$BUILD/dnsbatch}
export BUILD DNSBATCH
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "== bisection cost (memory provider, batch size 1000, mean of 5 seeded runs)"
"$BUILD/bench_bisect"

echo "== engine overhead: 100,000 changes, memory provider, best of 3"
"$BUILD/bench_overhead" gen "$tmp/plan.json"
best() { sort -t= -k2 -n | head -1; }
for i in 1 2 3; do "$BUILD/bench_overhead" parse "$tmp/plan.json"; done | best | tee "$tmp/parse"
for i in 1 2 3; do "$BUILD/bench_overhead" apply "$tmp/plan.json"; done | best | tee "$tmp/apply"
p=$(sed 's/.*wall=\([0-9.]*\).*/\1/' "$tmp/parse")
a=$(sed 's/^engine wall=\([0-9.]*\).*/\1/' "$tmp/apply")
awk -v a="$a" -v p="$p" 'BEGIN { printf "overhead ratio=%.2f (engine wall / parse-only wall; target <= 3)\n", a / p }'

for b in tests/bench/*.sh; do
	[ -f "$b" ] || continue
	echo "== $(basename "$b")"
	bash "$b" || echo "$(basename "$b") exited $?"
done
