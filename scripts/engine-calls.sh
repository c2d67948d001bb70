#!/bin/sh
# engine-calls.sh - the cross-file call graph of applier/engine (ctags), and a
# check that calls run one way: each file calls only files later in the
# pipeline, or state.c (the engine's state, which every stage reads).
# Usage: sh scripts/engine-calls.sh [dir]   exit 1 when a call runs back.
dir=${1:-applier/engine}
order="engine zones group held batch isolate settle submit noop verify retry diagnose outcome failed_sum summary quarantine progress state"
tags=$(mktemp) || exit 2
trap 'rm -f "$tags"' EXIT
# name file, for every function with external linkage (dnsb_ prefix) defined in the directory
ctags -x --c-kinds=f "$dir"/*.c | awk '$1 ~ /^dnsb_/ { print $1, $4 }' > "$tags"
rank() { i=0; for s in $order; do [ "$s" = "$1" ] && { echo $i; return; }; i=$((i + 1)); done; echo 99; }
bad=0
for f in "$dir"/*.c; do
	from=$(basename "$f" .c)
	# the files whose functions f calls, with the names
	edges=$(while read -r name def; do
		[ "$def" = "$f" ] && continue
		grep -q "\\b$name *(" "$f" && echo "$(basename "$def" .c) $name"
	done < "$tags" | sort | awk '{ n[$1] = n[$1] (n[$1] ? "," : "") $2 } END { for (k in n) print k, n[k] }' | sort)
	[ -z "$edges" ] && continue
	echo "$edges" | while read -r to names; do
		mark=""
		[ "$to" != state ] && [ "$(rank "$to")" -le "$(rank "$from")" ] && mark="  <- BACK"
		echo "$from -> $to: $names$mark"
	done
done > "$tags.out"
cat "$tags.out"
grep -q 'BACK$' "$tags.out" && bad=1
rm -f "$tags.out"
exit $bad
