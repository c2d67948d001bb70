# aws_fake.sh - sourced by the tests that need Route53 (test_aws.sh,
# test_webhook_aws.sh): tests/fakes/fake_route53.py on a free loopback port over HTTPS,
# stopped by PID (the caller's EXIT trap kills every PID in PIDS). The fake
# recomputes every request's SigV4 signature with botocore and checks every
# ChangeResourceRecordSets body against botocore's route53 model.
#
# Needs: T (the test's temp dir), PIDS (an array), not_ok, eq, fake_started and clean_run (checks.sh), and the
# certificates of tls_pki (checks.sh).
# Gives: the credentials the fake accepts (KEY_ID/SECRET, FILE_KEY_ID/FILE_SECRET,
# WEB_TOKEN, CONTAINER_TOKEN), start_fake, stop_fake, stat, zone,
# clean_requests, run, apply (with AWS_APPLY_FLAGS).
# shellcheck shell=bash

FAKE=$PWD/tests/fakes/fake_route53.py
# Secrets the checks look for in everything dnsbatch prints.
KEY_ID=AKIDDNSBATCHTEST01
SECRET=dnsb-secret-Zq8v2Lx7Rk
FILE_KEY_ID=AKIDDNSBATCHFILE02
FILE_SECRET=dnsb-file-secret-Hw3n
WEB_TOKEN=dnsb-web-identity-jwt-T5pq
CONTAINER_TOKEN=dnsb-container-auth-Y7dk

# start_fake NAME [fake flags...]: zone ZEXAMPLE = example.com (more with --zone), the env and the file keys
# valid; sets PORT, URL, FAKE_PID; logs to $T/NAME.fake.log.
start_fake() {
	local name=$1
	shift
	rm -f "$T/$name.port"
	python3 "$FAKE" --port-file "$T/$name.port" --cert "$T/server.pem" --key "$T/server.key" \
		--zone ZEXAMPLE=example.com --creds "$KEY_ID:$SECRET" --creds "$FILE_KEY_ID:$FILE_SECRET" \
		--web-token "$WEB_TOKEN" --container-token "$CONTAINER_TOKEN" \
		--log "$T/$name.fake.log" "$@" 2>"$T/$name.fake.err" &
	fake_started "$name" $! || return 1
	URL=https://127.0.0.1:$PORT
}
stop_fake() { kill "$FAKE_PID" 2>/dev/null && wait "$FAKE_PID" 2>/dev/null; }
# stat JQ: a field of the fake's statistics
stat() { curl -s --cacert "$T/ca.pem" "$URL/_fake/stats" | jq -r "$1"; }
# zone: the fake's ZEXAMPLE, one RRset a line: "NAME TTL TYPE VALUES", an alias "NAME alias TYPE ZONEID DNSNAME HEALTH"
zone() {
	curl -s --cacert "$T/ca.pem" "$URL/_fake/zone/ZEXAMPLE" | jq -r '.rrsets[] |
		if .alias then "\(.name) alias \(.type) \(.alias.zone) \(.alias.dns) \(.alias.health)"
		else "\(.name) \(.ttl) \(.type) \(.values | join(","))" end'
}
# clean_requests NAME: botocore accepted every signature and every body, and the fake's every reply fits the model
clean_requests() {
	eq "$1: botocore verified every signature and body (and the fake's replies)" \
		"$(stat '"\(.bad_signature) \(.bad_schema) \(.bad_reply) \(.problems | join("; "))"')" "0 0 0 "
}

# CREDS: the credential variables of the next runs ("env" = the env key by default).
CREDS=(AWS_ACCESS_KEY_ID=$KEY_ID AWS_SECRET_ACCESS_KEY=$SECRET)
# run CMD...: dnsbatch in a clean environment: endpoint, CA, HOME and $CREDS only
run() { clean_run "$T/home" AWS_ENDPOINT_URL_ROUTE_53="$URL" AWS_CA_BUNDLE="$T/ca.pem" -- "$@"; }

# AWS_APPLY_FLAGS: flags every apply of the test gives (a test's fixed --aws-zone-id).
AWS_APPLY_FLAGS=()
# apply NAME PLAN [flags...]: sets RC; leaves $T/NAME.json, .err, .drops, .prom
apply() {
	local name=$1 planfile=$2
	shift 2
	rm -f "$T/$name.drops" "$T/$name.prom"
	run apply --plan "$planfile" --provider aws "${AWS_APPLY_FLAGS[@]}" --aws-batch-change-interval 0 \
		--backoff-base 0.01 --backoff-cap 0.05 "$@" \
		--drop-log "$T/$name.drops" --metrics-file "$T/$name.prom" --output json >"$T/$name.json" 2>"$T/$name.err"
	RC=$?
	touch "$T/$name.drops"
}
