#!/usr/bin/env bash
# test_drop_causes.sh - every dropped change says what is in its way (cause,
# current, owner), end to end through `dnsbatch serve` on the zone-file
# provider and on rfc2136 against a real BIND: the drop log line's fields
# exact, the text log line, an ownership record under a --txt-prefix-style
# name, a name with no ownership record, GET /quarantine after the POST and
# after the holds run out, and the reads it cost. Nothing here depends on
# how fast the machine is: the checks of what is held run while the holds
# last an hour, and the holds running out is a second server with 1 s holds
# whose /quarantine is polled until it is empty (a condition, not a sleep).
. "$(dirname "$0")/checks.sh"
test_begin
. tests/integration/servers.sh
. tests/integration/extdns_client.sh

dnsb_servers_init
tmp=$(mktemp -d "$DNSB_SERVERS_TMP/causes.XXXXXX")

{ zone_head example.test; cat; } >"$tmp/zone" <<EOF
taken      IN A   198.51.100.77
a-taken    IN TXT $(registry_txt other ingress/default/legacy)
web        IN A   192.0.2.80
pre-a-web  IN TXT $(registry_txt blue service/web)
moved      IN A   192.0.2.82
a-moved    IN TXT $(registry_txt default ingress/default/moved)
status     IN A   192.0.2.90
EOF

ep() { # NAME TYPE TARGET: an endpoint
	printf '{"dnsName":"%s","targets":["%s"],"recordType":"%s","recordTTL":300,"labels":{"owner":"default"}}' "$1" "$3" "$2"
}
own() { # TXTNAME OWNED: an ownership record as the TXT registry writes it
	printf '{"dnsName":"%s","targets":["\\"heritage=external-dns,external-dns/owner=default\\""],"recordType":"TXT","labels":{"ownedRecord":"%s"}}' "$1" "$2"
}
{
	printf '{"create":[%s,%s,%s,%s,%s,%s],' "$(ep taken.example.test A 192.0.2.1)" "$(own a-taken.example.test taken.example.test)" \
		"$(ep web.example.test A 192.0.2.2)" "$(own pre-a-web.example.test web.example.test)" \
		"$(ep status.example.test CNAME lb.example.net)" "$(ep free.example.test A 192.0.2.3)"
	printf '"updateOld":[%s,%s],' "$(ep moved.example.test A 192.0.2.9)" "$(ep gone.example.test A 192.0.2.8)"
	printf '"updateNew":[%s,%s]}' "$(ep moved.example.test A 192.0.2.10)" "$(ep gone.example.test A 192.0.2.11)"
} >"$tmp/plan.json"
jq -e . "$tmp/plan.json" >/dev/null || { echo "not ok - the test plan is JSON"; exit 1; }

line() { # DROPS NAME TYPE JQ: the value of JQ on the drop log line of the change at NAME TYPE
	jq -c --arg n "$2" --arg t "$3" "select(.change | to_entries[0].value[0] | .dnsName == \$n and .recordType == \$t) | $4" "$1"
}

suite() { # LABEL SERVE-ARGS...
	local label=$1 d
	shift
	d=$tmp/$label
	mkdir -p "$d"
	extdns_serve "$d/serve.log" "$@" --drop-log "$d/drops.jsonl" --quarantine-backoff 3600 --quarantine-max 3600 ||
		{ echo "not ok - $label: serve starts"; EXTDNS_FAILED=$((EXTDNS_FAILED + 1)); return; }
	extdns_wait_ready 10
	local reads0 reads1
	reads0=$(extdns_metric 'dnsbatch_provider_requests_total{provider="'"$label"'",operation="read",class="ok"}')
	extdns_post "$EXTDNS_API" /records "$tmp/plan.json" >/dev/null
	reads1=$(extdns_metric 'dnsbatch_provider_requests_total{provider="'"$label"'",operation="read",class="ok"}')
	extdns_check "$label: POST answers 204" [ "$EXTDNS_STATUS" = 204 ]
	# The diagnosis costs no read of its own: each read is the one verify-before-drop makes, at most one per
	# dropped group (one per refusal when the provider names a culprit at a time, as these two do).
	echo "# $label: $((reads1 - reads0)) read(s) for 5 dropped groups"
	extdns_check "$label: at most one read per dropped group ($((reads1 - reads0)))" [ "$((reads1 - reads0))" -le 5 ]

	local f=$d/drops.jsonl
	extdns_check "$label: exists: cause" [ "$(line "$f" taken.example.test A .cause)" = '"exists"' ]
	extdns_check "$label: exists: current exact" [ "$(line "$f" taken.example.test A .current)" = \
		'[{"dnsName":"taken.example.test","targets":["198.51.100.77"],"recordType":"A","recordTTL":300}]' ]
	extdns_check "$label: exists: owner and resource" [ "$(line "$f" taken.example.test A '[.owner, .owner_resource]')" = \
		'["other","ingress/default/legacy"]' ]
	extdns_check "$label: its ownership record: the other owner's record is in its way too" \
		[ "$(line "$f" a-taken.example.test TXT '[.cause, .current[0].dnsName, .owner]')" = '["exists","a-taken.example.test","other"]' ]
	extdns_check "$label: an ownership record under a prefix (pre-a-web): owner blue" \
		[ "$(line "$f" web.example.test A '[.cause, .owner, .owner_resource]')" = '["exists","blue","service/web"]' ]
	extdns_check "$label: differs: cause, current, owner" [ "$(line "$f" moved.example.test A '[.cause, .current[0].targets, .owner]')" = \
		'["differs",["192.0.2.82"],"default"]' ]
	extdns_check "$label: missing: nothing held, no owner" [ "$(line "$f" gone.example.test A '[.cause, .current, .owner]')" = \
		'["missing",[],null]' ]
	extdns_check "$label: cname: the A in the way, no ownership record" \
		[ "$(line "$f" status.example.test CNAME '[.cause, .current[0].recordType, .current[0].targets, has("owner")]')" = \
		'["cname","A",["192.0.2.90"],false]' ]
	extdns_check "$label: the text log line says it" grep -Fq \
		'dropped create taken.example.test. A: exists: held as 198.51.100.77 (TTL 300), owner "other" (ingress/default/legacy)' \
		"$d/serve.log"
	extdns_check "$label: metrics: dropped by cause" \
		[ "$(extdns_metric 'dnsbatch_dropped_changes_total{zone="example.test.",record_type="A",reason="conflict",cause="exists"}')" = 2 ]
	extdns_check "$label: metrics: groups per foreign owner" \
		[ "$(extdns_metric 'dnsbatch_conflicting_owner_groups{zone="example.test.",foreign_owner="other"}')" = 1 ]

	extdns_check "$label: GET /quarantine is not served on the metrics port" \
		[ "$(curl -s -o /dev/null -w '%{http_code}' "$EXTDNS_MON/quarantine")" = 404 ]
	curl -s "$EXTDNS_API/quarantine" >"$d/q.json"
	extdns_check "$label: GET /quarantine: the 5 groups" [ "$(jq length "$d/q.json")" = 5 ]
	extdns_check "$label: GET /quarantine: cause, owner, message of the taken group" \
		jq -e 'any(.changes[0].dnsName == "taken.example.test" and .cause == "exists" and .owner == "other"
			and (.message | length > 0) and .attempts == 1 and (.next_retry | test("Z$")))' "$d/q.json"
	"$DNSBATCH" drops --url "$EXTDNS_API" >"$d/q.txt"
	extdns_check "$label: drops --url prints the table" grep -Eq '^[0-9T:-]+Z +example\.test\. +taken\.example\.test A \+1 +exists +other' "$d/q.txt"
	"$DNSBATCH" drops "$f" --explain >"$d/explain.txt"
	extdns_check "$label: drops --explain" grep -Fxq \
		'dropped update moved.example.test. A: differs: held as 192.0.2.82 (TTL 300), owner "default" (ingress/default/moved)' "$d/explain.txt"
	extdns_stop

	# Holds of 1 s: held at the POST, then gone once they run out, however long the POST took.
	extdns_serve "$d/short.log" "$@" --drop-log "$d/short.jsonl" --quarantine-backoff 1 --quarantine-max 1 ||
		{ echo "not ok - $label: serve starts (1 s holds)"; EXTDNS_FAILED=$((EXTDNS_FAILED + 1)); return; }
	extdns_wait_ready 10
	extdns_post "$EXTDNS_API" /records "$tmp/plan.json" >/dev/null
	extdns_check "$label: 1 s holds: the groups were quarantined" grep -q '"quarantine":"start"' "$d/short.jsonl"
	local held i
	for ((i = 0; i < 600; i++)); do # 30 s at most: a hold of 1 s that never ends is the failure this finds
		held=$(curl -s "$EXTDNS_API/quarantine")
		[ "$held" = "[]" ] && break
		sleep 0.05
	done
	extdns_check "$label: GET /quarantine after the holds ran out: empty" [ "$held" = "[]" ]
	extdns_stop
}

extdns_on_providers suite "$tmp/zone" "$tmp"
extdns_done
