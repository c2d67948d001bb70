# akamai_fake.sh - sourced by the tests that need Akamai Edge DNS (test_akamai.sh): tests/fakes/fake_akamai.py on a
# free loopback port over HTTPS, stopped by PID (the caller's EXIT trap kills every PID in PIDS). The fake checks
# every request against Akamai's published OpenAPI document (tests/fakes/akamai-config-dns-v2.json) and every
# EdgeGrid signature with Akamai's own Node library (npm akamai-edgegrid, installed here under
# tests/fakes/node_modules, never committed).
#
# Needs: T (the caller's temp dir), PIDS (an array), eq, fake_started and clean_run (checks.sh), and the certificates of
# tls_pki (checks.sh).
# Gives: the credentials the fake accepts (CT/AT for AK_HOST and the secret in $T/secret; OTHER_CT/OTHER_AT with
# $T/other.secret, another API client), akamai_edgegrid_lib, start_ak, stat, zone, load, clean_requests, run, apply.
# shellcheck shell=bash

AK_FAKE=$PWD/tests/fakes/fake_akamai.py
# Secrets the checks look for in everything dnsbatch prints.
CT=akab-client-token-dnsb-7f3k2q
AT=akab-access-token-dnsb-9x1m4w
SECRET=dnsb-ak-client-secret-Hq8Zt2Vw5Ls1=
OTHER_CT=akab-other-client-dnsb-2b8n
OTHER_AT=akab-other-access-dnsb-5c6v
# The API client's host (its .edgerc host): dnsbatch signs for it while it sends to the fake's address, and the
# fake checks the signatures against it, as Akamai checks them against the host of the API client.
AK_HOST=akab-dnsb-test.luna.akamaiapis.net
AK_EDGEGRID_VERSION=4.0.4

# akamai_edgegrid_lib: npm's akamai-edgegrid under tests/fakes/node_modules (installed once); AK_NODE=node, or ""
# when npm cannot install it (the fake then checks no signature: the test says so)
akamai_edgegrid_lib() {
	AK_NODE=
	command -v node >/dev/null || return 1
	if [ ! -f tests/fakes/node_modules/akamai-edgegrid/src/auth.js ]; then
		command -v npm >/dev/null || return 1
		timeout 180 npm install --no-save --no-audit --no-fund --no-package-lock --prefix tests/fakes \
			"akamai-edgegrid@$AK_EDGEGRID_VERSION" >"$T/npm.log" 2>&1 || return 1
	fi
	AK_NODE=$(command -v node)
}

# start_ak NAME [fake flags...]: zones example.com (contract C-1) and example.org (C-2), the two API clients; sets
# PORT, URL, FAKE_PID; logs to $T/NAME.fake.log.
start_ak() {
	local name=$1
	shift
	rm -f "$T/$name.port"
	printf '%s\n' "$SECRET" >"$T/secret"
	printf '%s\n' "dnsb-ak-other-secret-Pp3" >"$T/other.secret"
	python3 "$AK_FAKE" --port-file "$T/$name.port" --cert "$T/server.pem" --key "$T/server.key" \
		--zone example.com=C-1 --zone example.org=C-2 --client "$CT:$AT:$T/secret:$AK_HOST" \
		--client "$OTHER_CT:$OTHER_AT:$T/other.secret" ${AK_NODE:+--edgegrid-node "$AK_NODE"} \
		--log "$T/$name.fake.log" "$@" 2>"$T/$name.fake.err" &
	fake_started "$name" $! || return 1
	URL=https://127.0.0.1:$PORT
}
# stat JQ: a field of the fake's statistics
stat() { curl -s --cacert "$T/ca.pem" "$URL/_fake/stats" | jq -r "$1"; }
# zone [NAME]: the fake's record sets of example.com (or NAME), one record a line: "NAME TTL TYPE RDATA", sorted,
# the apex SOA and NS left out
zone() {
	curl -s --cacert "$T/ca.pem" "$URL/_fake/zone/${1:-example.com}" |
		jq -r '.recordsets[] | select((.type == "SOA" or .type == "NS") | not) | . as $s | .rdata[] |
			"\($s.name) \($s.ttl) \($s.type) \(.)"' | sort
}
# load [NAME] < LINES: the zone holds exactly these record sets ("NAME TTL TYPE RDATA" lines, one record each)
load() {
	jq -Rn '[inputs | select(length > 0) | capture("^(?<name>\\S+) (?<ttl>\\d+) (?<type>\\S+) (?<rdata>.*)$") |
		.ttl |= tonumber] | group_by([.name, .type]) |
		{recordsets: map({name: .[0].name, type: .[0].type, ttl: .[0].ttl, rdata: map(.rdata)})}' |
		curl -s -o /dev/null -w '%{http_code}' --cacert "$T/ca.pem" -H 'Content-Type: application/json' \
			--data-binary @- "$URL/_fake/load/${1:-example.com}"
}
# clean_requests NAME: every request matched Akamai's OpenAPI document, every reply too
clean_requests() {
	eq "$1: every request and reply matches Akamai's OpenAPI document" \
		"$(stat '"\(.bad_schema) \(.bad_response) \(.problems)"')" "0 0 []"
}

# CREDS: the credential variables of the next runs.
CREDS=(AKAMAI_HOST=$AK_HOST AKAMAI_CLIENT_TOKEN=$CT AKAMAI_ACCESS_TOKEN=$AT AKAMAI_CLIENT_SECRET=$SECRET)
# run CMD...: dnsbatch in a clean environment with $CREDS only
run() { clean_run "$T" -- "$@"; }
# apply NAME PLAN [flags...]: dnsbatch apply to the fake; RC, $T/NAME.{json,err,drops}
apply() {
	local name=$1 planfile=$2
	shift 2
	rm -f "$T/$name.drops"
	run apply --plan "$planfile" --provider akamai --akamai-api-endpoint "$URL" --akamai-ca-file "$T/ca.pem" \
		--backoff-base 0.01 --backoff-cap 0.05 "$@" --drop-log "$T/$name.drops" --output json \
		>"$T/$name.json" 2>"$T/$name.err"
	RC=$?
	touch "$T/$name.drops"
}
