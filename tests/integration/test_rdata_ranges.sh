#!/usr/bin/env bash
# test_rdata_ranges.sh - issue 38 §3 through the binary: numeric RDATA out of its wire width is dropped
# `invalid`, naming the field and the value, and never written wrapped (MX 70000 was written as 4464
# with exit 0; through the sidecar MX 999999999999999999 answered 204 and the zone held MX 65535).
# The rest of the plan still applies. tests/unit/test_plan.c checks every type's fields one by one.
. "$(dirname "$0")/checks.sh"
test_begin
needs jq curl
scratch

zone_head example.test >"$T/zone"
cp "$T/zone" "$T/zone.orig"
cat >"$T/plan.json" <<'P'
{"create":[
 {"dnsName":"mail.example.test","targets":["70000 mx.example.test"],"recordType":"MX","recordTTL":300},
 {"dnsName":"neg.example.test","targets":["-1 mx.example.test"],"recordType":"MX","recordTTL":300},
 {"dnsName":"_sip._tcp.example.test","targets":["-1 99999999 65536 sip.example.test"],"recordType":"SRV","recordTTL":300},
 {"dnsName":"ok.example.test","targets":["10 mx.example.test"],"recordType":"MX","recordTTL":300}]}
P
"$DNSBATCH" apply --plan "$T/plan.json" --provider zonefile --zonefile "example.test=$T/zone" \
	--drop-log "$T/apply.drops" --output json >"$T/apply.json" 2>"$T/apply.err"
eq "apply: out-of-range MX and SRV dropped, exit 3" "$?" 3
eq "... 3 dropped invalid" "$(jq -rs 'map(select(.reason == "invalid")) | length' "$T/apply.drops")" 3
check "... naming the field and the value" grep -q 'MX preference 70000 is out of range (0 to 65535)' "$T/apply.drops"
check "... the SRV's first bad field" grep -q 'SRV priority -1 is out of range (0 to 65535)' "$T/apply.drops"
check "... nothing wrapped written (no 4464, no 65535)" sh -c '! grep -Eq "4464|65535|57599" "$1"' _ "$T/zone"
check "... the good MX applied" grep -Eq '^ok\.example\.test\.?[[:space:]].*MX[[:space:]]+10 mx\.example\.test\.' "$T/zone"

# Through the sidecar.
. tests/integration/extdns_client.sh
cp "$T/zone.orig" "$T/zone"
printf '{"create":[{"dnsName":"big.example.test","targets":["999999999999999999 mx.example.test"],"recordType":"MX","recordTTL":300}]}' \
	>"$T/side.json"
extdns_serve "$T/serve.log" --provider zonefile --zonefile "example.test=$T/zone" --drop-log "$T/side.drops" &&
	extdns_wait_ready 10
extdns_post "$EXTDNS_API" /records "$T/side.json" >/dev/null
eq "sidecar: MX 999999999999999999 answered (the change dropped, not the request)" "$EXTDNS_STATUS" 204
eq "... dropped invalid, naming the field" "$(jq -rs 'map(select(.reason == "invalid" and
	(.message | test("MX preference 999999999999999999 is out of range")))) | length' "$T/side.drops")" 1
check "... the zone holds no MX 65535" sh -c '! grep -q "65535" "$1"' _ "$T/zone"
extdns_stop

[ "$failures" -eq 0 ]
