#!/usr/bin/env bash
#
# test_group_whole.sh - a change group lands or drops as one, an update that
# changes nothing writes nothing, and external-dns v0.22's registry migration
# converges; through the dnsbatch binary on the zone file, a real BIND
# (rfc2136, TSIG), a real PowerDNS and the memory provider.
#
# 1. The migration, driven as external-dns v0.22 drives it (registry/txt/
#    registry.go): a record owned through an old-format ownership TXT (at its
#    own name) and no new-format one ("a-" + name) is marked txt/force-update,
#    and each loop sends updateOld [A, a- TXT] / updateNew [A, a- TXT] while
#    GET /records does not show the a- TXT. Writes per loop (SOA serial steps)
#    must be 1,0,0,0,0 (before: 0,1,1,1,1 and the TXT never made).
# 2. A group of three (A, its a- TXT, its old-format TXT) with one member
#    refused in turn by what the provider holds: no other member is written,
#    and every member is reported dropped (also when one is in effect).
# 3. An update whose old and new RRsets are equal: already_applied, no write
#    (serial unchanged); the same update of a record that is not there is no
#    proof: dropped as missing.
#
# Prints "ok - NAME" or "not ok - NAME" per check; exits 1 if any failed.
. "$(dirname "$0")/checks.sh"
test_begin
export DNSBATCH
. tests/integration/servers.sh
. tests/integration/extdns_client.sh

for tool in named tsig-keygen dig pdns_server sqlite3 jq curl; do
	command -v "$tool" >/dev/null 2>&1 || { not_ok "tool $tool is installed (make deps)"; exit 1; }
done
dnsb_servers_init
T=$DNSB_SERVERS_TMP
H='heritage=external-dns,external-dns/owner=default,external-dns/resource=service/default/legacy'

{ zone_head example.test; cat; } >"$T/zone" <<EOF
legacy   IN A   192.0.2.10
legacy   IN TXT "$H"
same     IN A   192.0.2.20
EOF

# The request external-dns v0.22 sends for a record marked txt/force-update.
force_update() {
	local a ps txt
	ps='"providerSpecific":[{"name":"txt/force-update","value":"true"}]'
	a='"dnsName":"legacy.example.test","targets":["192.0.2.10"],"recordType":"A","recordTTL":300,"labels":{"owner":"default","resource":"service/default/legacy"}'
	txt=$(jq -cn --arg v "\"$H\"" '{dnsName:"a-legacy.example.test",targets:[$v],recordType:"TXT",labels:{ownedRecord:"legacy.example.test"}}')
	printf '{"updateOld":[{%s,%s},%s],"updateNew":[{%s},%s]}' "$a" "$ps" "$(jq -c --argjson p "[${ps#*:}]" '. + {providerSpecific:$p}' <<<"$txt")" "$a" "$txt"
}
force_update >"$T/force.json"
jq -e '.updateOld | length == 2' "$T/force.json" >/dev/null || { not_ok "the force-update plan is JSON"; exit 1; }

# The group of three: the A at NAME, its new-format and its old-format ownership TXT.
group3() {
	local n=$1 v="\"heritage=external-dns,external-dns/owner=default,external-dns/resource=service/default/$1\""
	jq -cn --arg n "$n.example.test" --arg v "$v" '{create:[
		{dnsName:$n, targets:["203.0.113.7"], recordType:"A", recordTTL:300},
		{dnsName:("a-" + $n), targets:[$v], recordType:"TXT", labels:{ownedRecord:$n}},
		{dnsName:$n, targets:[$v], recordType:"TXT", labels:{ownedRecord:$n}}]}'
}
# An update of `same` (or NAME) to what it holds.
noop_plan() {
	jq -cn --arg n "${1:-same}.example.test" '{updateOld:[{dnsName:$n,targets:["192.0.2.20"],recordType:"A",recordTTL:300}],
		updateNew:[{dnsName:$n,targets:["192.0.2.20"],recordType:"A",recordTTL:300}]}'
}

# The suites below run once per provider; PROVIDER_ARGS, serial() and seed() say how to reach it.
migration_loops() { # LABEL
	local label=$1 loop s0 s1 writes=() recs
	extdns_serve "$T/$label-serve.log" "${PROVIDER_ARGS[@]}" --drop-log "$T/$label-migration.drops" ||
		{ not_ok "$label: serve starts"; return; }
	for loop in 1 2 3 4 5; do
		s0=$(serial)
		recs=$(extdns_get "$EXTDNS_API" /records)
		# external-dns's registry: the a- TXT missing -> force-update, else an empty plan (nothing sent).
		if ! jq -e '.[] | select(.dnsName == "a-legacy.example.test" and .recordType == "TXT")' <<<"$recs" >/dev/null; then
			extdns_post "$EXTDNS_API" /records "$T/force.json" >/dev/null
			[ "$EXTDNS_STATUS" = 204 ] || not_ok "$label: loop $loop POST /records answers 204" "got $EXTDNS_STATUS"
		fi
		s1=$(serial)
		writes+=($((s1 - s0 > 0 ? 1 : 0)))
	done
	eq "$label: migration writes per loop" "${writes[*]}" "1 0 0 0 0"
	echo "# $label: registry migration, writes on loops 1-5: ${writes[*]}"
	recs=$(extdns_get "$EXTDNS_API" /records)
	eq "$label: the new-format TXT is made, the old one kept" \
		"$(jq -r '[.[] | select(.recordType == "TXT" and (.dnsName | endswith("legacy.example.test"))) | .dnsName] | sort | join(",")' <<<"$recs")" \
		"a-legacy.example.test,legacy.example.test"
	s0=$(serial)
	extdns_post "$EXTDNS_API" /records "$T/force.json" >/dev/null
	eq "$label: the force-update sent again after the migration writes nothing" "$(serial)" "$s0"
	eq "$label: nothing of the migration is dropped" "$(wc -l <"$T/$label-migration.drops" 2>/dev/null || echo 0)" 0
	extdns_stop
}

apply_json() { # NAME PLANFILE: dnsbatch apply; RC; $T/NAME.json, .drops
	"$DNSBATCH" apply --plan "$2" "${PROVIDER_ARGS[@]}" --drop-log "$T/$1.drops" --output json \
		--backoff-base 0.01 --backoff-cap 0.02 >"$T/$1.json" 2>"$T/$1.err"
	RC=$?
}

refuse_each_member() { # LABEL
	local label=$1 k name s0 held
	for k in a newtxt oldtxt a-in-effect; do
		name=g$k-$label
		name=${name//_/-}
		group3 "$name" >"$T/$name.plan"
		case $k in
		a) seed "$name A 198.51.100.9" ;;
		newtxt) seed "a-$name TXT \"someone-else\"" ;;
		oldtxt) seed "$name TXT \"someone-else\"" ;;
		a-in-effect) seed "$name A 203.0.113.7" "a-$name TXT \"someone-else\"" ;;
		esac
		s0=$(serial)
		apply_json "$label-$name" "$T/$name.plan"
		eq "$label: $k refused: the group ends dropped whole (exit 3)" "$RC $(counts "$label-$name")" "3 3 0 0 3 0"
		eq "$label: $k refused: no other member written (serial unchanged)" "$(serial)" "$s0"
		held=$(held "$name")
		case $k in
		a) eq "$label: $k refused: nothing new at the name" "$held" "A 198.51.100.9" ;;
		newtxt) eq "$label: $k refused: nothing new at the name" "$held" "" ;;
		oldtxt) eq "$label: $k refused: nothing new at the name" "$held" "TXT \"someone-else\"" ;;
		a-in-effect) eq "$label: $k: the A in effect is dropped with its group" \
			"$(jq -r 'select(.change.create[0].recordType == "A") | .message' "$T/$label-$name.drops" | grep -c 'dropped with its group')" 1 ;;
		esac
	done
}

noop_updates() { # LABEL
	local label=$1 s0
	noop_plan >"$T/$label-noop.plan"
	s0=$(serial)
	apply_json "$label-noop" "$T/$label-noop.plan"
	eq "$label: an update to what is held is already_applied (exit 0)" "$RC $(counts "$label-noop")" "0 1 0 1 0 0"
	eq "$label: it writes nothing (serial unchanged)" "$(serial)" "$s0"
	eq "$label: it sends no write, one read proves it" "$(rep "$label-noop" '"\(.submissions) \(.reads)"')" "0 1"
	noop_plan nothere >"$T/$label-noop-missing.plan"
	apply_json "$label-noop-missing" "$T/$label-noop-missing.plan"
	eq "$label: the same update of an absent record is no proof: dropped" "$RC $(counts "$label-noop-missing")" "3 1 0 0 1 0"
	eq "$label: its cause is missing" "$(jq -r .cause "$T/$label-noop-missing.drops")" missing
}

suite() { # LABEL
	migration_loops "$1"
	refuse_each_member "$1"
	noop_updates "$1"
}

##### the zone file ##################################################################################
cp "$T/zone" "$T/example.test.zone"
PROVIDER_ARGS=(--provider zonefile --zonefile "example.test=$T/example.test.zone")
serial() { awk '$3 == "SOA" || $4 == "SOA" { for (i = 1; i <= NF; i++) if ($i == "SOA") { print $(i + 3); exit } }' "$T/example.test.zone"; }
zf_seed() { local line n t v; for line in "$@"; do read -r n t v <<<"$line"; printf '%s 300 IN %s %s\n' "$n" "$t" "$v" >>"$T/example.test.zone"; done; }
seed() { zf_seed "$@"; }
held() { "$DNSBATCH" records "${PROVIDER_ARGS[@]}" 2>/dev/null | awk -v n="$1.example.test." '$1 == n { $1 = ""; $2 = ""; sub(/^ +/, ""); print }' | sed 's/^IN //' | sort | paste -sd' ' -; }
suite zonefile

##### BIND (rfc2136) ##################################################################################
dnsb_tsig_keygen "$T/key.conf" || { not_ok "tsig-keygen"; exit 1; }
if dnsb_start_named example.test "$T/zone" "$T/key.conf"; then
	NAMED_PORT=$DNSB_SERVER_PORT
	PROVIDER_ARGS=(--provider rfc2136 --rfc2136-host 127.0.0.1 --rfc2136-port "$NAMED_PORT" --rfc2136-zone example.test
		--rfc2136-tsig-keyfile "$T/key.conf")
	serial() { dig +short +norec -p "$NAMED_PORT" @127.0.0.1 example.test SOA | awk '{ print $3 }'; }
	seed() {
		local line n t v
		for line in "$@"; do
			read -r n t v <<<"$line"
			printf 'server 127.0.0.1 %s\nupdate add %s.example.test. 300 IN %s %s\nsend\n' "$NAMED_PORT" "$n" "$t" "$v"
		done | nsupdate -k "$T/key.conf"
	}
	held() { dig +noall +answer +norec -p "$NAMED_PORT" @127.0.0.1 "$1.example.test" ANY | awk '{ $1 = $2 = $3 = ""; sub(/^ +/, ""); print }' | sort | paste -sd' ' -; }
	suite rfc2136
else
	not_ok "named starts"
fi

##### PowerDNS ########################################################################################
if dnsb_start_pdns example.test 2>"$T/pdns-start.err"; then
	PURL=$DNSB_PDNS_URL
	PKEY=$DNSB_PDNS_KEYFILE
	PDNS_PORT=$DNSB_SERVER_PORT
	API=$PURL/api/v1/servers/localhost/zones/example.test.
	api() { curl -s -H "X-API-Key: $(cat "$PKEY")" -H 'Content-Type: application/json' -X "$1" ${2:+-d "$2"} "$API"; }
	seed() {
		local line n t v rrsets='[]'
		for line in "$@"; do
			read -r n t v <<<"$line"
			rrsets=$(jq -c --arg n "$n.example.test." --arg t "$t" --arg c "$v" \
				'. + [{name:$n, type:$t, ttl:300, changetype:"REPLACE", records:[{content:$c, disabled:false}]}]' <<<"$rrsets")
		done
		api PATCH "{\"rrsets\":$rrsets}" >/dev/null
	}
	seed "legacy A 192.0.2.10" "legacy TXT \"$H\"" "same A 192.0.2.20"
	PROVIDER_ARGS=(--provider pdns --pdns-server "$PURL" --pdns-api-key-file "$PKEY")
	serial() { api GET | jq -r '.serial'; }
	held() { api GET | jq -r --arg n "$1.example.test." '.rrsets[] | select(.name == $n) | "\(.type) \([.records[].content] | join(","))"' | sort | paste -sd' ' -; }
	suite pdns
else
	not_ok "pdns_server starts" "$(cat "$T/pdns-start.err")"
fi

##### memory: a refusal injected by the fault script ##################################################
# The A is in effect, its TXT is not; the whole group is refused (fault 1), then the TXT on its own
# (fault 2): the A must not be reported already_applied while its group drops.
printf '$ORIGIN example.test.\n@ 300 IN SOA ns1 h 1 7200 3600 1209600 300\ngm 300 IN A 203.0.113.7\n' >"$T/mem.zone"
group3 gm >"$T/gm.plan"
PROVIDER_ARGS=(--provider memory --memory-zonefile "example.test=$T/mem.zone" --memory-faults '1-2:conflict')
apply_json mem-gm "$T/gm.plan"
eq "memory: a member refused by the fault script: the group ends dropped whole" "$RC $(counts mem-gm)" "3 3 0 0 3 0"
eq "memory: the A in effect is dropped with its group" \
	"$(jq -r 'select(.change.create[0].recordType == "A") | .message' "$T/mem-gm.drops" | grep -c 'dropped with its group')" 1

[ "$failures" -eq 0 ] && [ "$EXTDNS_FAILED" -eq 0 ]
