#!/usr/bin/env bash
# test_examples_run.sh - `make run` (scripts/run-example.sh) and examples/rfc2136/run.sh keep what they wrote (the
# zone, the drop log, the metrics) and every path they print still exists once they have exited (issue 33 §3).
. "$(dirname "$0")/checks.sh"
test_begin
scratch

# paths PRINTED: the absolute paths under $T a script printed, one a line
paths() { grep -o "$T/[^ ,:()]*" "$1" | sed 's/[.]$//' | sort -u; }

mkdir -p "$T/bin" && ln -s "$DNSBATCH" "$T/bin/dnsbatch"
OUT=$T/run BUILD=$T/bin sh scripts/run-example.sh >"$T/run.out" 2>&1
eq "make run's script: exit 0" "$?" 0
for f in example.com.zone drops.jsonl metrics.prom; do
	check "make run keeps $f" test -s "$T/run/$f"
done
check "... and says where" grep -Fq "kept in $T/run: example.com.zone" "$T/run.out"
missing=$(paths "$T/run.out" | while read -r p; do [ -e "$p" ] || echo "$p"; done)
eq "every path make run printed exists after it ended" "$missing" ""
check "the kept zone holds the applied change" grep -q '^chat\.example\.com\.' "$T/run/example.com.zone"

if command -v named >/dev/null && command -v tsig-keygen >/dev/null && command -v jq >/dev/null; then
	OUT=$T/rfc DNSBATCH=$DNSBATCH bash examples/rfc2136/run.sh >"$T/rfc.out" 2>&1
	check "examples/rfc2136/run.sh: keeps the drop log" test -s "$T/rfc/drops.jsonl"
	check "... and the zone as BIND held it" grep -q '^chat\.example\.com\.' "$T/rfc/example.com.axfr"
	check "... and says where" grep -Fq "kept in $T/rfc: drops.jsonl, example.com.axfr" "$T/rfc.out"
	missing=$(paths "$T/rfc.out" | grep "^$T/rfc" | while read -r p; do [ -e "$p" ] || echo "$p"; done)
	eq "every kept path it printed exists after it ended" "$missing" ""
else
	not_ok "named, tsig-keygen and jq are installed"
fi
[ "$failures" -eq 0 ]
