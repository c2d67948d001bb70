#!/bin/bash
# One writer of a change's outcome (issue 32 §4): the engine settles every change through
# dnsb_engine_settle_change (applier/engine/outcome.c) and the plan stage drops through dnsb_plan_drop_invalid
# (applier/plan/drop.c); the report, metrics, logs, drop log and on_outcome are told from the tally. This fails
# when `->outcome =` (or `.outcome =`) is written anywhere else in applier/, providers/, include/ or cli/. Also checked:
# the check itself sees a write when one is planted (in a copy of the tree).
. "$(dirname "$0")/checks.sh"
test_begin
scratch

# The writers allowed, as "file: the line's text"; and one that is no change's outcome.
ALLOWED='applier/engine/outcome.c: c->outcome = outcome;
applier/plan/drop.c: c->outcome = DNSB_OUTCOME_DROPPED;
cli/drops.c: case OPT_OUTCOME: a->outcome = v; return 0;'

# The writes under root, "file: text", less the allowed ones.
writes() {
	(cd "$1" && grep -rnE '(->|\.)outcome[[:space:]]*=[^=]' --include='*.c' --include='*.h' --include='*.cc' \
		applier providers include cli) |
		sed -E 's/^([^:]*):[0-9]+:[[:space:]]*/\1: /' | grep -vxF "$ALLOWED"
}

n=$(cd . && grep -rcE '(->|\.)outcome[[:space:]]*=[^=]' applier/engine/outcome.c applier/plan/drop.c | awk -F: '{ s += $2 } END { print s }')
[ "$n" -eq 2 ] && ok "the two writers are where they are allowed (outcome.c, drop.c)" ||
	not_ok "the allowed writers moved: $n found in outcome.c and drop.c (update ALLOWED with the new place)"
if out=$(writes .) && [ -n "$out" ]; then
	not_ok "a change's outcome written outside dnsb_engine_settle_change / dnsb_plan_drop_invalid:"
	echo "$out" | sed 's/^/#   /'
else
	ok "every outcome is written by dnsb_engine_settle_change or dnsb_plan_drop_invalid"
fi
# Plant one: settle.c setting an outcome itself.
mkdir -p "$T/tree"
cp -r applier providers include cli "$T/tree/"
printf '\nvoid planted(dnsb_change *c);\nvoid planted(dnsb_change *c) { c->outcome = DNSB_OUTCOME_FAILED; }\n' \
	>>"$T/tree/applier/engine/settle.c"
if writes "$T/tree" | grep -q '^applier/engine/settle.c: void planted'; then
	ok "a planted write (settle.c) is seen"
else
	not_ok "a planted write (settle.c) is not seen"
fi
echo "# $failures failed"
[ "$failures" -eq 0 ]
