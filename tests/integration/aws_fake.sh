# aws_fake.sh - sourced by the tests that need Route53 (test_aws.sh,
# test_webhook_aws.sh): a test CA and server certificate made with the openssl
# CLI, and tests/fakes/fake_route53.py on a free loopback port over HTTPS,
# stopped by PID (the caller's EXIT trap kills every PID in PIDS). The fake
# recomputes every request's SigV4 signature with botocore and checks every
# ChangeResourceRecordSets body against botocore's route53 model.
#
# Needs: T (the test's temp dir), PIDS (an array), not_ok, eq and fake_started (checks.sh).
# Gives: the credentials the fake accepts (KEY_ID/SECRET, FILE_KEY_ID/FILE_SECRET,
# WEB_TOKEN, CONTAINER_TOKEN), aws_pki, start_fake, stop_fake, stat, zone,
# clean_requests, run.
# shellcheck shell=bash

FAKE=$PWD/tests/fakes/fake_route53.py
# Secrets the checks look for in everything dnsbatch prints.
KEY_ID=AKIDDNSBATCHTEST01
SECRET=dnsb-secret-Zq8v2Lx7Rk
FILE_KEY_ID=AKIDDNSBATCHFILE02
FILE_SECRET=dnsb-file-secret-Hw3n
WEB_TOKEN=dnsb-web-identity-jwt-T5pq
CONTAINER_TOKEN=dnsb-container-auth-Y7dk

# aws_pki: $T/ca.pem (the test CA), $T/other-ca.pem (another), $T/server.pem and .key (127.0.0.1)
aws_pki() {
	openssl req -x509 -newkey rsa:2048 -nodes -keyout "$T/ca.key" -out "$T/ca.pem" -days 2 -subj /CN=dnsbatch-test-ca &&
	openssl req -x509 -newkey rsa:2048 -nodes -keyout "$T/other-ca.key" -out "$T/other-ca.pem" -days 2 \
		-subj /CN=dnsbatch-other-ca &&
	openssl req -newkey rsa:2048 -nodes -keyout "$T/server.key" -out "$T/server.csr" -subj /CN=127.0.0.1 &&
	printf 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\nbasicConstraints=CA:FALSE\n' >"$T/ext.cnf" &&
	openssl x509 -req -in "$T/server.csr" -CA "$T/ca.pem" -CAkey "$T/ca.key" -CAcreateserial -out "$T/server.pem" \
		-days 2 -extfile "$T/ext.cnf"
}

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
# clean_requests NAME: botocore accepted every signature and every body
clean_requests() {
	eq "$1: botocore verified every signature and body" "$(stat '"\(.bad_signature) \(.bad_schema)"')" "0 0"
}

# CREDS: the credential variables of the next runs ("env" = the env key by default).
CREDS=(AWS_ACCESS_KEY_ID=$KEY_ID AWS_SECRET_ACCESS_KEY=$SECRET)
# run CMD...: dnsbatch in a clean environment: endpoint, CA, HOME and $CREDS only
run() {
	env -i PATH="$PATH" HOME="$T/home" LC_ALL=C ${ASAN_OPTIONS:+ASAN_OPTIONS=$ASAN_OPTIONS} \
		${UBSAN_OPTIONS:+UBSAN_OPTIONS=$UBSAN_OPTIONS} AWS_ENDPOINT_URL_ROUTE_53="$URL" AWS_CA_BUNDLE="$T/ca.pem" \
		"${CREDS[@]}" "$DNSBATCH" "$@"
}
