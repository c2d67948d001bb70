#!/usr/bin/env bash
#
# judge_selftest.sh - the judge can fail: made-up runs whose reported outcomes are false (a change reported applied
# that is not in effect, a group reported dropped that landed, a group half applied, the drop log counting other
# than the summary, a record outside the plan changed), each of which judge.py must call "not ok", and the same
# runs with true outcomes, which it must pass. Prints ok / not ok lines; exit 1 when any check failed.
set -u
export LC_ALL=C
CONF=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
PY=python3
for py in python3 /usr/bin/python3; do
	if "$py" -c 'import dns.name' 2>/dev/null; then PY=$py; break; fi
done
T=$(mktemp -d "${TMPDIR:-/tmp}/dnsbatch-judge.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
fails=0
say() { echo "$1 - judge_selftest $2"; [ "$1" = ok ] || fails=$((fails + 1)); }

# ep NAME TYPE TARGET [OWNED]: an endpoint as external-dns sends it (jq writes the JSON)
ep() { jq -cn --arg n "$1" --arg t "$2" --arg v "$3" --arg o "${4:-}" \
	'{dnsName: $n, recordType: $t, recordTTL: 300, targets: [$v]} + (if $o == "" then {} else {labels: {ownedRecord: $o}} end)'; }
TXT='"heritage=external-dns,external-dns/owner=default"'
jq -cn --argjson a "$(ep web.example.com A 192.0.2.1 web.example.com)" --argjson t "$(ep web.example.com TXT "$TXT" web.example.com)" \
	--argjson b "$(ep api.example.com A 192.0.2.2)" '{create: [$a, $t, $b]}' >"$T/plan.json"
printf 'example.com. 3600 NS ns1.example.net.\nkeep.example.com. 300 A 192.0.2.9\n' >"$T/before"
# summary APPLIED DROPPED [FAILED]
summary() { jq -cn --argjson a "$1" --argjson d "$2" --argjson f "${3:-0}" \
	'{changes: 3, applied: $a, already_applied: 0, dropped: $d, failed: $f}' >"$T/summary.json"; }
# drop CHANGE-ENDPOINT OUTCOME: one drop log line
drop() { jq -cn --argjson e "$1" --arg o "$2" '{zone: "example.com.", outcome: $o, reason: "conflict", change: {create: [$e]}}'; }
web_drops() { { drop "$(ep web.example.com A 192.0.2.1 web.example.com)" "${1:-dropped}"
	drop "$(ep web.example.com TXT "$TXT" web.example.com)" "${1:-dropped}"; } >"$T/drops"; }
after() { cp "$T/before" "$T/after"; printf '%s\n' "$@" >>"$T/after"; }
WEB_A='web.example.com. 300 A 192.0.2.1'
WEB_TXT="web.example.com. 300 TXT $TXT"
API='api.example.com. 300 A 192.0.2.2'

# judge NAME EXPECT CHECK [faults]: run judge.py; EXPECT "pass" (every line ok) or "fail" (CHECK's line not ok)
judge() {
	local name=$1 expect=$2 check=$3
	printf '%s\n' "${4:-}" >"$T/faults"
	"$PY" "$CONF/judge.py" --provider selftest --scenario "$name" --plan "$T/plan.json" --before "$T/before" \
		--after "$T/after" --drops "$T/drops" --summary "$T/summary.json" --faults "$T/faults" >"$T/out" 2>&1
	local rc=$?
	if [ "$expect" = pass ]; then
		if [ $rc -eq 0 ] && ! grep -q '^not ok' "$T/out"; then say ok "$name: true outcomes pass"; else
			say "not ok" "$name: true outcomes pass"; sed 's/^/#   /' "$T/out"; fi
	elif [ $rc -ne 0 ] && grep -q "^not ok - selftest $name $check" "$T/out"; then
		say ok "$name: judge says not ok ($check)"
	else
		say "not ok" "$name: judge says not ok ($check)"; sed 's/^/#   /' "$T/out"
	fi
}

: >"$T/drops"; summary 3 0; after "$API" "$WEB_A" "$WEB_TXT"
judge all-applied pass ""
: >"$T/drops"; summary 3 0; after "$API" "$WEB_A"
judge applied-not-in-effect fail "1 no change reported applied"
web_drops; summary 1 2; after "$API"
judge group-dropped pass ""
web_drops; summary 1 2; after "$API" "$WEB_A" "$WEB_TXT"
judge dropped-but-in-effect fail "2 no change reported dropped"
web_drops; summary 1 2; after "$API" "$WEB_A" "$WEB_TXT" 'web.example.com. 300 TXT "another writer"'
judge dropped-in-effect-beside-another-writer fail "2 no change reported dropped" 'oob-after 1 web 300 IN TXT "another writer"'
web_drops failed; summary 1 0 2; after "$API" "$WEB_A"
judge failed-half-applied fail "3 every group whole"
web_drops failed; summary 1 0 2; after "$API" "$WEB_A" "$WEB_TXT" 'web.example.com. 300 TXT "another writer"'
judge failed-with-another-writer pass "" 'oob-after 1 web 300 IN TXT "another writer"'
drop "$(ep web.example.com A 192.0.2.1 web.example.com)" dropped >"$T/drops"; summary 2 1; after "$API" "$WEB_TXT"
judge one-member-dropped fail "3 every group whole"
web_drops; summary 1 1; after "$API"
judge drop-log-counts-other fail "the drop log matches the outcomes"
: >"$T/drops"; summary 3 0; after "$API" "$WEB_A" "$WEB_TXT"; sed -i 's/192.0.2.9/192.0.2.99/' "$T/after"
judge stray-write fail "5 nothing outside the plan changed"
: >"$T/drops"; summary 3 0; after "$API" "$WEB_A" 'web.example.com. 300 TXT "heritage=external-dns,external-dns/owner=" "default"'
judge txt-split-alike pass ""
: >"$T/drops"; summary 3 0; after "$API" "$WEB_A" "web.example.com. 60 TXT $TXT"
judge ttl-not-in-effect fail "1 no change reported applied"
# exit 2 (nothing sent) prints no summary: fine while nothing changed, false when the plan's RRsets did
# judge_rc NAME [SUMMARY [FAULT]]: judge.py after exit 2 (SUMMARY: none printed, unless given; FAULT: the schedule,
# a credential refused from the first submission on unless given)
judge_rc() {
	printf '%s\n' "${3-expire-credential 1}" >"$T/rc-faults"
	"$PY" "$CONF/judge.py" --provider selftest --scenario "$1" --plan "$T/plan.json" --before "$T/before" \
		--after "$T/after" --drops "$T/drops" --summary "${2:-$T/none.json}" --rc 2 --faults "$T/rc-faults" \
		>"$T/out" 2>&1
}
: >"$T/drops"; after
if judge_rc exit2-nothing-sent; then say ok "exit2-nothing-sent: true outcomes pass"; else
	say "not ok" "exit2-nothing-sent: true outcomes pass"; sed 's/^/#   /' "$T/out"; fi
after "$WEB_A"
if ! judge_rc exit2-but-written && grep -q '^not ok - selftest exit2-but-written 3' "$T/out"; then
	say ok "exit2-but-written: judge says not ok (3 every group whole)"
else
	say "not ok" "exit2-but-written: judge says not ok (3 every group whole)"; sed 's/^/#   /' "$T/out"
fi
# exit 2 on a scenario without faults has no cause the scenario gave it: the driver's flags or the provider's
# start failed (a provider that cannot start would pass as "nothing claimed, nothing changed")
after
if ! judge_rc exit2-no-fault "" "" && grep -q '^not ok - selftest exit2-no-fault exit 2 has a cause' "$T/out"; then
	say ok "exit2-no-fault: judge says not ok (exit 2 has a cause)"
else
	say "not ok" "exit2-no-fault: judge says not ok (exit 2 has a cause)"; sed 's/^/#   /' "$T/out"
fi
# exit 2 claims nothing: a summary or a drop log line beside it is a false claim, even with the zone as it was
: >"$T/drops"; after
summary 0 0 3
if ! judge_rc exit2-summary "$T/summary.json" && grep -q '^not ok - selftest exit2-summary exit 2 claims nothing' "$T/out"; then
	say ok "exit2-summary: judge says not ok (exit 2 claims nothing)"
else
	say "not ok" "exit2-summary: judge says not ok (exit 2 claims nothing)"; sed 's/^/#   /' "$T/out"
fi
web_drops failed
if ! judge_rc exit2-drop-log && grep -q '^not ok - selftest exit2-drop-log exit 2 claims nothing' "$T/out"; then
	say ok "exit2-drop-log: judge says not ok (exit 2 claims nothing)"
else
	say "not ok" "exit2-drop-log: judge says not ok (exit 2 claims nothing)"; sed 's/^/#   /' "$T/out"
fi
[ $fails -eq 0 ]
