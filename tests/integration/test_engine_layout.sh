#!/bin/bash
# The engine's files call one way along the pipeline (docs/design.md §1): scripts/engine-calls.sh reads the
# cross-file calls of applier/engine with ctags and fails on a call that runs back. Also checked: the
# check itself sees a back-call when one is planted (a copy of the engine with one added).
set -u
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
ok() { echo "ok - $1"; }
not_ok() { echo "not ok - $1"; failures=$((failures + 1)); }

if sh scripts/engine-calls.sh >"$tmp/calls" 2>&1; then
	ok "applier/engine: no call runs back up the pipeline ($(wc -l <"$tmp/calls") file pairs)"
else
	not_ok "applier/engine: calls that run back"
	grep 'BACK' "$tmp/calls"
fi
# Plant one: state.c (the ground floor) calling the first stage.
cp -r applier/engine "$tmp/engine"
printf '\nvoid planted(void);\nvoid planted(void) { dnsb_engine_map_zones(0, 0); }\n' >>"$tmp/engine/state.c"
if sh scripts/engine-calls.sh "$tmp/engine" >"$tmp/planted" 2>&1; then
	not_ok "a planted back-call (state -> zones) is not seen"
else
	grep -q '^state -> zones: .*BACK' "$tmp/planted" && ok "a planted back-call is seen (state -> zones)" ||
		not_ok "the planted back-call is named: $(grep BACK "$tmp/planted")"
fi
echo "# $failures failed"
[ "$failures" -eq 0 ]
