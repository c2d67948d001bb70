#!/bin/bash
# Calls run one way (docs/design.md §1, issue 32 §5): scripts/engine-calls.sh reads the cross-file calls of the
# whole tree (applier/*, providers/*, cli/) with ctags and fails on a call circle (two files that call each other,
# directly or round a loop; the circles being removed elsewhere are listed in the script's KNOWN_CIRCLES), and
# on a call that runs back up the engine's pipeline, and on an include of applier/engine/internal.h outside
# applier/engine/ (the CLI reaches the engine through dnsbatch/engine.h only), and on a call from applier/ up into
# providers/ (docs/design.md §1). Also checked: the check itself sees a back-call and a
# circle, an include of the internals and a call up when one is planted (in copies).
. "$(dirname "$0")/checks.sh"
test_begin
scratch

if sh scripts/engine-calls.sh >"$T/calls" 2>&1; then
	ok "applier/, providers/ and cli/: no call circle, no call back up the engine's pipeline ($(grep -c ' -> ' "$T/calls") file pairs)"
else
	not_ok "call circles or calls that run back"
	grep -E 'BACK$|^CIRCLE' "$T/calls" | sed 's/^/#   /'
fi
grep '^known circle' "$T/calls" | sed 's/^/# (excused until it lands) /'
# Plant one: state.c (the ground floor) calling the first stage.
cp -r applier/engine "$T/engine"
printf '\nvoid planted(void);\nvoid planted(void) { dnsb_engine_map_zones(0, 0); }\n' >>"$T/engine/state.c"
if sh scripts/engine-calls.sh "$T/engine" >"$T/planted" 2>&1; then
	not_ok "a planted back-call (state -> zones) is not seen"
else
	grep -q 'engine/state -> .*engine/zones: .*BACK$' "$T/planted" && ok "a planted back-call is seen (state -> zones)" ||
		not_ok "the planted back-call is named: $(grep BACK "$T/planted")"
fi
# Plant a circle: the plan's lowest endpoint file calling one that calls it.
cp -r applier/plan "$T/plan"
printf '\nvoid planted(void);\nvoid planted(void) { dnsb_endpoint_reproduced(0, 0); }\n' >>"$T/plan/endpoint_fields.c"
if sh scripts/engine-calls.sh "$T/plan" >"$T/circle" 2>&1; then
	not_ok "a planted circle (endpoint_fields -> endpoint -> endpoint_fields) is not seen"
else
	grep -q '^CIRCLE: .*plan/endpoint .*plan/endpoint_fields' "$T/circle" && ok "a planted circle is seen" ||
		not_ok "the planted circle is named: $(grep CIRCLE "$T/circle")"
fi
# Plant an include of the engine's internals outside applier/engine/ (what the CLI's unopened.c once did).
cp -r cli "$T/cli"
printf '#include "applier/engine/internal.h"\n' >>"$T/cli/apply.c"
if sh scripts/engine-calls.sh "$T/cli" >"$T/internal" 2>&1; then
	not_ok "a planted include of applier/engine/internal.h (cli/apply.c) is not seen"
else
	grep -q '^INTERNAL: .*cli/apply.c$' "$T/internal" && ok "a planted include of the engine's internals is seen" ||
		not_ok "the planted include is named: $(grep INTERNAL "$T/internal")"
fi
# Plant a call up: the drop log's explain.c (applier/obs/) calling the providers' shared window (providers/common/).
mkdir -p "$T/applier"
cp -r applier/obs "$T/applier/obs"
printf '\nvoid planted(void);\nvoid planted(void) { dnsb_window_clear(0); }\n' >>"$T/applier/obs/explain.c"
if sh scripts/engine-calls.sh "$T/applier" providers >"$T/up" 2>&1; then
	not_ok "a planted call up from applier/ into providers/ (explain.c -> window.c) is not seen"
else
	grep -q '^UP: .*applier/obs/explain -> providers/common/window: dnsb_window_clear$' "$T/up" &&
		ok "a planted call up from applier/ into providers/ is seen (explain -> window)" ||
		not_ok "the planted call up is named: $(grep UP "$T/up")"
fi
# Plant an include up: the Events client including a provider header again (the transport is applier/net/ now).
cp -r applier/obs "$T/applier/obs2"
printf '#include "providers/common/backend.h"\n' >>"$T/applier/obs2/events_client.c"
if sh scripts/engine-calls.sh "$T/applier/obs2" >"$T/upi" 2>&1; then
	not_ok "a planted include of providers/ in applier/ (events_client.c) is not seen"
else
	grep -q '^UP: .*applier/obs2/events_client.c:#include "providers/common/backend.h"$' "$T/upi" &&
		ok "a planted include of providers/ in applier/ is seen" ||
		not_ok "the planted include up is named: $(grep UP "$T/upi")"
fi
echo "# $failures failed"
[ "$failures" -eq 0 ]
