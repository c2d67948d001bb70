#!/bin/bash
# test_droplog_devnull.sh - `dnsbatch apply --drop-log /dev/null` (issue 31 §1): a drop log that is a
# character device is written, not fsynced (fsync refuses it with EINVAL), so a correct apply exits as it
# would without a drop log: 0 for a clean plan, 3 for a plan with drops; a regular drop log is still
# written and synced. Prints "ok - NAME" / "not ok - NAME" per check; exits 1 when any check failed.
# Environment: DNSBATCH (the binary; default build/dnsbatch under the repository root).
. "$(dirname "$0")/checks.sh"
test_begin
ZONE=$ROOT/examples/zones/example.com.zone
PLANS=$ROOT/examples/plans
scratch
# apply PLAN ZONECOPY [ARGS...]: apply to a fresh copy of the example zone; sets $rc, stderr in $T/err
apply() {
	local plan=$1 zone=$2
	shift 2
	cp "$ZONE" "$zone"
	"$DNSBATCH" apply --provider zonefile --zonefile "example.com=$zone" --plan "$PLANS/$plan" "$@" \
		>"$T/out" 2>"$T/err"
	rc=$?
}

if [ ! -x "$DNSBATCH" ]; then
	not_ok "dnsbatch binary at $DNSBATCH"
	exit 1
fi

apply clean.json "$T/clean.zone" --drop-log /dev/null
eq "clean plan, --drop-log /dev/null: exit 0" "$rc" 0
if grep -q "drop log" "$T/err"; then not_ok "no drop-log error said"; else ok "no drop-log error said"; fi

apply conflicts.json "$T/plain.zone"
want=$rc
apply conflicts.json "$T/null.zone" --drop-log /dev/null
eq "plan with drops, --drop-log /dev/null: the exit code without a drop log ($want)" "$rc" "$want"
check "the same zone written" cmp -s "$T/plain.zone" "$T/null.zone"

apply conflicts.json "$T/file.zone" --drop-log "$T/drops"
eq "plan with drops, a regular drop log: the same exit code" "$rc" "$want"
lines=$(wc -l <"$T/drops")
if [ "$lines" -gt 0 ]; then ok "a regular drop log gets its lines ($lines)"; else not_ok "a regular drop log gets its lines"; fi

mkfifo "$T/fifo"
cat "$T/fifo" >"$T/fifo.out" &
reader=$!
apply conflicts.json "$T/fifo.zone" --drop-log "$T/fifo"
wait "$reader"
eq "plan with drops, a FIFO as drop log: the same exit code" "$rc" "$want"
eq "the FIFO's reader gets every line" "$(wc -l <"$T/fifo.out")" "$lines"

echo "# $failures failed"
[ "$failures" -eq 0 ]
