#!/usr/bin/env bash
#
# bench_zonefile.sh - the zone-file provider and plan parsing at scale (issue 21), each row a ratio
# measured in one run: ROUNDS rounds (default 3), the cases interleaved within a round, medians.
#   zonefile-apply    `apply` of 100,000 creates to an empty zone file, against 10,000 (target <= 12x)
#                     and against `named-checkzone -D` of the resulting zone (target <= 5x)
#   zonefile-records  `records` of a zone file of 10,000 and 100,000 RRsets against `named-checkzone -D`
#                     of it (targets <= 2x and <= 1.5x)
#   plan-dry-run      `apply --dry-run --output json` of the 100,000-change plan against a json-c parse of
#                     the same file, wall time (target <= 1.5x) and peak RSS (<= 1.3x). The parse is timed
#                     two ways: inside bench_jsonc around json_object_from_file alone, and as a whole process
#                     (`bench_jsonc run bench_jsonc parse`), which, like the dnsbatch figure, includes the
#                     process's start (dynamic linking), the tree's freeing and the exit; the target is
#                     judged on the second, the like-for-like one, and both ratios are printed.
# Prints figures; exits non-zero only when a run fails or leaves a wrong zone, not on a missed target.
set -u
export LC_ALL=C
cd "$(dirname "$0")/../.." || exit 1
BUILD=${BUILD:-build}
DNSBATCH=${DNSBATCH:-$BUILD/dnsbatch}
ROUNDS=${ROUNDS:-3}
M=$BUILD/bench_jsonc
command -v named-checkzone >/dev/null || { echo "# named-checkzone not found: skipped"; exit 0; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

head_zone() { printf '$ORIGIN big.test.\n$TTL 300\n@ SOA ns1 hostmaster 1 3600 600 86400 300\n@ NS ns1\nns1 A 192.0.2.53\n'; }
head_zone >"$T/empty.zone"
for n in 10000 100000; do
	{
		head_zone
		# Two RRsets a name (A and TXT), so that merging records into RRsets is exercised.
		awk -v n="$n" 'BEGIN { for (i = 0; i < (n - 3) / 2; i++) {
			printf "h%d A 10.%d.%d.%d\n", i, int(i / 65536) % 256, int(i / 256) % 256, i % 256
			printf "h%d TXT \"v=%d\"\n", i, i } }'
	} >"$T/z$n.zone"
	"$M" gen "$n" big.test "$T/plan$n.json" || exit 1
done

broken=0
declare -A wall rss
# measure KEY CMD...: one timed run, its wall time and peak RSS appended to KEY's list.
measure() {
	local key=$1 out
	shift
	out=$("$@")
	case $out in *exit=0*) ;; *) echo "# $key: $* -> ${out:-no output}"; broken=1 ;; esac
	wall[$key]+="$(sed 's/.*wall=\([0-9.]*\).*/\1/' <<<"$out") "
	rss[$key]+="$(sed 's/.*rss_kib=\([0-9]*\).*/\1/' <<<"$out") "
}
apply_zone() { "$M" run "$DNSBATCH" apply --plan "$T/plan$1.json" --provider zonefile --zonefile "big.test=$2" --quiet; }
for ((r = 0; r < ROUNDS; r++)); do
	for n in 10000 100000; do
		cp "$T/empty.zone" "$T/a$n.zone"
		measure "apply$n" apply_zone "$n" "$T/a$n.zone"
		lines=$(grep -c '^h' "$T/a$n.zone")
		[ "$lines" = "$n" ] || { echo "# apply of $n: $lines records written"; broken=1; }
	done
	measure checkzone-applied "$M" run named-checkzone -D -o /dev/null big.test "$T/a100000.zone"
	for n in 10000 100000; do
		measure "records$n" "$M" run "$DNSBATCH" records --provider zonefile --zonefile "big.test=$T/z$n.zone"
		measure "checkzone$n" "$M" run named-checkzone -D -o /dev/null big.test "$T/z$n.zone"
	done
	measure dry "$M" run "$DNSBATCH" apply --dry-run --output json --plan "$T/plan100000.json" --provider zonefile \
		--zonefile "big.test=$T/empty.zone" --quiet
	measure jsonc "$M" parse "$T/plan100000.json"
	measure jsonc-process "$M" run "$M" parse "$T/plan100000.json"
done

median() { printf '%s\n' $1 | sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
ratio() { echo "$(median "$1") $(median "$2")" | awk '{ printf "%.2f", ($2 > 0 ? $1 / $2 : 0) }'; }
printf 'zonefile-apply 100k=%.3fs 10k=%.3fs ratio=%s (target <= 12); named-checkzone -D=%.3fs ratio=%s (target <= 5)\n' \
	"$(median "${wall[apply100000]}")" "$(median "${wall[apply10000]}")" \
	"$(ratio "${wall[apply100000]}" "${wall[apply10000]}")" "$(median "${wall[checkzone-applied]}")" \
	"$(ratio "${wall[apply100000]}" "${wall[checkzone-applied]}")"
for n in 10000 100000; do
	target=$([ "$n" = 10000 ] && echo 2 || echo 1.5)
	printf 'zonefile-records rrsets=%d dnsbatch=%.3fs named-checkzone -D=%.3fs ratio=%s (target <= %s)\n' "$n" \
		"$(median "${wall[records$n]}")" "$(median "${wall[checkzone$n]}")" \
		"$(ratio "${wall[records$n]}" "${wall[checkzone$n]}")" "$target"
done
printf 'plan-dry-run changes=100000 dnsbatch=%.3fs json-c process=%.3fs ratio=%s (target <= 1.5); json-c parse call alone=%.3fs ratio=%s; rss %d KiB vs %d KiB ratio=%s (target <= 1.3)\n' \
	"$(median "${wall[dry]}")" "$(median "${wall[jsonc-process]}")" "$(ratio "${wall[dry]}" "${wall[jsonc-process]}")" \
	"$(median "${wall[jsonc]}")" "$(ratio "${wall[dry]}" "${wall[jsonc]}")" \
	"$(median "${rss[dry]}")" "$(median "${rss[jsonc]}")" "$(ratio "${rss[dry]}" "${rss[jsonc]}")"
exit "$broken"
