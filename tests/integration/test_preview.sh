#!/usr/bin/env bash
# test_preview.sh - `dnsbatch plan` (issue 33 §1) against apply, change by change, on memory, zonefile,
# BIND (rfc2136) and PowerDNS: the preview's outcomes list equals the following apply's (path, outcome, reason, cause);
# the preview writes nothing; `apply --checksum` applies only the plan and live state the preview saw, else
# exits 2 with nothing sent and names what changed.
. "$(dirname "$0")/checks.sh"
test_begin
export DNSBATCH
. tests/integration/servers.sh

needs named tsig-keygen dig nsupdate jq
dnsb_servers_init
T=$DNSB_SERVERS_TMP

{ zone_head example.test; cat; } >"$T/zone" <<'EOF'
taken    IN A   198.51.100.1
same     IN A   192.0.2.7
old      IN A   192.0.2.8
moved    IN A   192.0.2.9
EOF
# One change of each fate: apply, already in effect, conflict (exists, differs), no zone, invalid.
cat >"$T/plan.json" <<'EOF'
{"create":[
 {"dnsName":"new.example.test","targets":["203.0.113.1"],"recordType":"A","recordTTL":300},
 {"dnsName":"taken.example.test","targets":["203.0.113.2"],"recordType":"A","recordTTL":300},
 {"dnsName":"same.example.test","targets":["192.0.2.7"],"recordType":"A","recordTTL":300},
 {"dnsName":"x.elsewhere.test","targets":["203.0.113.3"],"recordType":"A","recordTTL":300},
 {"dnsName":"bad.example.test","targets":["999.0.0.1"],"recordType":"A","recordTTL":300}],
 "updateOld":[{"dnsName":"old.example.test","targets":["192.0.2.8"],"recordType":"A","recordTTL":300},
              {"dnsName":"moved.example.test","targets":["192.0.2.99"],"recordType":"A","recordTTL":300}],
 "updateNew":[{"dnsName":"old.example.test","targets":["192.0.2.18"],"recordType":"A","recordTTL":300},
              {"dnsName":"moved.example.test","targets":["192.0.2.100"],"recordType":"A","recordTTL":300}],
 "delete":[{"dnsName":"gone.example.test","targets":["192.0.2.5"],"recordType":"A","recordTTL":300}]}
EOF
jqe() { jq -e "$@" >/dev/null; }
outcomes() { jq -c '[.outcomes[] | {path, outcome, reason, cause}]' "$1"; }

suite() { # NAME: PROVIDER_ARGS set; reset puts the zone back
	local name=$1 c
	reset
	"$DNSBATCH" plan "${PROVIDER_ARGS[@]}" --plan "$T/plan.json" --output json --quiet >"$T/$name.plan.json"
	eq "$name: plan exits 3 (some would be dropped)" "$?" 3
	eq "$name: the preview wrote nothing" "$(state)" "$BEFORE"
	check "$name: the preview reads once for the zone's one batch" jqe '.reads == 1' "$T/$name.plan.json"
	check "$name: the preview sees the conflicts and their causes" jqe \
		'[.outcomes[] | select(.outcome == "dropped") | .cause] == ["exists", "no_zone", "invalid", "differs"]' \
		"$T/$name.plan.json"
	c=$(jq -r .checksum "$T/$name.plan.json")
	"$DNSBATCH" apply "${PROVIDER_ARGS[@]}" --plan "$T/plan.json" --output json --quiet --checksum "$c" >"$T/$name.apply.json"
	eq "$name: apply --checksum with the preview's checksum applies (exit 3)" "$?" 3
	eq "$name: the preview agrees with the apply, change by change" "$(outcomes "$T/$name.plan.json")" \
		"$(outcomes "$T/$name.apply.json")"
	check "$name: ... and predicted something of each kind" jqe \
		'[.outcomes[].outcome] | sort | unique == ["already_applied", "applied", "dropped"]' "$T/$name.apply.json"
	# A changed live state: the checksum no longer matches, nothing is sent.
	reset
	write_other
	BEFORE=$(state)
	"$DNSBATCH" apply "${PROVIDER_ARGS[@]}" --plan "$T/plan.json" --checksum "$c" --quiet 2>"$T/$name.err" >/dev/null
	eq "$name: apply --checksum after the live state changed exits 2" "$?" 2
	check "$name: ... naming the live state" grep -q 'the live state .* changed since the preview: nothing sent' "$T/$name.err"
	eq "$name: ... and sends nothing" "$(state)" "$BEFORE"
	reset
	sed 's/203.0.113.1/203.0.113.11/' "$T/plan.json" >"$T/plan2.json"
	"$DNSBATCH" apply "${PROVIDER_ARGS[@]}" --plan "$T/plan2.json" --checksum "$c" --quiet 2>"$T/$name.err" >/dev/null
	eq "$name: apply --checksum of another plan exits 2" "$?" 2
	check "$name: ... naming the plan" grep -q 'the plan changed since the preview: nothing sent' "$T/$name.err"
	eq "$name: ... and sends nothing" "$(state)" "$BEFORE"
}

##### zonefile ##########################################################################################
PROVIDER_ARGS=(--provider zonefile --zonefile "example.test=$T/zf.zone")
reset() { cp "$T/zone" "$T/zf.zone"; BEFORE=$(state); }
state() { cat "$T/zf.zone"; }
write_other() { printf 'new 300 IN A 198.51.100.77\n' >>"$T/zf.zone"; }
suite zonefile

##### memory (loaded from the zone file in each process) ##############################################
PROVIDER_ARGS=(--provider memory --memory-zonefile "example.test=$T/mem.zone")
reset() { cp "$T/zone" "$T/mem.zone"; BEFORE=$(state); }
state() { cat "$T/mem.zone"; }
write_other() { printf 'taken 300 IN A 198.51.100.2\n' >>"$T/mem.zone"; }
suite memory

##### BIND (rfc2136) ####################################################################################
dnsb_tsig_keygen "$T/key.conf" || { not_ok "tsig-keygen"; exit 1; }
if dnsb_start_named example.test "$T/zone" "$T/key.conf"; then
	NAMED_PORT=$DNSB_SERVER_PORT
	PROVIDER_ARGS=(--provider rfc2136 --rfc2136-host 127.0.0.1 --rfc2136-port "$NAMED_PORT" --rfc2136-zone example.test
		--rfc2136-tsig-keyfile "$T/key.conf")
	nsu() { printf 'server 127.0.0.1 %s\n%s\nsend\n' "$NAMED_PORT" "$1" | nsupdate -k "$T/key.conf"; }
	reset() { # the zone as $T/zone has it, by UPDATE
		nsu "update delete new.example.test. A
update delete taken.example.test. A
update add taken.example.test. 300 IN A 198.51.100.1
update delete old.example.test. A
update add old.example.test. 300 IN A 192.0.2.8
update delete moved.example.test. A
update add moved.example.test. 300 IN A 192.0.2.9"
		BEFORE=$(state)
	}
	state() { dig +noall +answer +norec -p "$NAMED_PORT" @127.0.0.1 example.test AXFR | sort; }
	write_other() { nsu "update add new.example.test. 300 IN A 198.51.100.77"; }
	suite bind
else
	not_ok "named starts"
fi
##### PowerDNS ##########################################################################################
if command -v pdns_server >/dev/null 2>&1 && dnsb_start_pdns example.test 2>"$T/pdns-start.err"; then
	PKEY=$DNSB_PDNS_KEYFILE
	API=$DNSB_PDNS_URL/api/v1/servers/localhost/zones/example.test.
	api() { curl -s -H "X-API-Key: $(cat "$PKEY")" -H 'Content-Type: application/json' -X "$1" ${2:+-d "$2"} "$API"; }
	rr() { printf '{"name":"%s.example.test.","type":"A","ttl":300,"changetype":"REPLACE","records":[{"content":"%s","disabled":false}]}' "$1" "$2"; }
	reset() {
		api PATCH "{\"rrsets\":[$(rr taken 198.51.100.1),$(rr same 192.0.2.7),$(rr old 192.0.2.8),$(rr moved 192.0.2.9),
			{\"name\":\"new.example.test.\",\"type\":\"A\",\"changetype\":\"DELETE\"}]}" >/dev/null
		BEFORE=$(state)
	}
	state() { api GET | jq -c '[.rrsets[] | {name, type, ttl, records: [.records[].content] | sort}] | sort_by(.name, .type)'; }
	write_other() { api PATCH "{\"rrsets\":[$(rr new 198.51.100.77)]}" >/dev/null; }
	PROVIDER_ARGS=(--provider pdns --pdns-server "$DNSB_PDNS_URL" --pdns-api-key-file "$PKEY")
	suite pdns
else
	not_ok "pdns_server starts" "$(cat "$T/pdns-start.err" 2>/dev/null)"
fi
[ "$failures" -eq 0 ]
