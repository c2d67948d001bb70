# digitalocean_fake.sh - sourced by the tests that need DigitalOcean (test_fake_digitalocean.sh, the digitalocean
# provider's tests): tests/fakes/fake_digitalocean.py on a free loopback port over HTTPS, stopped by PID (the
# caller's EXIT trap kills every PID in PIDS). The fake checks every request against DigitalOcean's published
# OpenAPI description (tests/fakes/digitalocean-domains-openapi.json).
#
# Needs: T (the caller's temp dir), PIDS (an array), eq, fake_started and clean_run (checks.sh), and the certificates of
# tls_pki (checks.sh).
# Gives: the tokens the fake accepts (TOKEN, in $T/do.token; OTHER_TOKEN, another client), start_do, stat, zone,
# clean_requests, req, run, apply, load, rec, fault.
# shellcheck shell=bash

DO_FAKE=$PWD/tests/fakes/fake_digitalocean.py
# Secrets the checks look for in everything dnsbatch prints.
TOKEN=dop_v1_dnsbtest0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8
OTHER_TOKEN=dop_v1_dnsbother9f8e7d6c5b4a39281706f5e4d3c2b1a09f8e7d6c5b4a39281706f5e4d3c

# start_do NAME [fake flags...]: domains example.com and example.org, the two tokens; sets PORT, URL, FAKE_PID;
# logs to $T/NAME.fake.log; writes TOKEN to $T/do.token (mode 600)
start_do() {
	local name=$1
	shift
	rm -f "$T/$name.port"
	(umask 077 && printf '%s\n' "$TOKEN" >"$T/do.token")
	python3 "$DO_FAKE" --port-file "$T/$name.port" --cert "$T/server.pem" --key "$T/server.key" \
		--domain example.com --domain example.org --token "$TOKEN" --token "$OTHER_TOKEN" \
		--log "$T/$name.fake.log" "$@" 2>"$T/$name.fake.err" &
	fake_started "$name" $! || return 1
	URL=https://127.0.0.1:$PORT
}
# load < JSON-LINES: example.com holds exactly these records (and its SOA and apex NS), ids in this order; the
# records {type, name, data, ttl, ...} one a line (rec writes one)
load() {
	jq -sc '{records: .}' | curl -s -o /dev/null --cacert "$T/ca.pem" -H 'Content-Type: application/json' \
		--data-binary @- "$URL/_fake/load/example.com"
}
# rec NAME TYPE TTL DATA [FIELD=VALUE...]: one record of a load
rec() {
	local name=$1 type=$2 ttl=$3 data=$4
	shift 4
	jq -cn --arg n "$name" --arg t "$type" --argjson ttl "$ttl" --arg d "$data" '{name: $n, type: $t, ttl: $ttl, data: $d} +
		([$ARGS.positional[] | split("=") | {(.[0]): (.[1] | tonumber? // .)}] | add // {})' --args "$@"
}
# fault KIND...: the next record writes meet these faults, in order
fault() { local IFS=/; curl -s -o /dev/null -X POST --cacert "$T/ca.pem" "$URL/_fake/fault/$*"; }
# stat JQ: a field of the fake's statistics
stat() { curl -s --cacert "$T/ca.pem" "$URL/_fake/stats" | jq -r "$1"; }
# zone [DOMAIN]: the fake's records of example.com (or DOMAIN) but the SOA, one a line, "NAME TTL TYPE [FIELDS] DATA",
# sorted
zone() {
	curl -s --cacert "$T/ca.pem" "$URL/_fake/zone/${1:-example.com}" | jq -r '.domain_records[] | select(.type != "SOA")
		| "\(.name) \(.ttl) \(.type) \([.priority, .weight, .port, .flags, .tag] | map(select(. != null) | tostring)
		| join(" ") | if . == "" then "" else . + " " end)\(.data)"' | sort
}
# clean_requests NAME: every request matched DigitalOcean's description, every reply too
clean_requests() {
	eq "$1: every request and reply matches DigitalOcean's OpenAPI description" \
		"$(stat '"\(.bad_schema) \(.bad_response) \(.problems)"')" "0 0 []"
}
# req METHOD PATH [BODY [TOKEN]]: one API request with TOKEN (default $TOKEN; "-" for none); prints the status;
# the reply's headers in $T/h (lower-case names), its body in $T/b
req() {
	local method=$1 path=$2 body=${3:-} tok=${4:-$TOKEN} args=()
	[ "$tok" != - ] && args+=(-H "Authorization: Bearer $tok")
	[ -n "$body" ] && args+=(-H 'Content-Type: application/json' --data-binary "$body")
	curl -s --cacert "$T/ca.pem" -X "$method" "${args[@]}" -D "$T/h.raw" -o "$T/b" -w '%{http_code}' "$URL$path"
	tr -d '\r' <"$T/h.raw" | tr 'A-Z' 'a-z' >"$T/h"
}
# header NAME: a header of the last req's reply (NAME lower-case), or "" when absent
header() { sed -n "s/^$1: //p" "$T/h" | head -n1; }

# run CMD...: dnsbatch in a clean environment (no DO_TOKEN unless the caller's DO_ENV array gives it)
DO_ENV=()
run() { clean_run "$T" "${DO_ENV[@]}" -- "$@"; }
# apply NAME PLAN [flags...]: dnsbatch apply to the fake with the token file; RC, $T/NAME.{json,err,drops}
apply() {
	local name=$1 planfile=$2
	shift 2
	rm -f "$T/$name.drops"
	run apply --plan "$planfile" --provider digitalocean --digitalocean-api-endpoint "$URL" \
		--digitalocean-ca-file "$T/ca.pem" --digitalocean-token-file "$T/do.token" --backoff-base 0.01 \
		--backoff-cap 0.05 "$@" --drop-log "$T/$name.drops" --output json >"$T/$name.json" 2>"$T/$name.err"
	RC=$?
	touch "$T/$name.drops"
}
