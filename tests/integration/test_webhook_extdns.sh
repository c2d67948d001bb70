#!/usr/bin/env bash
# test_webhook_extdns.sh - `dnsbatch serve` beside external-dns as v0.22 really
# behaves, end to end on the zone-file provider and on rfc2136 against a real
# BIND: its 15 s client deadline, its TXT registry (ownership records under a
# domain filter, TTL 0 in deletes and updateOld, values over 255 octets), its
# AdjustEndpoints and sync loop (nothing written after the first loop), and
# endpoints no provider here can apply.
. "$(dirname "$0")/checks.sh"
test_begin
. tests/integration/servers.sh
. tests/integration/extdns_client.sh

dnsb_servers_init
tmp=$(mktemp -d "$DNSB_SERVERS_TMP/extdns.XXXXXX")
OWN='\"heritage=external-dns,external-dns/owner=default,external-dns/resource=ingress/default/app\"'
LONG_RESOURCE=ingress/default/$(printf 'r%.0s' $(seq 1 300))

{ zone_head example.test; cat; } >"$tmp/zone" <<EOF
app           IN A   203.0.113.10
a-app         IN TXT "heritage=external-dns,external-dns/owner=default,external-dns/resource=ingress/default/app"
pre-a-app     IN TXT "heritage=external-dns,external-dns/owner=default,external-dns/resource=ingress/default/app"
a-app-suf     IN TXT "heritage=external-dns,external-dns/owner=default,external-dns/resource=ingress/default/app"
_x.a-app      IN TXT "heritage=external-dns,external-dns/owner=default,external-dns/resource=ingress/default/app"
other         IN A   203.0.113.20
a-other       IN TXT "heritage=external-dns,external-dns/owner=default,external-dns/resource=ingress/default/other"
app1          IN A   203.0.113.11
xn--caf-dma   IN A   203.0.113.12
legacy   3600 IN A   192.0.2.7
a-legacy 3600 IN TXT "heritage=external-dns,external-dns/owner=default,external-dns/resource=ingress/default/legacy"
EOF

has() { # FILE JQ-FILTER
	jq -e "$2" "$1" >/dev/null
}

# The desired endpoints of one external-dns loop (as its sources and TXT registry make them).
cat >"$tmp/desired.json" <<EOF
[{"dnsName":"hello.example.test","targets":["hello there"],"recordType":"TXT","recordTTL":300},
 {"dnsName":"web.example.test","targets":["203.0.113.30"],"recordType":"A","recordTTL":300,
  "providerSpecific":[{"name":"alias","value":"false"},{"name":"webhook/ignored","value":"x"}]},
 {"dnsName":"Six.Example.Test.","targets":["2001:DB8::1"],"recordType":"AAAA","recordTTL":300},
 {"dnsName":"svc.example.test","targets":["web.example.test."],"recordType":"CNAME","recordTTL":300},
 {"dnsName":"long.example.test","targets":["203.0.113.31"],"recordType":"A","recordTTL":300},
 {"dnsName":"a-long.example.test","recordType":"TXT","labels":{"ownedRecord":"long.example.test"},
  "targets":["\"heritage=external-dns,external-dns/owner=default,external-dns/resource=$LONG_RESOURCE\""]}]
EOF

suite() { # LABEL ZONEFILE-TO-WATCH SERVE-ARGS...
	local label=$1 f
	shift
	local dir=$tmp/$label
	mkdir -p "$dir"

	# 2. A domain filter selects names, but never hides the ownership records of names in scope.
	extdns_serve "$dir/filter.log" --domain-filter app.example.test "$@" || { echo "not ok - $label: serve starts"; return; }
	extdns_get "$EXTDNS_API" /records >"$dir/filtered.json"
	extdns_check "$label: filter app.example.test: the record" has "$dir/filtered.json" 'any(.dnsName == "app.example.test")'
	for f in a-app pre-a-app a-app-suf _x.a-app; do
		extdns_check "$label: filter app.example.test: its ownership TXT $f" \
			has "$dir/filtered.json" "any(.dnsName == \"$f.example.test\" and .recordType == \"TXT\")"
	done
	extdns_check "$label: filter app.example.test: other names stay out" \
		has "$dir/filtered.json" 'all(.dnsName != "other.example.test")'
	extdns_stop
	extdns_serve "$dir/regex.log" --regex-domain-filter '^app\.example\.test$' "$@" || return
	extdns_get "$EXTDNS_API" /records >"$dir/regex.json"
	extdns_check "$label: regex anchored on the first label: ownership TXT a-app kept" \
		has "$dir/regex.json" 'any(.dnsName == "a-app.example.test")'
	extdns_stop
	# 5 and 8. Go's RE2 dialect, and internationalised names in either form.
	extdns_serve "$dir/re2.log" --regex-domain-filter '^app\d\.example\.test$' "$@" || return
	extdns_get "$EXTDNS_API" /records >"$dir/re2.json"
	extdns_check "$label: RE2 \\d matches app1" has "$dir/re2.json" 'any(.dnsName == "app1.example.test")'
	extdns_check "$label: RE2 \\d does not match app" has "$dir/re2.json" 'all(.dnsName != "app.example.test")'
	extdns_stop
	extdns_serve "$dir/idn.log" --domain-filter café.example.test "$@" || return
	extdns_get "$EXTDNS_API" /records >"$dir/idn.json"
	extdns_check "$label: --domain-filter café.example.test matches xn--caf-dma.example.test" \
		has "$dir/idn.json" 'any(.dnsName == "xn--caf-dma.example.test")'
	extdns_check "$label: ... and nothing else" has "$dir/idn.json" 'all(.dnsName | test("caf"))'
	extdns_stop

	extdns_serve "$dir/serve.log" "$@" --drop-log "$dir/drops.jsonl" || return
	extdns_wait_ready 10

	# 4. TTL 0 (or none) in delete and updateOld: "not set", whatever the zone holds (3600 here).
	cat >"$dir/ttl0.json" <<EOF
{"delete":[{"dnsName":"a-legacy.example.test","recordType":"TXT","recordTTL":0,
  "targets":["\"heritage=external-dns,external-dns/owner=default,external-dns/resource=ingress/default/legacy\""]}],
 "updateOld":[{"dnsName":"legacy.example.test","targets":["192.0.2.7"],"recordType":"A"}],
 "updateNew":[{"dnsName":"legacy.example.test","targets":["192.0.2.8"],"recordType":"A","recordTTL":300}]}
EOF
	extdns_post "$EXTDNS_API" /records "$dir/ttl0.json" >/dev/null
	extdns_check "$label: TTL 0 in delete and updateOld: 204" [ "$EXTDNS_STATUS" = 204 ]
	extdns_get "$EXTDNS_API" /records >"$dir/after-ttl0.json"
	extdns_check "$label: TTL 0: the ownership record is deleted" has "$dir/after-ttl0.json" 'all(.dnsName != "a-legacy.example.test")'
	extdns_check "$label: TTL 0: the record is updated" \
		has "$dir/after-ttl0.json" 'any(.dnsName == "legacy.example.test" and .targets == ["192.0.2.8"])'
	extdns_check "$label: TTL 0: nothing dropped" [ ! -s "$dir/drops.jsonl" ]

	# 3 and 7. AdjustEndpoints makes desired match GET /records: one loop writes, the next three write nothing.
	local loop1 loops
	loop1=$(python3 tests/integration/extdns_loop.py "$EXTDNS_API" "$tmp/desired.json")
	extdns_check "$label: loop 1 creates the 6 records (204)" [ "$loop1" = "6 204" ]
	loops=$(for f in 2 3 4; do python3 tests/integration/extdns_loop.py "$EXTDNS_API" "$tmp/desired.json"; done | tr '\n' ' ')
	extdns_check "$label: loops 2-4 find nothing to change (got: $loops)" [ "$loops" = "0 - 0 - 0 - " ]
	extdns_get "$EXTDNS_API" /records >"$dir/loop.json"
	extdns_check "$label: a TXT value over 255 octets is listed back as external-dns wrote it" \
		has "$dir/loop.json" "any(.dnsName == \"a-long.example.test\" and .targets[0] == \"\\\"heritage=external-dns,external-dns/owner=default,external-dns/resource=$LONG_RESOURCE\\\"\")"
	extdns_check "$label: the user's TXT is listed quoted, as AdjustEndpoints said" \
		has "$dir/loop.json" 'any(.dnsName == "hello.example.test" and .targets == ["\"hello there\""])'

	# 6. Endpoints no provider here can apply: returned unchanged (external-dns deletes nothing), logged once per name.
	printf '[{"dnsName":"geo.example.test","targets":["192.0.2.1"],"recordType":"A","setIdentifier":"eu"}]' >"$dir/geo.json"
	extdns_post "$EXTDNS_API" /adjustendpoints "$dir/geo.json" >"$dir/geo-out.json"
	extdns_post "$EXTDNS_API" /adjustendpoints "$dir/geo.json" >/dev/null
	extdns_check "$label: unsupported endpoint: 200, returned unchanged" \
		has "$dir/geo-out.json" '.[0].setIdentifier == "eu" and .[0].dnsName == "geo.example.test"'
	extdns_check "$label: unsupported endpoint: logged once for two calls" [ "$(grep -c 'geo.example.test A' "$dir/serve.log")" = 1 ]
	extdns_check "$label: unsupported endpoint: counted each time" \
		[ "$(extdns_metric 'dnsbatch_webhook_adjusted_endpoints_total{reason="unsupported"}')" = 2 ]
	extdns_stop
	extdns_check "$label: SIGTERM: exit 0" [ "$EXTDNS_EXIT" = 0 ]
}

extdns_on_providers suite "$tmp/zone" "$tmp"

# 1. external-dns gives up after 15 s and exits: answer within 12 s whatever the provider does.
# A provider that takes 20 s per request, and one that answers 503 every time (backoff 1, 2, 4, 8 s...).
extdns_serve "$tmp/slow.log" --provider memory --memory-zone example.test --memory-faults '*:latency=20' || exit 1
slow_api=$EXTDNS_API slow_pid=$EXTDNS_PID
extdns_serve "$tmp/flaky.log" --provider memory --memory-zone example.test --memory-faults '*:transient' \
	--drop-log "$tmp/flaky.jsonl" || exit 1
flaky_api=$EXTDNS_API
printf '{"create":[{"dnsName":"app.example.test","targets":["203.0.113.10"],"recordType":"A","recordTTL":300}]}' >"$tmp/one.json"
timed_post() { # API OUT: POST one.json; OUT gets "status seconds"
	local t0 t1 status
	t0=$(date +%s.%N)
	status=$(curl -s -o /dev/null -w '%{http_code}' -m 15 -A 'Go-http-client/1.1' -H 'Expect:' -H 'Accept:' \
		-H "Content-Type: $EXTDNS_MEDIA_TYPE" --data-binary "@$tmp/one.json" "$1/records")
	t1=$(date +%s.%N)
	echo "$status $(echo "$t1 - $t0" | bc)" >"$2"
}
timed_post "$slow_api" "$tmp/slow.out" &
p1=$!
timed_post "$flaky_api" "$tmp/flaky.out" &
p2=$!
wait "$p1" "$p2"
read -r slow_status slow_secs <"$tmp/slow.out"
read -r flaky_status flaky_secs <"$tmp/flaky.out"
echo "# provider latency 20 s: $slow_status after $slow_secs s; 503 every time: $flaky_status after $flaky_secs s"
extdns_check "deadline: a 20 s provider is answered 503" [ "$slow_status" = 503 ]
extdns_check "deadline: ... within 12 s ($slow_secs s)" [ "$(echo "$slow_secs < 12" | bc)" = 1 ]
extdns_check "deadline: a provider failing every time is answered 503" [ "$flaky_status" = 503 ]
extdns_check "deadline: ... within 12 s ($flaky_secs s)" [ "$(echo "$flaky_secs < 12" | bc)" = 1 ]
extdns_check "deadline: the drop log says failed, retryable" jq -e -s 'length == 1 and .[0].outcome == "failed"' "$tmp/flaky.jsonl"
EXTDNS_PID=$slow_pid
extdns_stop
extdns_done
