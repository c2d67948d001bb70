#!/bin/sh
# Run every test: the cmocka binaries built from tests/unit and tests/integration,
# then the shell tests tests/integration/test_*.sh. Prints one closing line
# "tests: N passed, M failed" (checks, counted inside each test) and exits 1 on any failure.
set -u
BUILD=${BUILD:-build}
DNSBATCH=${DNSBATCH:-$PWD/$BUILD/dnsbatch}
export BUILD DNSBATCH
passed=0 failed=0 broken=""
log=$(mktemp "$BUILD/.test-log.XXXXXX") || exit 1  # under the build dir: a clean-up of /tmp elsewhere cannot take it
trap 'rm -f "$log"' EXIT

count() { # $1 = test name, $2 = exit code; counts from the output in $log
	# cmocka's summary lines, and "ok - " / "not ok - " lines of the shell tests.
	p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test(s)\.$/\1/p' "$log" | awk '{s+=$1} END {print s+0}')
	f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test(s), listed below:$/\1/p' "$log" | awk '{s+=$1} END {print s+0}')
	p=$((p + $(grep -c '^ok - ' "$log")))
	f=$((f + $(grep -c '^not ok - ' "$log")))
	if [ "$2" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
	passed=$((passed + p)); failed=$((failed + f))
	[ "$2" -ne 0 ] && broken="$broken $1"
	return 0
}

for t in "$BUILD"/tests/unit/test_* "$BUILD"/tests/integration/test_* tests/integration/test_*.sh; do
	[ -f "$t" ] || continue
	case "$t" in *.sh) ;; *) [ -x "$t" ] || continue ;; esac
	name=$(basename "$t")
	printf '== %s\n' "$name"
	case "$t" in
	*.sh) bash "$t" >"$log" 2>&1; rc=$? ;;
	*) "$t" >"$log" 2>&1; rc=$? ;;
	esac
	cat "$log"
	count "$name" "$rc"
done
[ -n "$broken" ] && echo "failing:$broken"
echo "tests: $passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ -z "$broken" ]
