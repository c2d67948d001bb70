# cloudflare_fake.sh - sourced by the tests that need Cloudflare (test_cloudflare.sh,
# bench_cloudflare.sh): tests/fakes/fake_cloudflare.py on a free loopback port over HTTPS,
# stopped by PID (the caller's EXIT trap kills every PID in PIDS). The fake checks every
# batch body against Cloudflare's published schema (tests/fakes/cloudflare-schema.json).
#
# Needs: T (the caller's temp dir), PIDS (an array), eq, fake_started and clean_run (checks.sh), and the
# certificates of tls_pki (checks.sh).
# Gives: the credentials the fake accepts (TOKEN reaches zone Z1 = example.com, OTHER_TOKEN
# only Z2 = example.org, KEY/EMAIL a global key), start_cf, stat, zone, clean_requests, run.
# shellcheck shell=bash

CF_FAKE=$PWD/tests/fakes/fake_cloudflare.py
# Secrets the checks look for in everything dnsbatch prints.
TOKEN=dnsb-cf-token-Q4m8Zr2Xw
OTHER_TOKEN=dnsb-cf-other-token-J7d3
KEY=dnsb-cf-global-key-P9s1
EMAIL=dns@example.com
Z1=0123456789abcdef0123456789abcdef
Z2=fedcba9876543210fedcba9876543210

# start_cf NAME [fake flags...]: zones Z1 and Z2, the three credentials; sets PORT, URL, FAKE_PID;
# logs to $T/NAME.fake.log.
start_cf() {
	local name=$1
	shift
	rm -f "$T/$name.port"
	python3 "$CF_FAKE" --port-file "$T/$name.port" --cert "$T/server.pem" --key "$T/server.key" \
		--zone "$Z1=example.com" --zone "$Z2=example.org" --token "$TOKEN=$Z1" --token "$OTHER_TOKEN=$Z2" \
		--api-key "$KEY:$EMAIL" --log "$T/$name.fake.log" "$@" 2>"$T/$name.fake.err" &
	fake_started "$name" $! || return 1
	URL=https://127.0.0.1:$PORT
}
# stat JQ: a field of the fake's statistics
stat() { curl -s --cacert "$T/ca.pem" "$URL/_fake/stats" | jq -r "$1"; }
# zone [ID]: the fake's records of Z1 (or ID), one a line: "NAME TTL TYPE CONTENT", sorted
zone() {
	curl -s --cacert "$T/ca.pem" "$URL/_fake/zone/${1:-$Z1}" |
		jq -r '.records[] | "\(.name) \(.ttl) \(.type) \(if .priority then "\(.priority) " else "" end)\(.content)"' | sort
}
# clean_requests NAME: every batch body matched Cloudflare's schema
clean_requests() { eq "$1: every batch body matches Cloudflare's schema" "$(stat '"\(.bad_schema) \(.problems)"')" "0 []"; }

# CREDS: the credential variables of the next runs.
CREDS=(CF_API_TOKEN=$TOKEN)
# run CMD...: dnsbatch in a clean environment with $CREDS only
run() { clean_run "$T" -- "$@"; }
# apply NAME PLAN [flags...]: dnsbatch apply to the fake; RC, $T/NAME.{json,err,drops}
apply() {
	local name=$1 planfile=$2
	shift 2
	rm -f "$T/$name.drops"
	run apply --plan "$planfile" --provider cloudflare --cloudflare-api-endpoint "$URL/client/v4" \
		--cloudflare-ca-file "$T/ca.pem" --backoff-base 0.01 --backoff-cap 0.05 "$@" \
		--drop-log "$T/$name.drops" --output json >"$T/$name.json" 2>"$T/$name.err"
	RC=$?
	touch "$T/$name.drops"
}
