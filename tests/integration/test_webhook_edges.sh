#!/usr/bin/env bash
# test_webhook_edges.sh - names external-dns writes differently, and the
# sidecar's doors, through the `dnsbatch` binary (zone-file provider), the
# sidecar driven as external-dns v0.22 drives it (extdns_loop.py, extdns_client.sh):
#   - IDN: desired names in UTF-8 (external-dns's own test names) converge on
#     the punycode records a zone holds: no second record; apply stores punycode
#   - --txt-wildcard-replacement: a-wc.ext.test, the ownership record of
#     *.ext.test, is listed under a regex filter on the wildcard, so the loop
#     updates the wildcard and leaves its ownership record alone
#   - a plan creating one RRset twice: both invalid, each naming both JSON paths
#   - GET /quarantine: not on the metrics port
#   - a request must arrive whole within --request-timeout (headers or body
#     dribbled one byte a second are cut off), on both ports
#   - invalid UTF-8 in any JSON string: 400 naming the JSON path; apply exits 2
#   - a 1 MB dnsName: its drop-log line is bounded, the name cut at 253 octets
#     and the cut said; serve rotates its drop log by default
. "$(dirname "$0")/checks.sh"
test_begin
. tests/integration/extdns_client.sh

tmp=$(mktemp -d "${TMPDIR:-/tmp}/dnsbatch-webhook-edges.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
loop() { python3 tests/integration/extdns_loop.py "$EXTDNS_API" "$1"; }

zone() {
	{ zone_head ext.test; cat; } >"$tmp/ext.test.zone" <<'EOF'
xn--caf-dma IN A   192.0.2.7
*           IN A   192.0.2.50
a-wc        IN TXT "heritage=external-dns,external-dns/owner=default,external-dns/resource=ingress/default/wc"
EOF
}

# --- IDN -------------------------------------------------------------------
zone
cat >"$tmp/idn.json" <<'EOF'
[{"dnsName":"café.ext.test","targets":["192.0.2.7"],"recordType":"A","recordTTL":300},
 {"dnsName":"點看.ext.test","targets":["192.0.2.8"],"recordType":"A","recordTTL":300},
 {"dnsName":"nordic-ø.kitty😸.ext.test","targets":["192.0.2.9"],"recordType":"A","recordTTL":300},
 {"dnsName":"Straße.ext.test","targets":["192.0.2.10"],"recordType":"A","recordTTL":300}]
EOF
extdns_serve "$tmp/idn.log" --provider zonefile --zonefile "ext.test=$tmp/ext.test.zone"
extdns_wait_ready
extdns_post "$EXTDNS_API" /adjustendpoints "$tmp/idn.json" >"$tmp/adjusted.json"
extdns_check "idn: AdjustEndpoints answers each name in punycode (UTS 46 transitional, as external-dns's idna profile)" \
	[ "$(jq -c '[.[].dnsName]' "$tmp/adjusted.json")" = \
	  '["xn--caf-dma.ext.test","xn--c1yn36f.ext.test","xn--nordic--w1a.xn--kitty-pd34d.ext.test","strasse.ext.test"]' ]
extdns_check "idn: loop 1 creates the three new names only (café exists as xn--caf-dma)" [ "$(loop "$tmp/idn.json")" = "3 204" ]
extdns_check "idn: loop 2 writes nothing" [ "$(loop "$tmp/idn.json")" = "0 -" ]
extdns_check "idn: one café record, in punycode; no raw UTF-8 label in the zone" \
	sh -c "[ \$(grep -c '^xn--caf-dma' '$tmp/ext.test.zone') = 1 ] && ! grep -q '\\\\[12][0-9][0-9]' '$tmp/ext.test.zone'"
extdns_get "$EXTDNS_API" /records >"$tmp/records.json"
extdns_check "idn: GET /records lists them in punycode" \
	test -s "$tmp/records.json"
extdns_check "idn: ... xn--nordic--w1a.xn--kitty-pd34d and xn--c1yn36f" \
	jq -e '[.[].dnsName] | index("xn--nordic--w1a.xn--kitty-pd34d.ext.test") and index("xn--c1yn36f.ext.test")' "$tmp/records.json"
extdns_stop
printf '{"create":[{"dnsName":"bücher.ext.test","targets":["192.0.2.11"],"recordType":"A"}]}' >"$tmp/idn-plan.json"
"$DNSBATCH" apply --quiet --plan "$tmp/idn-plan.json" --provider zonefile --zonefile "ext.test=$tmp/ext.test.zone" 2>/dev/null
extdns_check "idn: apply stores bücher as xn--bcher-kva (exit 0)" \
	sh -c "[ $? = 0 ] && grep -q '^xn--bcher-kva' '$tmp/ext.test.zone'"

# --- wildcard ownership record with --txt-wildcard-replacement --------------
zone
cat >"$tmp/wc.json" <<'EOF'
[{"dnsName":"*.ext.test","targets":["192.0.2.51"],"recordType":"A","recordTTL":300,
  "labels":{"owner":"default","resource":"ingress/default/wc"}},
 {"dnsName":"a-wc.ext.test","targets":["\"heritage=external-dns,external-dns/owner=default,external-dns/resource=ingress/default/wc\""],
  "recordType":"TXT","labels":{"ownedRecord":"*.ext.test"}}]
EOF
extdns_serve "$tmp/wc.log" --provider zonefile --zonefile "ext.test=$tmp/ext.test.zone" \
	--regex-domain-filter '^\*\.ext\.test$' --txt-wildcard-replacement wc --drop-log "$tmp/wc-drops.jsonl"
extdns_wait_ready
extdns_get "$EXTDNS_API" /records >"$tmp/wc-records.json"
extdns_check "wildcard: GET /records answers" test "$EXTDNS_STATUS" = 200
extdns_check "wildcard: GET /records lists *.ext.test and its ownership record a-wc.ext.test, nothing else" \
	jq -e '[.[].dnsName] | sort == ["*.ext.test","a-wc.ext.test"]' "$tmp/wc-records.json"
extdns_check "wildcard: the loop updates the wildcard only (its ownership record is found)" \
	[ "$(loop "$tmp/wc.json")" = "1 204" ]
extdns_check "wildcard: the zone holds the new value, nothing dropped" \
	sh -c "grep -q '^\\*.*192.0.2.51' '$tmp/ext.test.zone' && [ ! -s '$tmp/wc-drops.jsonl' ]"
extdns_check "wildcard: the next loop writes nothing" [ "$(loop "$tmp/wc.json")" = "0 -" ]
extdns_stop

# --- a duplicate in the plan ----------------------------------------------
zone
cat >"$tmp/dup.json" <<'EOF'
{"create":[{"dnsName":"dup.ext.test","targets":["192.0.2.1"],"recordType":"A"},
           {"dnsName":"other.ext.test","targets":["192.0.2.3"],"recordType":"A"},
           {"dnsName":"dup.ext.test","targets":["192.0.2.2"],"recordType":"A"}]}
EOF
"$DNSBATCH" apply --quiet --plan "$tmp/dup.json" --provider zonefile --zonefile "ext.test=$tmp/ext.test.zone" \
	--drop-log "$tmp/dup-drops.jsonl" 2>"$tmp/dup.err"
extdns_check "duplicate: apply exits 3 (dropped)" [ $? = 3 ]
extdns_check "duplicate: both dropped as invalid, each naming \$.create[0] and \$.create[2]" \
	jq -se 'length == 2 and all(.reason == "invalid" and (.message | contains("$.create[0] and $.create[2]") or
		contains("$.create[2] and $.create[0]")))' "$tmp/dup-drops.jsonl"
extdns_check "duplicate: neither written, the rest applied" \
	sh -c "! grep -q '^dup' '$tmp/ext.test.zone' && grep -q '^other' '$tmp/ext.test.zone'"

# --- the doors ------------------------------------------------------------
zone
extdns_serve "$tmp/doors.log" --provider zonefile --zonefile "ext.test=$tmp/ext.test.zone" --request-timeout 2 \
	--drop-log "$tmp/drops.jsonl"
extdns_wait_ready
extdns_check "doors: GET /quarantine is not served on the metrics port" \
	[ "$(curl -s -o /dev/null -w '%{http_code}' "$EXTDNS_MON/quarantine")" = 404 ]
extdns_check "doors: GET /quarantine answers on the provider port" \
	[ "$(curl -s -o /dev/null -w '%{http_code}' "$EXTDNS_API/quarantine")" = 200 ]

# One byte a second; prints the seconds until the server closed the connection (or gave up at 12 s).
dribble() { # URL-PORT HEAD BODY
	python3 - "$@" <<'EOF'
import socket, sys, time
port, head, body = int(sys.argv[1]), sys.argv[2].encode().decode("unicode_escape").encode(), sys.argv[3].encode()
s = socket.create_connection(("127.0.0.1", port))
t0 = time.time()
s.sendall(head)
s.settimeout(1.0)
for c in body * 20:
    try:
        s.sendall(bytes([c]))
        if s.recv(4096) == b"":
            break
    except socket.timeout:
        pass
    except OSError:
        break
    if time.time() - t0 > 12:
        break
print("%.1f" % (time.time() - t0))
EOF
}
port() { echo "${1##*:}"; }
t=$(dribble "$(port "$EXTDNS_API")" 'GET / HTTP/1.1\r\n' 'Host: localhost\r\nX-Slow: aaaaaaaaaaaa')
extdns_check "doors: headers one byte a second on the provider port: closed by 2 s + 1 (took $t s)" \
	awk -v t="$t" 'BEGIN { exit !(t >= 1.5 && t <= 3.5) }'
t=$(dribble "$(port "$EXTDNS_MON")" 'GET /metrics HTTP/1.1\r\n' 'Host: localhost\r\nX-Slow: aaaaaaaaaaaa')
extdns_check "doors: headers one byte a second on the metrics port: closed by 2 s + 1 (took $t s)" \
	awk -v t="$t" 'BEGIN { exit !(t >= 1.5 && t <= 3.5) }'
t=$(dribble "$(port "$EXTDNS_API")" "POST /records HTTP/1.1\\r\\nHost: localhost\\r\\nContent-Type: $EXTDNS_MEDIA_TYPE\\r\\nContent-Length: 500\\r\\n\\r\\n" '{"create":[  ')
extdns_check "doors: a body one byte a second: closed by 2 s + 1 (took $t s)" \
	awk -v t="$t" 'BEGIN { exit !(t >= 1.5 && t <= 3.5) }'
extdns_check "doors: the sidecar still answers" [ "$(curl -s -o /dev/null -w '%{http_code}' "$EXTDNS_MON/healthz")" = 200 ]

printf '{"create":[{"dnsName":"ok.ext.test","targets":["192.0.2.1"],"recordType":"A"},{"dnsName":"\xff\xfe\xc3(.ext.test","targets":["192.0.2.1"],"recordType":"A"}]}' >"$tmp/bad-utf8.json"
extdns_post "$EXTDNS_API" /records "$tmp/bad-utf8.json" >"$tmp/body"
extdns_check "utf-8: POST /records: 400 naming \$.create[1].dnsName" \
	sh -c "[ '$EXTDNS_STATUS' = 400 ] && grep -Fq '\$.create[1].dnsName: not valid UTF-8' '$tmp/body'"
extdns_check "utf-8: nothing written" sh -c "! grep -q '^ok' '$tmp/ext.test.zone'"
printf '[{"dnsName":"a.ext.test","targets":["192.0.2.1"],"recordType":"A","labels":{"resource":"\xc0\xaf"}}]' >"$tmp/bad-utf8-adjust.json"
extdns_post "$EXTDNS_API" /adjustendpoints "$tmp/bad-utf8-adjust.json" >"$tmp/body"
extdns_check "utf-8: POST /adjustendpoints: 400 naming \$[0].labels.resource (an overlong form)" \
	sh -c "[ '$EXTDNS_STATUS' = 400 ] && grep -Fq '\$[0].labels.resource: not valid UTF-8' '$tmp/body'"
"$DNSBATCH" apply --plan "$tmp/bad-utf8.json" --provider zonefile --zonefile "ext.test=$tmp/ext.test.zone" 2>"$tmp/apply-utf8.err"
extdns_check "utf-8: apply exits 2 naming the path" \
	sh -c "[ $? = 2 ] && grep -Fq '\$.create[1].dnsName: not valid UTF-8' '$tmp/apply-utf8.err'"

python3 -c '
import json, sys
name = "a" * 1048576 + ".ext.test"
json.dump({"create": [{"dnsName": name, "targets": ["192.0.2.1"], "recordType": "A"}]}, open(sys.argv[1], "w"))' "$tmp/huge.json"
extdns_post "$EXTDNS_API" /records "$tmp/huge.json" >/dev/null
extdns_check "drop log: a 1 MB dnsName is dropped (204)" [ "$EXTDNS_STATUS" = 204 ]
extdns_check "drop log: its line stays under 10 KB" \
	sh -c "[ -s '$tmp/drops.jsonl' ] && [ \$(tail -n1 '$tmp/drops.jsonl' | wc -c) -lt 10240 ]"
extdns_check "drop log: the name cut at 253 octets, the cut said with the original length" \
	sh -c "[ -s '$tmp/drops.jsonl' ] && tail -n1 '$tmp/drops.jsonl' | jq -e '(.change.create[0].dnsName | length) == 253 and
		any(.truncated[]; .field == \"\$.change.create[0].dnsName\" and .octets == 1048585) and .reason == \"invalid\"'"
extdns_stop
extdns_check "drop log: serve rotates it by default (--drop-log-max-size default 100m)" \
	sh -c "'$DNSBATCH' serve --help 2>&1 | grep -q 'default 100m'"

extdns_done
