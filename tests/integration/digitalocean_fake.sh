# digitalocean_fake.sh - sourced by the tests that need DigitalOcean's API (test_digitalocean*.sh):
# tests/fakes/fake_digitalocean.py on a free loopback port over HTTPS, stopped by PID (the caller's EXIT trap kills
# every PID in PIDS). The fake checks every request against DigitalOcean's OpenAPI description.
#
# Needs: T (the caller's temp dir), PIDS (an array), fake_started (checks.sh), the certificates of tls_pki.
# Gives: TOKEN (the token the fake accepts), start_do, stat, zone, load, clean_requests, fault, run, apply.
# shellcheck shell=bash

DO_FAKE=$PWD/tests/fakes/fake_digitalocean.py
TOKEN=dop_v1_dnsbtest0123456789abcdef0123456789abcdef0123456789abcdef01

# start_do NAME [fake flags...]: domains example.com and example.org, the token; sets PORT, URL, FAKE_PID
start_do() {
	local name=$1
	shift
	rm -f "$T/$name.port"
	python3 "$DO_FAKE" --port-file "$T/$name.port" --cert "$T/server.pem" --key "$T/server.key" \
		--domain example.com --domain example.org --token "$TOKEN" "$@" 2>"$T/$name.fake.err" &
	fake_started "$name" $! || return 1
	URL=https://127.0.0.1:$PORT
}
# stat JQ: a field of the fake's statistics
stat() { curl -s --cacert "$T/ca.pem" "$URL/_fake/stats" | jq -r "$1"; }
# zone [NAME]: the fake's records of example.com (or NAME), one a line, "NAME TTL TYPE [FIELDS] DATA", sorted; the
# SOA and the apex NS left out
zone() {
	curl -s --cacert "$T/ca.pem" "$URL/_fake/zone/${1:-example.com}" |
		jq -r '.domain_records[] | select(.type == "SOA" or (.type == "NS" and .name == "@") | not) |
			"\(.name) \(.ttl) \(.type) \([.priority, .weight, .port, .flags, .tag] | map(select(. != null)) |
			map(tostring) | join(" "))|\(.data)"' | sed 's/ |/ /; s/|/ /' | sort
}
# load [NAME] < JSON-LINES: the domain holds exactly these records ({type, name, data, ttl, ...} one a line)
load() {
	jq -sc '{records: .}' | curl -s -o /dev/null -w '%{http_code}' --cacert "$T/ca.pem" \
		-H 'Content-Type: application/json' --data-binary @- "$URL/_fake/load/${1:-example.com}"
}
# fault KIND...: the next record writes meet these faults, in order
fault() { local IFS=/; curl -s -o /dev/null -X POST --cacert "$T/ca.pem" "$URL/_fake/fault/$*"; }
# clean_requests NAME: every request matched DigitalOcean's OpenAPI description, every reply too
clean_requests() {
	eq "$1: every request and reply matches DigitalOcean's OpenAPI description" \
		"$(stat '"\(.bad_schema) \(.bad_response) \(.problems)"')" "0 0 []"
}
# CREDS: the credential variables of the next runs.
CREDS=(DO_TOKEN=$TOKEN)
# run CMD...: dnsbatch in a clean environment with $CREDS only
run() {
	env -i PATH="$PATH" HOME="$T" LC_ALL=C ${ASAN_OPTIONS:+ASAN_OPTIONS=$ASAN_OPTIONS} \
		${UBSAN_OPTIONS:+UBSAN_OPTIONS=$UBSAN_OPTIONS} "${CREDS[@]}" "$DNSBATCH" "$@"
}
# apply NAME PLAN [flags...]: dnsbatch apply to the fake; RC, $T/NAME.{json,err,drops}
apply() {
	local name=$1 planfile=$2
	shift 2
	rm -f "$T/$name.drops"
	run apply --plan "$planfile" --provider digitalocean --digitalocean-api-endpoint "$URL" \
		--digitalocean-ca-file "$T/ca.pem" --backoff-base 0.01 --backoff-cap 0.05 "$@" --drop-log "$T/$name.drops" \
		--output json >"$T/$name.json" 2>"$T/$name.err"
	RC=$?
	touch "$T/$name.drops"
}
