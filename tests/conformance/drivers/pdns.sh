# shellcheck shell=bash disable=SC2034 # variables run.sh and the sourcing driver read
# drivers/pdns.sh - PowerDNS Authoritative (pdns_server, gsqlite3) started by tests/integration/servers.sh, one per
# run; dnsbatch's pdns provider through faultproxy_http.py (plain HTTP, as the API serves it); the zone reset
# between scenarios and the other writer through the API (curl, PATCH); truth from the API as ldns reads it.
. "$ROOT/tests/integration/servers.sh"

drv_caps() { echo "http lost-reply oob refuse fail-reads delay expire-credential"; }

drv_start() {
	conf_servers
	dnsb_start_pdns example.com || return 1
	DRV_URL=$DNSB_PDNS_URL
	DRV_KEYFILE=$DNSB_PDNS_KEYFILE
	DRV_API=$DNSB_PDNS_URL/api/v1/servers/localhost/zones/example.com.
}

# drv_api METHOD [BODYFILE]: the zone through the API with the key
drv_api() {
	curl -sf -H "X-API-Key: $(cat "$DRV_KEYFILE")" -H 'Content-Type: application/json' -X "$1" \
		${2:+--data-binary "@$2"} "$DRV_API"
}

# drv_api_zone: the zone's records as a zone file ("name ttl IN type content"), SOA and disabled records left out
drv_api_zone() {
	drv_api GET | jq -r '.rrsets[] | select(.type != "SOA") | . as $s | .records[] | select(.disabled | not) |
		"\($s.name) \($s.ttl) IN \($s.type) \(.content)"'
}

drv_truth() {
	drv_api_zone >"$T/api.zone" || return 1
	conf_zone_truth "$T/api.zone"
}

# drv_patch TRUTHFILE: REPLACE every RRset of TRUTHFILE ("owner. TTL TYPE RDATA" lines) as it holds; with
# DELETE_KEYS (lines "owner. TYPE") deleted first
drv_patch() {
	jq -Rn --rawfile del "$2" '
		[inputs | capture("^(?<n>\\S+) (?<t>\\d+) (?<ty>\\S+) (?<c>.*)$")] | group_by([.n, .ty]) |
		map({name: .[0].n, type: .[0].ty, ttl: (.[0].t | tonumber), changetype: "REPLACE",
		     records: map({content: .c, disabled: false})}) as $rep |
		($del | split("\n") | map(select(length > 0) | split(" ") | {name: .[0], type: .[1], changetype: "DELETE"})) as $d |
		{rrsets: ($d + $rep)}' <"$1" >"$T/patch.json" || return 1
	drv_api PATCH "$T/patch.json" >/dev/null
}

# drv_load ZONE: one PATCH that makes the zone hold the scenario's records: every RRset that differs replaced,
# every one it lacks deleted (run.sh checks the truth it reads next against the scenario's zone)
drv_load() {
	conf_zone_file "$1" "$T/want.zone" || return 1
	conf_zone_truth "$T/want.zone" >"$T/want.truth" || return 1
	[ -s "$T/last.truth" ] && cp "$T/last.truth" "$T/have.truth" || drv_truth >"$T/have.truth" || return 1
	cmp -s "$T/have.truth" "$T/want.truth" && return 0
	awk '{ print $1 " " $3 }' "$T/have.truth" | sort -u >"$T/have.keys"
	awk '{ print $1 " " $3 }' "$T/want.truth" | sort -u >"$T/want.keys"
	comm -23 "$T/have.keys" "$T/want.keys" >"$T/del.keys"
	drv_patch "$T/want.truth" "$T/del.keys"
}

drv_apply() {
	local plan=$1 drops=$2 summary=$3 faults=$4 url=$DRV_URL
	shift 4
	PROXY_PID=
	if [ -s "$faults" ]; then
		conf_http_proxy "$DRV_URL" "$faults" || { RC=99; return; }
		url=http://127.0.0.1:$PROXY_PORT
	fi
	"$DNSBATCH" apply --plan "$plan" --provider pdns --pdns-server "$url" --pdns-api-key-file "$DRV_KEYFILE" \
		--backoff-base 0.01 --backoff-cap 0.05 --drop-log "$drops" --output json "$@" >"$summary"
	RC=$?
	conf_stop_proxy
}

# drv_oob RECORD: another API client adds RECORD (owner relative to example.com.) to its RRset
drv_oob() {
	local t
	t=$(mktemp "$T/oob.XXXXXX") || return 1
	printf '$ORIGIN example.com.\n%s\n' "$1" >"$t.zone"
	conf_zone_truth "$t.zone" >"$t.new" || return 1
	read -r owner _ type _ <"$t.new"
	drv_truth | awk -v o="$owner" -v ty="$type" '$1 == o && $3 == ty' >"$t.old"
	# the RRset's records with the new one, all at the new record's TTL
	awk 'NR == FNR { ttl = $2; print; next } { $2 = ttl; print }' "$t.new" "$t.old" | sort -u >"$t.set"
	: >"$t.del"
	drv_patch "$t.set" "$t.del"
	local rc=$?
	rm -f "$t" "$t".*
	return $rc
}

drv_stop() { dnsb_servers_cleanup; }
