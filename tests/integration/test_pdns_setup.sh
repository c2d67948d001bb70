#!/usr/bin/env bash
#
# test_pdns_setup.sh - the pdns provider's start against a real PowerDNS Authoritative server (servers.sh, as
# test_pdns.sh starts it) behind tests/conformance/faultproxy_http.py: a transient answer while the zones are
# listed at start (503, the server busy) is tried again with backoff (5 tries), then a retryable failure, exit 4
# ("some changes failed (retry later)"), not a setup fault (exit 2, which tells the operator to fix a flag);
# nothing is sent. A listing that answers on a later try applies (exit 0); a refused API key stays exit 2.
#
# Prints "ok - NAME" or "not ok - NAME" per check; exits 1 if any failed.
# Env: DNSBATCH (default build/dnsbatch), DNSB_KEEP_TMP=1 to keep the temp dir.
. "$(dirname "$0")/checks.sh"
test_begin
. tests/integration/servers.sh
dnsb_test_pdns example.test pdns_server sqlite3 jq curl python3
URL=$DNSB_PDNS_URL
KEYFILE=$DNSB_PDNS_KEYFILE
API=$URL/api/v1/servers/localhost/zones/example.test.

# proxy NAME FAULTS: faultproxy_http.py in front of the server with those fault lines; sets PPORT, PPID_
proxy() {
	printf '%s\n' "$2" >"$T/$1.faults"
	rm -f "$T/$1.port"
	python3 tests/conformance/faultproxy_http.py --upstream "$URL" --port-file "$T/$1.port" --faults "$T/$1.faults" \
		--log "$T/$1.proxy" 2>"$T/$1.proxy.err" &
	PPID_=$!
	dnsb_track_pid "$PPID_"
	for ((i = 0; i < 200; i++)); do
		[ -s "$T/$1.port" ] && break
		sleep 0.05
	done
	PPORT=$(cat "$T/$1.port" 2>/dev/null)
}
# apply NAME [flags...]: dnsbatch apply of one create through the proxy; sets RC
apply() {
	local name=$1
	shift
	"$DNSBATCH" apply --plan "$T/plan.json" --provider pdns --pdns-server "http://127.0.0.1:$PPORT" \
		--backoff-base 0.01 --backoff-cap 0.05 --drop-log "$T/$name.drops" --output json "$@" \
		>"$T/$name.json" 2>"$T/$name.err"
	RC=$?
}
held() { curl -s -H "X-API-Key: $(cat "$KEYFILE")" "$API" | jq -r '[.rrsets[] | select(.name == "setup.example.test.") |
	.records[].content] | join(",")'; }

plan "$T/plan.json" create="$(list "$(ep setup.example.test A 300 192.0.2.80)")"

# The zone listing (the second read: the probe of .../servers/localhost is the first) answers 503 on every try.
proxy busy "fail-reads 2"
apply busy --pdns-api-key-file "$KEYFILE"
dnsb_stop_pid "$PPID_"
eq "a 503 on every try of the zone listing at start: exit 4 (failed, retry later), not 2" "$RC" 4
check "it says the listing failed and to retry later" \
	grep -q 'listing the zones at .* failed 5 times (retry later): .*503' "$T/busy.err"
eq "the listing was tried 5 times, and nothing written" \
	"$(grep -c 'zones 503' "$T/busy.proxy") $(grep -c '^W' "$T/busy.proxy")" "5 0"
eq "nothing was written" "$(held)" ""

# The listing answers 503 three times, then the server is back: tried again, the run applies.
proxy blip "fail-reads 2 4"
apply blip --pdns-api-key-file "$KEYFILE"
dnsb_stop_pid "$PPID_"
eq "a 503 on the zone listing, then an answer: the run applies (exit 0)" "$RC $(counts blip)" "0 1 1 0 0 0"
eq "the record is held" "$(held)" "192.0.2.80"

# The probe answers 503 and the listing does not: the run goes on (the batches retry what is transient).
proxy probe "fail-reads 1 1"
apply probe --pdns-api-key-file "$KEYFILE"
dnsb_stop_pid "$PPID_"
eq "a 503 on the probe alone: the run goes on (exit 0, the record already held)" "$RC $(counts probe)" "0 1 0 1 0 0"

# A refused key is a setup fault: exit 2.
echo "not-the-key" >"$T/wrong.key"
proxy wrong ""
apply wrong --pdns-api-key-file "$T/wrong.key"
dnsb_stop_pid "$PPID_"
eq "a refused API key: exit 2 (setup fault)" "$RC" 2

if [ "$failures" -gt 0 ]; then
	echo "# $failures checks failed"
	exit 1
fi
exit 0
