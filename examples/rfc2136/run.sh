#!/usr/bin/env bash
#
# run.sh - try the rfc2136 provider on your machine: start BIND (or Knot with
# SERVER=knotd) on a free loopback port with examples/zones/example.com.zone
# and a fresh TSIG key, apply examples/plans/conflicts.json through DNS UPDATE,
# show the outcome, the drop log and what the server now holds, then stop the
# server. The drop log and the zone as the server held it at the end (AXFR) are
# kept in $OUT (default build/rfc2136-run, made afresh each run).
# Needs: make; bind9 bind9-utils bind9-dnsutils (or knot); jq.
#
#   examples/rfc2136/run.sh                 # BIND
#   SERVER=knotd examples/rfc2136/run.sh    # Knot DNS
#   PLAN=examples/plans/clean.json examples/rfc2136/run.sh
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/integration/servers.sh

SERVER=${SERVER:-named}
PLAN=${PLAN:-examples/plans/conflicts.json}
DNSBATCH=${DNSBATCH:-build/dnsbatch}
[ -x "$DNSBATCH" ] || make -s || exit 1

OUT=${OUT:-build/rfc2136-run}
rm -rf "$OUT" && mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd) || exit 1
dnsb_servers_init
T=$DNSB_SERVERS_TMP
dnsb_tsig_keygen "$T/dnsbatch-key.conf" dnsbatch-key hmac-sha256 || exit 1
"dnsb_start_$SERVER" example.com examples/zones/example.com.zone "$T/dnsbatch-key.conf" || exit 1
echo "== $SERVER serves example.com on 127.0.0.1#$DNSB_SERVER_PORT (dir $DNSB_SERVER_DIR)"

set -x
"$DNSBATCH" apply --plan "$PLAN" --provider rfc2136 \
	--rfc2136-host 127.0.0.1 --rfc2136-port "$DNSB_SERVER_PORT" --rfc2136-zone example.com \
	--rfc2136-tsig-keyfile "$T/dnsbatch-key.conf" --drop-log "$OUT/drops.jsonl"
{ rc=$?; set +x; } 2>/dev/null
echo "== exit code $rc (0 all in effect, 3 some dropped, 4 some failed)"
echo "== drop log ($OUT/drops.jsonl), one line per dropped change:"
jq -r '"  \(.outcome) \(.reason) \(.code // "-"): \(.message)"' "$OUT/drops.jsonl"
echo "== the records of the plan's names, as $SERVER holds them now (AXFR):"
names=$(jq -r '[.create[]?, .updateNew[]?, .delete[]?] | map(.dnsName + ".") | unique | join("|")' "$PLAN")
dnsb_axfr "$DNSB_SERVER_PORT" example.com "$T/dnsbatch-key.conf" >"$OUT/example.com.axfr"
awk -v re="^($names)\$" '$1 ~ re' "$OUT/example.com.axfr" | sed 's/^/  /'
echo "== kept in $OUT: drops.jsonl, example.com.axfr (the zone as $SERVER held it); the server is stopped"
