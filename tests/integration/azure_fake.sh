# azure_fake.sh - sourced by the tests that need Azure DNS (test_azure.sh, bench_azure.sh):
# tests/fakes/fake_azure.py on a free loopback port over HTTPS, stopped by PID (the caller's EXIT
# trap kills every PID in PIDS). The fake checks every request body and query against the
# definitions kept from Azure's REST specification (tests/fakes/azure-dns-2018-05-01.json).
#
# Needs: T (the test's temp dir), PIDS (an array), not_ok, eq, fake_started and clean_run (checks.sh), and the
# certificates of tls_pki (checks.sh).
# Gives: the credentials the fake accepts (AZ_SECRET, AZ_FEDERATED), start_fake, stop_fake, stat, apply,
# zone, clean_requests, run (dnsbatch with $CREDS), AZ_FLAGS, pair and undo_checks (test_azure.sh and
# test_azure_private.sh).
# shellcheck shell=bash

FAKE=$PWD/tests/fakes/fake_azure.py
AZ_TENANT=tenant-0001
AZ_CLIENT=client-0001
# Secrets the checks look for in everything dnsbatch prints.
AZ_SECRET=dnsb-az-secret-Qw7e3Rt
AZ_FEDERATED=dnsb-az-federated-jwt-Pk2m

# start_fake NAME [fake flags...]: zone example.com, the client secret and federated token valid;
# sets PORT, URL, FAKE_PID; logs to $T/NAME.fake.log.
start_fake() {
	local name=$1
	shift
	rm -f "$T/$name.port"
	python3 "$FAKE" --port-file "$T/$name.port" --cert "$T/server.pem" --key "$T/server.key" \
		--zone example.com --tenant "$AZ_TENANT" --client-id "$AZ_CLIENT" --client-secret "$AZ_SECRET" \
		--federated-token "$AZ_FEDERATED" --log "$T/$name.fake.log" "$@" 2>"$T/$name.fake.err" &
	fake_started "$name" $! || return 1
	URL=https://127.0.0.1:$PORT
	AZ_FLAGS=(--provider azure --azure-subscription-id sub-0001 --azure-resource-group rg-dns
		--azure-api-endpoint "$URL/" --azure-ca-file "$T/ca.pem")
}
stop_fake() { kill "$FAKE_PID" 2>/dev/null && wait "$FAKE_PID" 2>/dev/null; }
# stat JQ: a field of the fake's statistics
stat() { curl -s --max-time 10 --cacert "$T/ca.pem" "$URL/_fake/stats" | jq -r "$1"; }
# zone: the fake's example.com, one record set a line: "NAME TTL TYPE RECORDS-AS-JSON"
zone() {
	curl -s --max-time 10 --cacert "$T/ca.pem" "$URL/_fake/zone/example.com" |
		jq -r '.rrsets[] | "\(.name) \(.ttl) \(.type) \(.records | tojson)"'
}
# etag NAME TYPE: the record set's ETag in the fake
etag() {
	curl -s --max-time 10 --cacert "$T/ca.pem" "$URL/_fake/zone/example.com" |
		jq -r --arg n "$1" --arg t "$2" '.rrsets[] | select(.name == $n and .type == $t) | .etag'
}
# clean_requests NAME: every request body and query was the specification's
clean_requests() {
	eq "$1: every request body and query matched Azure's specification" "$(stat .bad_schema)" 0
}

# CREDS: the credential variables of the next runs (the client secret by default).
CREDS=(AZURE_TENANT_ID=$AZ_TENANT AZURE_CLIENT_ID=$AZ_CLIENT AZURE_CLIENT_SECRET=$AZ_SECRET)
# run CMD...: dnsbatch in a clean environment: the authority host and $CREDS only
run() { clean_run "$T/home" AZURE_AUTHORITY_HOST="$URL" -- "$@"; }
# apply NAME PLAN [flags...]: dnsbatch apply of PLAN against the fake (fast backoff); sets RC; leaves
# $T/NAME.json (the JSON report), .err and .drops
apply() {
	local name=$1 planfile=$2
	shift 2
	rm -f "$T/$name.drops"
	run apply --plan "$planfile" "${AZ_FLAGS[@]}" --backoff-base 0.01 --backoff-cap 0.05 "$@" \
		--drop-log "$T/$name.drops" --output json >"$T/$name.json" 2>"$T/$name.err"
	# shellcheck disable=SC2034 # the sourcing test reads RC
	RC=$?
	touch "$T/$name.drops"
}

# pair FILE NAME ADDR: a plan creating NAME A ADDR and its ownership TXT a-NAME (one change group)
pair() {
	plan "$1" create="$(list "$(ep "$2" A 300 "$3")" \
		"$(jq -cn --arg n "a-$2" --arg o "$2" '{dnsName: $n, recordType: "TXT", recordTTL: 300, targets:
		["heritage=external-dns,external-dns/owner=default"], labels: {ownedRecord: $o}}')")"
}
# undo_checks START: the group of $T/pair.plan.json (pair ... web.example.com) on a fake started by START NAME
# [flags...] (start_fake, or a test's own that adds flags): its TXT, the second record set, refused, the A written
# first is undone and the group dropped whole; then the undo refused too: both failed, never dropped, the A left
undo_checks() {
	"$1" undo --fault ok --fault refuse || return 1
	apply undo "$T/pair.plan.json" --azure-max-in-flight 1 --max-retries 0
	eq "undo: the group dropped whole (invalid: refused with 400)" "$RC $(counts undo)" "3 2 0 0 2 0"
	eq "undo: the A record written first was undone" "$(zone | grep -c '^web ')" 0
	eq "undo: 3 writes (A, TXT refused, the A's conditional DELETE)" "$(stat .writes)" 3
	clean_requests undo
	apply undo2 "$T/pair.plan.json"
	eq "undo: the same plan applies afterwards" "$RC $(counts undo2)" "0 2 2 0 0 0"
	stop_fake
	"$1" undofail --fault ok --fault refuse --fault refuse || return 1
	apply undofail "$T/pair.plan.json" --azure-max-in-flight 1 --max-retries 0
	eq "undo refused: exit 4, both changes failed, never dropped" "$RC $(counts undofail)" "4 2 0 0 0 2"
	check "undo refused: the answer says the rollback is incomplete" grep -q rollback "$T/undofail.err"
	eq "undo refused: the A record is left, and said to be" "$(zone | grep -c '^web ')" 1
	stop_fake
}
