#!/bin/bash
# Run every test: the cmocka binaries built from tests/unit and tests/integration,
# then the shell tests tests/integration/test_*.sh, TEST_JOBS at a time (default 3:
# most tests wait on servers, sockets and timeouts, not on the CPU). Each test's
# output is printed whole when it ends. Prints one closing line
# "tests: N passed, M failed" (checks, counted inside each test) and exits 1 on any failure.
# TESTS="name ..." runs only those (basenames, e.g. TESTS="test_rfc2136.sh test_plan").
set -u
BUILD=${BUILD:-build}
DNSBATCH=${DNSBATCH:-$PWD/$BUILD/dnsbatch}
TEST_JOBS=${TEST_JOBS:-3}
export BUILD DNSBATCH
passed=0 failed=0 broken=""
logs=$(mktemp -d "$BUILD/.test-logs.XXXXXX") || exit 1  # under the build dir: a clean-up of /tmp elsewhere cannot take it
trap 'rm -rf "$logs"' EXIT

count() { # $1 = test name, $2 = exit code, $3 = its log
	# cmocka's summary lines, and "ok - " / "not ok - " lines of the shell tests.
	p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test(s)\.$/\1/p' "$3" | awk '{s+=$1} END {print s+0}')
	f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test(s), listed below:$/\1/p' "$3" | awk '{s+=$1} END {print s+0}')
	p=$((p + $(grep -c '^ok - ' "$3")))
	f=$((f + $(grep -c '^not ok - ' "$3")))
	if [ "$2" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
	passed=$((passed + p)); failed=$((failed + f))
	[ "$2" -ne 0 ] && broken="$broken $1"
	return 0
}

run_one() { # $1 = the test; writes $logs/NAME.log and $logs/NAME.rc
	local name rc
	name=$(basename "$1")
	case "$1" in
	*.sh) bash "$1" >"$logs/$name.log" 2>&1 </dev/null; rc=$? ;;
	*) "$1" >"$logs/$name.log" 2>&1 </dev/null; rc=$? ;;
	esac
	echo "$rc" >"$logs/$name.rc"
}

report() { # print and count every test that has ended and is not yet reported
	local rcf name
	for rcf in "$logs"/*.rc; do
		[ -f "$rcf" ] || continue
		name=$(basename "$rcf" .rc)
		printf '== %s\n' "$name"
		cat "$logs/$name.log"
		count "$name" "$(cat "$rcf")" "$logs/$name.log"
		rm -f "$rcf" "$logs/$name.log"
	done
}

tests=()
for t in "$BUILD"/tests/unit/test_* "$BUILD"/tests/integration/test_* tests/integration/test_*.sh; do
	[ -f "$t" ] || continue
	case "$t" in *.sh) ;; *.d) continue ;; *) [ -x "$t" ] || continue ;; esac
	if [ -n "${TESTS:-}" ]; then
		case " $TESTS " in *" $(basename "$t") "*) ;; *) continue ;; esac
	fi
	tests+=("$t")
done

running=0
for t in "${tests[@]}"; do
	while [ "$running" -ge "$TEST_JOBS" ]; do
		wait -n
		running=$((running - 1))
		report
	done
	run_one "$t" &
	running=$((running + 1))
done
wait
report
[ -n "$broken" ] && echo "failing:$broken"
echo "tests: $passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ -z "$broken" ]
