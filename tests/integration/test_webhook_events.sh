#!/usr/bin/env bash
#
# test_webhook_events.sh - `dnsbatch serve --events` posts Kubernetes Events on the objects behind the
# records it drops, quarantines, holds back or fails (issue 34 §1), to tests/fakes/fake_kubeapi.py over
# TLS: the fake checks the bearer token and validates every body against Kubernetes' OpenAPI spec for
# events.k8s.io/v1 with python3-jsonschema.
#   - one external-dns-shaped plan (a Service, an HTTPRoute, a DNSEndpoint and Ingresses as
#     labels.resource) gives one Event per object and reason, with the object's uid, the drop log's
#     diagnosis as its note (the record, the cause, what is held and its owner);
#   - ten loops of the same plan: still one Event per object and reason, its series.count patched twice
#     while running (client-go's rhythm), the whole count (10, or 9 held) once the sidecar stops;
#   - the token file is read again as kubelet rotates it;
#   - an API outage (403, 500, 422, a reply slower than the client's timeout, the server gone) changes no
#     outcome and no answer time (each POST /records within 2 s, the same outcomes as with the API up),
#     is logged once per kind and counted in dnsbatch_events_total{result}; a create whose reply was
#     lost lands once (409 AlreadyExists on the retry);
#   - a change that fails at the provider (Cloudflare's fake answering 500) is RecordFailed.
#
# Prints "ok - NAME" or "not ok - NAME" per check; exits 1 if any failed.
. "$(dirname "$0")/checks.sh"
test_begin
. tests/integration/extdns_client.sh
. tests/integration/cloudflare_fake.sh

# The API server's fake runs on Debian's python3-jsonschema (/usr/bin/python3) where it is there.
PY=python3
/usr/bin/python3 -c 'import jsonschema' 2>/dev/null && PY=/usr/bin/python3
fake_begin jsonschema python3-jsonschema openssl jq curl python3
export POD_NAME=dnsbatch-7d9f8-x2k4q

##### the stand-in API server ##################################################################

echo tok-1 >"$T/token"
OBJECTS=(services/default/mail=uid-svc-mail httproutes/web/sip-route=uid-route-sip
	dnsendpoints/dns/static-records=uid-crd-static ingresses/default/other=uid-ing-other
	ingresses/default/new=uid-ing-new services/shop/web=uid-svc-web)
start_kube() { # NAME: the fake on a free port; KURL
	rm -f "$T/$1.port"
	"$PY" tests/fakes/fake_kubeapi.py --port-file "$T/$1.port" --cert "$T/server.pem" --key "$T/server.key" \
		--token tok-1 --token tok-2 --slow 6 --log "$T/$1.fake.log" \
		"${OBJECTS[@]/#/--object=}" 2>"$T/$1.fake.err" &
	fake_started "$1" $! || exit 1
	KPID=$FAKE_PID
	KURL=https://127.0.0.1:$PORT
}
kube() { curl -s -m 10 --cacert "$T/ca.pem" "$KURL/_fake/$1"; }
mode() { curl -s -m 10 --cacert "$T/ca.pem" -X POST --data "{\"mode\":\"$1\"}" "$KURL/_fake/mode" >/dev/null; }
# events JQ: the fake's Events, through JQ (each .items[] as input), sorted
events() { kube events | jq -r ".items[] | $1" | sort; }
requests() { kube stats | jq -r ".requests[\"$1\"] // 0"; }
# until_true SECONDS CMD...: poll CMD every 0.1 s
until_true() {
	local n=$(($1 * 10))
	shift
	while ! "$@" >/dev/null 2>&1; do
		n=$((n - 1))
		[ "$n" -gt 0 ] || return 1
		sleep 0.1
	done
}
start_kube kube

##### the zone and the plan ####################################################################

cp examples/zones/example.com.zone "$T/example.com.zone"
# sip.example.com is another owner's: its ownership record says whose.
echo 'a-sip.example.com. 300 IN TXT "heritage=external-dns,external-dns/owner=other,external-dns/resource=ingress/legacy/sip"' \
	>>"$T/example.com.zone"
labelled() { jq -c --arg r "$1" '.labels = {resource: $r, owner: "default"}'; } # RESOURCE: on the endpoint on stdin
plan "$T/plan.json" create="$(list \
	"$(ep mail.example.com A 300 192.0.2.99 | labelled service/default/mail)" \
	"$(ep sip.example.com A 300 192.0.2.98 | labelled gateway-httproute/web/sip-route)" \
	"$(ep static.example.com A 300 not-an-address | labelled crd/dns/static-records)" \
	"$(ep www.other.org A 300 192.0.2.97 | labelled ingress/default/other)" \
	"$(ep new.example.com A 300 192.0.2.96 | labelled ingress/default/new)" \
	"$(ep ghost.example.com CNAME 300 mail.example.com | labelled ingress/default/ghost)" \
	"$(ep ghost.example.com A 300 192.0.2.95 | labelled ingress/default/ghost)")"

serve() { # LOG [flags...]: a fresh sidecar on a fresh copy of the zone, Events on
	local log=$1
	shift
	cp "$T/example.com.zone" "$T/zone.$log"
	rm -f "$T/drops.$log"
	extdns_serve "$T/$log" --provider zonefile --zonefile "example.com=$T/zone.$log" --drop-log "$T/drops.$log" \
		--events --kubernetes-api "$KURL" --kubernetes-ca-file "$T/ca.pem" --kubernetes-token-file "$T/token" "$@" ||
		{ not_ok "serve --events starts" "$(tail -5 "$T/$log")"; exit 1; }
}
# post LOG: POST the plan; STATUS and SECONDS of the answer
post() {
	local t0 t1
	t0=$(date +%s.%N)
	extdns_post "$EXTDNS_API" /records "$T/plan.json" >/dev/null
	t1=$(date +%s.%N)
	STATUS=$EXTDNS_STATUS
	SECONDS_TAKEN=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
}
# outcomes LOG: what the drop log says of each change, one a line, sorted
outcomes() { jq -r '"\(.change | tostring | .[0:60]) \(.outcome) \(.reason) \(.cause)"' "$T/drops.$1" | sort; }

##### one loop: which objects got which Events #################################################

serve s1
post
eq "loop 1: 204 (drops are absorbed)" "$STATUS" 204
until_true 10 [ "$(requests 'POST 201')" = 4 ]
eq "loop 1: one Event per object and reason" "$(events '"\(.regarding.kind) \(.regarding.namespace)/\(.regarding.name) \(.reason)"')" \
	"$(printf '%s\n' 'DNSEndpoint dns/static-records RecordDropped' 'HTTPRoute web/sip-route RecordQuarantined' \
		'Ingress default/other RecordDropped' 'Service default/mail RecordQuarantined')"
eq "loop 1: each regards its object with the uid the API holds" \
	"$(events '"\(.regarding.name)=\(.regarding.uid) \(.regarding.apiVersion)"')" \
	"$(printf '%s\n' 'mail=uid-svc-mail v1' 'other=uid-ing-other networking.k8s.io/v1' \
		'sip-route=uid-route-sip gateway.networking.k8s.io/v1' 'static-records=uid-crd-static externaldns.k8s.io/v1alpha1')"
eq "loop 1: reporting dnsbatch, the pod, Warning, in the object's namespace" \
	"$(events '"\(.reportingController) \(.reportingInstance) \(.type) \(.metadata.namespace == .regarding.namespace)"' | uniq)" \
	"dnsbatch $POD_NAME Warning true"
note() { events "select(.regarding.name == \"$1\") | .note"; }
check "RecordQuarantined's note: the record, the cause, what is held and whose" \
	grep -q '^create sip.example.com. A dropped (conflict): exists: held as 192.0.2.60 (TTL 3600), owner "other" (ingress/legacy/sip); its change group is quarantined' <(note sip-route)
check "RecordQuarantined on the Service: a CNAME is in the way" \
	grep -q '^create mail.example.com. A dropped (conflict): cname: held as CNAME mx1.example.com.' <(note mail)
check "RecordDropped on the DNSEndpoint: invalid, with why" grep -q '^create static.example.com. A dropped (invalid). dnsbatch said: .*not-an-address' <(note static-records)
check "RecordDropped on the Ingress: in no zone" grep -q '^create www.other.org. A dropped (no_zone)' <(note other)
eq "an applied record makes no Event; an object that does not exist gets none" \
	"$(events 'select(.regarding.name == "new" or .regarding.name == "ghost") | .reason')" ""
check "the object that does not exist: looked up once, counted unresolved" \
	[ "$(extdns_metric 'dnsbatch_events_total{result="unresolved"}')" -ge 1 ]
eq "every body the fake got matched the OpenAPI spec" "$(kube stats | jq -c .problems)" "[]"

##### ten loops: one Event per object and reason, with a series ###############################

echo tok-2 >"$T/token" # kubelet rotates the projected token
statuses=""
for loop in 2 3 4 5 6 7 8 9 10; do
	post
	statuses+=$STATUS
done
eq "loops 2-10: 204 each" "$statuses" 204204204204204204204204204
until_true 10 [ "$(requests 'PATCH 200')" = 4 ]
sleep 1
eq "after 10 loops: 6 Events (2 more: the held-back groups' RecordHeld), not 60" "$(requests 'POST 201')" 6
eq "after 10 loops: 4 patches (each repeating Event's series started: count 2), not one per loop" \
	"$(requests 'PATCH 200')" 4
# The patch that starts a series carries the count seen by then: 2 or more, and no more than the 10 loops made (the
# recorder posts from a queue of its own, so on a loaded machine it may see the count only once every loop is in;
# the exact count is checked at the stop, below).
eq "after 10 loops: RecordHeld on the Service and the HTTPRoute, each a series" \
	"$(events 'select(.reason == "RecordHeld") | "\(.regarding.name) \(.series.count >= 2 and .series.count <= 10)"')" \
	"$(printf '%s\n' 'mail true' 'sip-route true')"
check "the rotated token is used" [ "$(kube stats | jq '.tokens["tok-2"] // 0')" -ge 1 ]
extdns_stop
eq "SIGTERM: exit 0" "$EXTDNS_EXIT" 0
eq "stopped: each series holds its whole count" \
	"$(events '"\(.regarding.name) \(.reason) \(.series.count // 1)"')" \
	"$(printf '%s\n' 'mail RecordHeld 9' 'mail RecordQuarantined 1' 'other RecordDropped 10' \
		'sip-route RecordHeld 9' 'sip-route RecordQuarantined 1' 'static-records RecordDropped 10')"
eq "every body still matched the OpenAPI spec" "$(kube stats | jq -c .problems)" "[]"
outcomes s1 >"$T/outcomes.up"
check "the drop log of the run with the API up holds its drops" [ -s "$T/outcomes.up" ]

##### the API failing changes no outcome and no answer time ###################################

outage() { # MODE METRIC-RESULT: a fresh sidecar, the API in MODE, three loops
	local m=$1 result=$2 loop times=""
	mode "$m"
	serve "s.$m" --events-refresh 1
	for loop in 1 2 3; do
		post
		times+=" $SECONDS_TAKEN"
		[ "$loop" = 1 ] && eq "API $m: loop 1 answers 204" "$STATUS" 204
	done
	echo "# API $m: answer times$times s"
	check "API $m: each answer within 2 s" awk -v t="$times" 'BEGIN { n = split(t, a, " "); for (i = 1; i <= n; i++) if (a[i] > 2) exit 1 }'
	outcomes "s.$m" >"$T/outcomes.$m"
	eq "API $m: the same outcomes as with the API up" "$(diff "$T/outcomes.up" "$T/outcomes.$m" && echo same)" same
	until_true 15 [ "$(extdns_metric "dnsbatch_events_total{result=\"$result\"}")" -ge 1 ]
	check "API $m: counted in dnsbatch_events_total{result=\"$result\"}" \
		[ "$(extdns_metric "dnsbatch_events_total{result=\"$result\"}")" -ge 1 ]
	eq "API $m: logged once" "$(grep -c "Kubernetes Events: .*result=\"$result\"" "$T/s.$m")" 1
	extdns_stop
	eq "API $m: SIGTERM still exits 0" "$EXTDNS_EXIT" 0
}
outage forbidden forbidden
outage error error
outage reject rejected
eq "API reject: a 422 is not retried (one POST for each of the 6 Events)" "$(requests 'POST 422')" 6

# A reply slower than the client's 5 s: the Event lands, the client gives up on it; the retry finds it
# there (409 AlreadyExists) and takes it as posted: no second copy.
before=$(kube events | jq '.items | length')
mode slow
serve s.slow
post
eq "API slow: 204" "$STATUS" 204
check "API slow: answered within 2 s ($SECONDS_TAKEN s)" awk -v t="$SECONDS_TAKEN" 'BEGIN { exit !(t <= 2) }'
until_true 15 [ "$(extdns_metric 'dnsbatch_events_total{result="unreachable"}')" -ge 1 ]
mode ok
until_true 20 [ "$(requests 'POST 409')" -ge 1 ]
check "API slow: the retry of a create whose reply was lost gets 409 AlreadyExists" [ "$(requests 'POST 409')" -ge 1 ]
until_true 20 [ "$(kube events | jq '.items | length')" = $((before + 4)) ]
eq "API slow: each of the 4 Events once" "$(kube events | jq '.items | length')" $((before + 4))
check "API slow: counted exists" [ "$(extdns_metric 'dnsbatch_events_total{result="exists"}')" -ge 1 ]
extdns_stop

kill "$KPID" 2>/dev/null
wait "$KPID" 2>/dev/null
outage down unreachable

##### the fake's own answers ###################################################################

start_kube kube2
bad=$(curl -s --cacert "$T/ca.pem" -H 'Authorization: Bearer tok-1' -H 'Content-Type: application/json' \
	-w ' %{http_code}' --data '{"metadata":{"name":"x"},"eventTime":"2026-01-01T00:00:00.000000Z","reportingComponent":"y"}' \
	"$KURL/apis/events.k8s.io/v1/namespaces/default/events")
eq "the fake: an Event off the spec is 422 with a Status naming the field" \
	"$(echo "${bad% *}" | jq -r '"\(.kind) \(.reason) \(.code)"') ${bad##* }" "Status Invalid 422 422"
eq "the fake: no token is 401" "$(curl -s -o /dev/null -w '%{http_code}' --cacert "$T/ca.pem" "$KURL/api/v1/namespaces/default/services/mail")" 401

##### RecordFailed: the provider fails the change ##############################################

start_cf cf --fault 500*200 || exit 1
export CF_API_TOKEN=$TOKEN
plan "$T/cf.json" create="$(list "$(ep web.example.com A 300 192.0.2.10 | labelled service/shop/web)")"
extdns_serve "$T/cf.log" --provider cloudflare --cloudflare-api-endpoint "$URL/client/v4" --cloudflare-ca-file "$T/ca.pem" \
	--cloudflare-zone-id "$Z1" --backoff-base 0.01 --backoff-cap 0.05 --apply-timeout 3 \
	--events-emit RecordFailed --kubernetes-api "$KURL" --kubernetes-ca-file "$T/ca.pem" --kubernetes-token-file "$T/token" ||
	{ not_ok "serve --provider cloudflare --events-emit RecordFailed starts" "$(tail -5 "$T/cf.log")"; exit 1; }
extdns_post "$EXTDNS_API" /records "$T/cf.json" >/dev/null
eq "a failed change: 503 as before" "$EXTDNS_STATUS" 503
until_true 10 [ "$(kube events | jq '.items | length')" = 1 ]
eq "a failed change: RecordFailed on the Service" "$(events '"\(.regarding.kind) \(.regarding.name) \(.reason)"')" "Service web RecordFailed"
check "RecordFailed's note says it is retried" grep -q '^create web.example.com. A failed (.*), retried when external-dns sends the plan again' \
	<(events '.note')
extdns_stop
eq "every body the second fake got but the test's own matched the OpenAPI spec" \
	"$(kube stats | jq -c '[.problems[] | select(startswith("POST x:") | not)]')" "[]"

echo "# $failures failed"
[ "$failures" -eq 0 ]
