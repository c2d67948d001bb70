#!/usr/bin/env bash
# test_webhook_zonefile.sh - `dnsbatch serve --provider zonefile` end to end,
# driven as external-dns drives it: negotiation, GET /records, a plan with
# conflicts (204, rest applied, drop log, metrics), the same plan again
# (quarantined, no provider request), 400, 413, the pre-0.17 key spelling,
# JSON logs, and SIGTERM (exit 0, drop log flushed). The zone file must stay
# acceptable to BIND's named-checkzone throughout.
. "$(dirname "$0")/checks.sh"
test_begin
. tests/integration/extdns_client.sh

tmp=$(mktemp -d "${TMPDIR:-/tmp}/dnsbatch-webhook-zonefile.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

{ zone_head example.test; cat; } >"$tmp/example.test.zone" <<'EOF'
taken    IN A   198.51.100.1
www      IN CNAME lb.example.net.
multi    IN A   192.0.2.10
multi    IN A   192.0.2.11
EOF

# What external-dns sends for two Ingresses: app is new, taken is someone
# else's record already (a conflict); each with its TXT registry record.
cat >"$tmp/plan.json" <<'EOF'
{"create":[
 {"dnsName":"app.example.test","targets":["203.0.113.10"],"recordType":"A","recordTTL":300,"labels":{"owner":"default","resource":"ingress/default/app"}},
 {"dnsName":"a-app.example.test","targets":["\"heritage=external-dns,external-dns/owner=default,external-dns/resource=ingress/default/app\""],"recordType":"TXT","labels":{"ownedRecord":"app.example.test"}},
 {"dnsName":"taken.example.test","targets":["203.0.113.11"],"recordType":"A","recordTTL":300,"labels":{"owner":"default","resource":"ingress/default/taken"}},
 {"dnsName":"a-taken.example.test","targets":["\"heritage=external-dns,external-dns/owner=default,external-dns/resource=ingress/default/taken\""],"recordType":"TXT","labels":{"ownedRecord":"taken.example.test"}}]}
EOF
# The next loop's plan: app is in GET /records now, taken still conflicts.
cat >"$tmp/plan-next.json" <<'EOF'
{"create":[
 {"dnsName":"taken.example.test","targets":["203.0.113.11"],"recordType":"A","recordTTL":300,"labels":{"owner":"default","resource":"ingress/default/taken"}},
 {"dnsName":"a-taken.example.test","targets":["\"heritage=external-dns,external-dns/owner=default,external-dns/resource=ingress/default/taken\""],"recordType":"TXT","labels":{"ownedRecord":"taken.example.test"}}]}
EOF
# external-dns before v0.17 (capitalised keys, empty lists as null).
cat >"$tmp/plan-legacy.json" <<'EOF'
{"Create":null,"UpdateOld":[{"dnsName":"app.example.test","targets":["203.0.113.10"],"recordType":"A","recordTTL":300}],
 "UpdateNew":[{"dnsName":"app.example.test","targets":["203.0.113.20"],"recordType":"A","recordTTL":300}],"Delete":null}
EOF
printf '{"create":[{"dnsName":"x.example.test","targets":["192.0.2.1"],"recordType":"A"}' >"$tmp/truncated.json"
head -c 70000 /dev/zero | tr '\0' ' ' >"$tmp/big.json"

checkzone() { named-checkzone -q example.test "$tmp/example.test.zone"; }
has_endpoint() { # FILE NAME TYPE [TARGET...]: one endpoint with exactly these targets
	local f=$1 n=$2 t=$3
	shift 3
	jq -e --arg n "$n" --arg t "$t" --argjson want "$(printf '%s\n' "$@" | jq -R . | jq -s 'map(select(. != ""))')" \
		'[.[] | select(.dnsName == $n and .recordType == $t)] | length == 1 and
		 (($want | length) == 0 or (.[0].targets | sort) == ($want | sort))' "$f"
}

extdns_serve "$tmp/serve.log" --provider zonefile --zonefile "example.test=$tmp/example.test.zone" \
	--domain-filter example.test --drop-log "$tmp/drops.jsonl" --max-body-size 64k --log-format json \
	--quarantine-backoff 60 || { echo "not ok - serve starts"; exit 1; }
echo "ok - serve starts on free loopback ports"
extdns_check "healthz ready once the provider answered" extdns_wait_ready 10

# Negotiation: the exact media type, the filter as external-dns decodes it.
extdns_get "$EXTDNS_API" / >"$tmp/neg.json"
extdns_check "GET / answers 200" [ "$EXTDNS_STATUS" = 200 ]
extdns_check "GET / media type byte for byte" [ "$EXTDNS_CT" = "$EXTDNS_MEDIA_TYPE" ]
extdns_check "GET / domain filter" jq -e '. == {"include":["example.test"]}' "$tmp/neg.json"

extdns_get "$EXTDNS_API" /records >"$tmp/records.json"
extdns_check "GET /records answers 200 with the media type" [ "$EXTDNS_STATUS:$EXTDNS_CT" = "200:$EXTDNS_MEDIA_TYPE" ]
extdns_check "GET /records: multi-value RRset is one endpoint" has_endpoint "$tmp/records.json" multi.example.test A 192.0.2.10 192.0.2.11
extdns_check "GET /records: CNAME target without trailing dot" has_endpoint "$tmp/records.json" www.example.test CNAME lb.example.net
extdns_check "GET /records: no SOA" jq -e 'all(.recordType != "SOA")' "$tmp/records.json"
# One Endpoint serializer: the command line lists the zone exactly as GET /records does.
"$DNSBATCH" records --provider zonefile --zonefile "example.test=$tmp/example.test.zone" --output json >"$tmp/cli.json"
extdns_check "records --output json: the same Endpoints as GET /records" jq -e --slurpfile cli "$tmp/cli.json" \
	'sort_by(.dnsName, .recordType) == ($cli[0] | sort_by(.dnsName, .recordType))' "$tmp/records.json"

# A plan with a conflict: 204, the rest applied, the conflict dropped and logged.
extdns_post "$EXTDNS_API" /records "$tmp/plan.json" >/dev/null
extdns_check "POST /records with a conflict answers 204" [ "$EXTDNS_STATUS" = 204 ]
extdns_get "$EXTDNS_API" /records >"$tmp/records.json"
extdns_check "the rest applied" has_endpoint "$tmp/records.json" app.example.test A 203.0.113.10
extdns_check "its ownership record applied" has_endpoint "$tmp/records.json" a-app.example.test TXT
extdns_check "the conflicting group left alone" has_endpoint "$tmp/records.json" taken.example.test A 198.51.100.1
extdns_check "no ownership record for the conflict" jq -e 'all(.dnsName != "a-taken.example.test")' "$tmp/records.json"
extdns_check "zone file written, named-checkzone accepts it" checkzone
extdns_check "zone file holds the new record" grep -q '^app\.example\.test\.' "$tmp/example.test.zone"
extdns_check "drop log: the group's 2 changes, reason conflict" \
	[ "$(jq -s '[.[] | select(.reason == "conflict")] | length' "$tmp/drops.jsonl")" = 2 ]
extdns_check "drop log lines turn back into a plan" jq -e -s 'all(.change.create | length == 1)' "$tmp/drops.jsonl"
extdns_check "metrics: dropped changes by reason" \
	[ "$(extdns_metric 'dnsbatch_dropped_changes_total{zone="example.test.",record_type="A",reason="conflict",cause="exists"}')" = 1 ]
extdns_check "metrics: applied changes" \
	[ "$(extdns_metric 'dnsbatch_changes_total{zone="example.test.",outcome="applied"}')" = 2 ]
extdns_check "metrics: one group quarantined" [ "$(extdns_metric dnsbatch_quarantined_groups)" = 1 ]
curl -s "$EXTDNS_MON/metrics" >"$tmp/metrics.txt"
extdns_check "metrics pass promtool check metrics" sh -c "promtool check metrics <'$tmp/metrics.txt'"

# The same plan again: the conflicting group is quarantined.
extdns_post "$EXTDNS_API" /records "$tmp/plan.json" >/dev/null
extdns_check "the same POST again answers 204" [ "$EXTDNS_STATUS" = 204 ]
# Held back, it is counted (below), not written again: its lines say the quarantine started.
extdns_check "drop log: the group quarantined, written once" \
	[ "$(jq -s '[.[] | select(.quarantine == "start")] | length' "$tmp/drops.jsonl"):$(wc -l <"$tmp/drops.jsonl")" = 2:2 ]
# The next loop's plan (only the conflicting group) costs no provider request.
requests() {
	curl -s "$EXTDNS_MON/metrics" |
		awk '/^dnsbatch_provider_requests_total\{provider="zonefile",operation="(submit|read)"/ { s += $NF } END { print s + 0 }'
}
before=$(requests)
extdns_post "$EXTDNS_API" /records "$tmp/plan-next.json" >/dev/null
extdns_check "the conflicting group alone answers 204" [ "$EXTDNS_STATUS" = 204 ]
extdns_check "quarantined: zero provider requests for it" [ "$(requests)" = "$before" ]
extdns_check "metrics: quarantined drops counted" \
	[ "$(extdns_metric 'dnsbatch_dropped_changes_total{zone="example.test.",record_type="A",reason="quarantined",cause="quarantined"}')" = 2 ]

# Bodies that are not plans: 400, nothing written. Over the cap: 413.
sum=$(md5sum <"$tmp/example.test.zone")
extdns_post "$EXTDNS_API" /records "$tmp/truncated.json" >/dev/null
extdns_check "malformed body answers 400" [ "$EXTDNS_STATUS" = 400 ]
extdns_check "malformed body: zone file untouched" [ "$(md5sum <"$tmp/example.test.zone")" = "$sum" ]
extdns_post "$EXTDNS_API" /records "$tmp/big.json" >/dev/null
extdns_check "oversized body answers 413" [ "$EXTDNS_STATUS" = 413 ]
extdns_check "oversized body: zone file untouched" [ "$(md5sum <"$tmp/example.test.zone")" = "$sum" ]

extdns_post "$EXTDNS_API" /records "$tmp/plan-legacy.json" >/dev/null
extdns_check "pre-0.17 key spelling answers 204" [ "$EXTDNS_STATUS" = 204 ]
extdns_get "$EXTDNS_API" /records >"$tmp/records.json"
extdns_check "pre-0.17 update applied" has_endpoint "$tmp/records.json" app.example.test A 203.0.113.20

printf '[{"dnsName":"app.example.test","targets":["203.0.113.20"],"recordType":"A"}]' >"$tmp/adjust.json"
extdns_post "$EXTDNS_API" /adjustendpoints "$tmp/adjust.json" >"$tmp/adjusted.json"
extdns_check "POST /adjustendpoints answers 200 with the media type" [ "$EXTDNS_STATUS:$EXTDNS_CT" = "200:$EXTDNS_MEDIA_TYPE" ]
extdns_check "POST /adjustendpoints returns the endpoints" jq -e --slurpfile a "$tmp/adjust.json" '. == $a[0]' "$tmp/adjusted.json"

extdns_stop
extdns_check "SIGTERM: exit status 0" [ "$EXTDNS_EXIT" = 0 ]
extdns_check "SIGTERM: logged the stop" grep -q '"msg":"stopped"' "$tmp/serve.log"
extdns_check "--log-format json: every log line is a JSON object" jq -e -s 'all(type == "object" and has("level"))' "$tmp/serve.log"
extdns_check "zone file still valid after shutdown" checkzone

# SIGINT (Ctrl-C) stops as gracefully as SIGTERM.
extdns_serve "$tmp/serve2.log" --provider zonefile --zonefile "example.test=$tmp/example.test.zone" &&
	extdns_wait_ready 10 && kill -INT "$EXTDNS_PID" && wait "$EXTDNS_PID"
extdns_check "SIGINT: exit status 0" [ $? = 0 ]
extdns_check "SIGINT: logged" grep -q 'received SIGINT' "$tmp/serve2.log"

# The domain filter narrows the zones served: other.test (outside it) is neither
# listed nor written, a change there ends no_zone; an alias is refused by a
# provider that stores none (AdjustEndpoints returns it unchanged, the plan drops it).
zone_head other.test 192.0.2.54 >"$tmp/other.test.zone"
cat >"$tmp/plan-scope.json" <<'EOF'
{"create":[
 {"dnsName":"new.other.test","targets":["192.0.2.77"],"recordType":"A"},
 {"dnsName":"lb.example.test","targets":["my-lb-1.us-east-1.elb.amazonaws.com"],"recordType":"A","providerSpecific":[{"name":"alias","value":"true"}]},
 {"dnsName":"plain.example.test","targets":["192.0.2.78"],"recordType":"A"}]}
EOF
sum_other=$(md5sum <"$tmp/other.test.zone")
extdns_serve "$tmp/serve3.log" --provider zonefile --zonefile "example.test=$tmp/example.test.zone" \
	--zonefile "other.test=$tmp/other.test.zone" --domain-filter example.test --drop-log "$tmp/drops3.jsonl" &&
	extdns_wait_ready 10
extdns_check "domain filter: 1 of 2 zones served (logged)" grep -q 'serving 1 of 2 zones' "$tmp/serve3.log"
extdns_get "$EXTDNS_API" /records >"$tmp/records3.json"
extdns_check "domain filter: GET /records lists nothing of other.test" \
	jq -e 'length > 0 and all(.dnsName | endswith("other.test") | not)' "$tmp/records3.json"
extdns_post "$EXTDNS_API" /records "$tmp/plan-scope.json" >/dev/null
extdns_check "domain filter: the plan answers 204" [ "$EXTDNS_STATUS" = 204 ]
extdns_check "domain filter: other.test's zone file untouched" [ "$(md5sum <"$tmp/other.test.zone")" = "$sum_other" ]
extdns_check "domain filter: the change in other.test dropped no_zone" \
	jq -e -s 'any(.change.create[0].dnsName == "new.other.test" and .reason == "no_zone")' "$tmp/drops3.jsonl"
extdns_check "alias on zonefile: dropped invalid, naming the provider" \
	jq -e -s 'any(.change.create[0].dnsName == "lb.example.test" and .reason == "invalid" and
		(.message | test("alias.*provider zonefile stores no aliases")))' "$tmp/drops3.jsonl"
extdns_check "the rest of the plan applied" grep -q '^plain' "$tmp/example.test.zone"
printf '[{"dnsName":"lb.example.test","targets":["my-lb-1.us-east-1.elb.amazonaws.com"],"recordType":"A","providerSpecific":[{"name":"alias","value":"true"}]}]' >"$tmp/adjust-alias.json"
extdns_post "$EXTDNS_API" /adjustendpoints "$tmp/adjust-alias.json" >"$tmp/adjusted-alias.json"
extdns_check "alias on zonefile: AdjustEndpoints returns it unchanged" \
	jq -e --slurpfile a "$tmp/adjust-alias.json" '. == $a[0]' "$tmp/adjusted-alias.json"
extdns_stop
"$DNSBATCH" serve --provider zonefile --zonefile "example.test=$tmp/example.test.zone" \
	--domain-filter example.org --listen 127.0.0.1:0 --metrics-listen '' 2>"$tmp/nozone.err"
extdns_check "a domain filter no zone lies in: exit 2" [ $? = 2 ]
extdns_check "a domain filter no zone lies in: the message names the zones" \
	grep -q "no zone of provider zonefile lies within the domain filter (its zones: example.test.)" "$tmp/nozone.err"

# A bad command line is a usage error, before anything listens.
"$DNSBATCH" serve --provider zonefile --zonefile "example.test=$tmp/example.test.zone" \
	--domain-filter example.test --regex-domain-filter 'x' --listen 127.0.0.1:0 --metrics-listen '' 2>/dev/null
extdns_check "lists and regex filters together: exit 2" [ $? = 2 ]
"$DNSBATCH" serve --provider zonefile --zonefile "example.test=$tmp/example.test.zone" --apply-timeout 0 2>/dev/null
extdns_check "--apply-timeout 0: exit 2" [ $? = 2 ]
# The Kubernetes example's dnsbatch arguments are flags `serve` knows (--help
# last: every flag before it is parsed, none is acted on).
mapfile -t k8s_args < <(sed -n '/^ *- serve$/,/^ *ports:/p' examples/kubernetes/external-dns-dnsbatch.yaml |
	sed -n 's/^ *- \(--[^ #]*\).*/\1/p')
extdns_check "examples/kubernetes: dnsbatch args parse" \
	sh -c '[ "$#" -gt 5 ] && "$0" serve "$@" --help' "$DNSBATCH" "${k8s_args[@]}"
extdns_done
