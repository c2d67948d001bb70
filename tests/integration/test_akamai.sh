#!/usr/bin/env bash
#
# test_akamai.sh - the akamai provider through the dnsbatch binary against
# tests/fakes/fake_akamai.py over HTTPS (a CA and a server certificate made
# here with the openssl CLI); each scenario starts its own fake on a free
# loopback port, stopped by PID at the end (also when a check fails). The
# fake checks every request against Akamai's published OpenAPI document and
# every EdgeGrid signature with Akamai's own Node library (npm
# akamai-edgegrid, installed under tests/fakes/node_modules at the first
# run): each scenario checks that it refused none.
#
# Each dnsbatch run gets a clean environment (env -i) with only the Akamai
# variables of its credential source; no secret may show in what it prints.
#
# Prints "ok - NAME" or "not ok - NAME" per check; exits 1 if any failed.
# Env: DNSBATCH (default build/dnsbatch), DNSB_KEEP_TMP=1 to keep the temp dir.
. "$(dirname "$0")/checks.sh"
test_begin
. tests/integration/akamai_fake.sh

fake_begin jsonschema python3-jsonschema openssl jq curl python3 node
if akamai_edgegrid_lib; then
	ok "npm akamai-edgegrid $AK_EDGEGRID_VERSION is installed under tests/fakes/node_modules"
else
	not_ok "npm installs akamai-edgegrid (the fake checks the signatures with it)" "$(tail -3 "$T/npm.log" 2>/dev/null)"
	exit 1
fi

# no_secret NAME: nothing apply NAME printed holds a credential
no_secret() {
	if grep -qF -e "$SECRET" -e "$CT" -e "$AT" "$T/$1.json" "$T/$1.err" "$T/$1.drops"; then
		not_ok "$1: no credential in what dnsbatch prints"
	else
		ok "$1: no credential in what dnsbatch prints"
	fi
}
# signed METHOD PATH [BODY]: a request signed by akamai-edgegrid itself (the fake's checker); prints the HTTP status
signed() {
	local auth
	auth=$(jq -nc --arg m "$1" --arg b "https://$AK_HOST" --arg p "$2" --arg body "${3:-}" --arg ct "$CT" --arg cs "$SECRET" \
		--arg at "$AT" --arg ts "$(date -u +%Y%m%dT%H:%M:%S+0000)" --arg n "$(cat /proc/sys/kernel/random/uuid)" \
		'{method: $m, base: $b, path: $p, body: $body, client_token: $ct, client_secret: $cs, access_token: $at,
		  timestamp: $ts, nonce: $n}' | node tests/fakes/akamai_edgegrid_check.js | jq -r .authorization)
	curl -s -o "$T/signed.out" -w '%{http_code}' --cacert "$T/ca.pem" -X "$1" -H "Authorization: $auth" \
		${3:+-H 'Content-Type: application/json' --data-binary "$3"} "$URL$2"
}
SEED='www.example.com 300 A 192.0.2.1
alias.example.com 300 CNAME www.example.com.
stale.example.com 300 A 192.0.2.20
moved.example.com 300 A 192.0.2.30
keep.example.com 300 TXT "v=1"'

# ---- the fake's own checks: the OpenAPI document, the signature ----
start_ak schema || exit 1
eq "fake: a request signed by akamai-edgegrid and of the documented shape passes" \
	"$(signed GET '/config-dns/v2/zones?page=1&pageSize=10')" 200
eq "fake: add-change with an op the document does not list is refused" \
	"$(signed POST /config-dns/v2/changelists?zone=example.com)$(signed POST \
		/config-dns/v2/changelists/example.com/recordsets/add-change \
		'{"name":"a.example.com","type":"A","op":"UPSERT","ttl":300,"rdata":["192.0.2.1"]}')" 201400
eq "fake: add-change with a member the document does not declare is refused" "$(signed POST \
	/config-dns/v2/changelists/example.com/recordsets/add-change \
	'{"name":"a.example.com","type":"A","op":"ADD","ttl":300,"rdata":["192.0.2.1"],"weight":1}')" 400
eq "fake: submit without its required skipSignAndServeSafetyCheck is refused" \
	"$(signed POST /config-dns/v2/changelists/example.com/submit)" 400
eq "fake: the three are counted (a test run then fails)" "$(stat .bad_schema)" 3
eq "fake: a signature that is not akamai-edgegrid's is refused 401" "$(curl -s -o /dev/null -w '%{http_code}' \
	--cacert "$T/ca.pem" -H "Authorization: EG1-HMAC-SHA256 client_token=$CT;access_token=$AT;timestamp=$(date -u \
	+%Y%m%dT%H:%M:%S+0000);nonce=n-1;signature=AAAA" "$URL/config-dns/v2/zones")" 401
check "fake: every signature was recomputed by the Node library" [ "$(stat .signatures_checked_node)" -ge 5 ]
kill "$FAKE_PID"

# ---- credentials and zones at start ----
start_ak auth || exit 1
plan "$T/one.plan.json" create="$(list "$(ep one.example.com A 300 192.0.2.5)")"
apply env "$T/one.plan.json"
eq "AKAMAI_* environment, zones from GET /zones: applied" "$RC $(counts env)" "0 1 1 0 0 0"
no_secret env
printf '[other]\nhost = ignored.luna.akamaiapis.net\n\n[dnsb]\n# the test client\nclient_secret = %s\nhost = %s\naccess_token = %s\nclient_token = %s\nmax_body = 131072\n' \
	"$SECRET" "$AK_HOST" "$AT" "$CT" >"$T/edgerc"
CREDS=()
plan "$T/two.plan.json" create="$(list "$(ep two.example.com A 300 192.0.2.6)")"
apply edgerc "$T/two.plan.json" --akamai-edgerc-path "$T/edgerc" --akamai-edgerc-section dnsb --akamai-zone example.com
eq ".edgerc section: applied" "$RC $(counts edgerc)" "0 1 1 0 0 0"
no_secret edgerc
apply nosection "$T/two.plan.json" --akamai-edgerc-path "$T/edgerc" --akamai-edgerc-section nope
eq ".edgerc without the section: exit 2" "$RC" 2
check ".edgerc without the section: the error names the flag" grep -q -- "--akamai-edgerc-section.*no section \[nope\]" \
	"$T/nosection.err"
CREDS=(EXTERNAL_DNS_AKAMAI_SERVICECONSUMERDOMAIN=$AK_HOST EXTERNAL_DNS_AKAMAI_CLIENT_TOKEN=$CT
	EXTERNAL_DNS_AKAMAI_ACCESS_TOKEN=$AT)
apply argvsecret "$T/two.plan.json" --akamai-client-secret "$SECRET"
eq "--akamai-client-secret on argv: refused, exit 2" "$RC" 2
check "--akamai-client-secret on argv: the error names the file flag" grep -q -- "--akamai-client-secret-file" \
	"$T/argvsecret.err"
plan "$T/three.plan.json" create="$(list "$(ep three.example.com A 300 192.0.2.7)")"
apply extdns "$T/three.plan.json" --akamai-client-secret-file "$T/secret"
eq "external-dns's variable names and --akamai-client-secret-file: applied" "$RC $(counts extdns)" "0 1 1 0 0 0"
no_secret extdns
CREDS=(AKAMAI_HOST=$AK_HOST AKAMAI_CLIENT_TOKEN=$CT AKAMAI_ACCESS_TOKEN=$AT AKAMAI_CLIENT_SECRET=not-the-secret)
apply badsecret "$T/one.plan.json"
eq "a wrong client secret (401 at the zone listing): exit 2" "$RC" 2
check "a wrong client secret: the error says 401" grep -q "HTTP 401" "$T/badsecret.err"
CREDS=(AKAMAI_HOST=akab-another.luna.akamaiapis.net AKAMAI_CLIENT_TOKEN=$CT AKAMAI_ACCESS_TOKEN=$AT
	AKAMAI_CLIENT_SECRET=$SECRET)
apply badhost "$T/one.plan.json"
eq "signed for another host than the API client's: 401, exit 2" "$RC $(stat .auth_refused)" "2 2"
CREDS=(AKAMAI_HOST=$AK_HOST AKAMAI_CLIENT_TOKEN=$CT AKAMAI_ACCESS_TOKEN=$AT AKAMAI_CLIENT_SECRET=$SECRET)
plan "$T/both.plan.json" create="$(list "$(ep c2.example.org A 300 192.0.2.8)" "$(ep c1.example.com A 300 192.0.2.9)")"
apply contract "$T/both.plan.json" --akamai-contract-id C-2
eq "--akamai-contract-id C-2: example.org's change applied, example.com's dropped no_zone (exit 3)" \
	"$RC $(counts contract) $(drop contract c1.example.com | cut -d' ' -f1,2)" "3 2 1 0 1 0 dropped no_zone"
clean_requests auth
kill "$FAKE_PID"

# ---- a mixed plan with every conflict kind: exact ----
start_ak mixed || exit 1
load <<<"$SEED" >/dev/null
mixed_plan "$T/mixed.plan.json"
apply mixed "$T/mixed.plan.json"
eq "mixed: 3 applied, 2 already in effect, 3 dropped (exit 3)" "$RC $(counts mixed)" "3 8 3 2 3 0"
mixed_precheck_drops
eq "mixed: the zone holds the good changes and nothing of the others" "$(zone | tr '\n' ';')" \
	"alias.example.com 300 CNAME www.example.com.;good-txt.example.com 300 TXT \"hello world\";good.example.com 300 A 192.0.2.50;good.example.com 300 A 192.0.2.51;keep.example.com 600 TXT \"v=2\";moved.example.com 300 A 192.0.2.30;stale.example.com 300 A 192.0.2.20;www.example.com 300 A 192.0.2.1;"
eq "mixed: 2 submissions (the culprits named, none found by halving)" "$(rep mixed .submissions)" 2
eq "mixed: one change list submitted, the refused one deleted, none left" \
	"$(stat '"\(.submits) \(.deletes) \(.lists)"')" "1 1 0"
eq "mixed: the same plan again writes nothing" "$(apply mixed2 "$T/mixed.plan.json"; stat .submits)" 1
clean_requests mixed
kill "$FAKE_PID"

# ---- a record Edge DNS refuses (400, errors[] naming it): dropped invalid, named, the rest applied ----
start_ak invalid --refuse bad.example.com || exit 1
plan "$T/inv.plan.json" create="$(list "$(ep ok1.example.com A 300 192.0.2.11)" "$(ep bad.example.com A 300 192.0.2.12)" \
	"$(ep ok2.example.com A 300 192.0.2.13)")"
apply invalid "$T/inv.plan.json"
eq "400 on add-change: 2 applied, bad.example.com dropped invalid (exit 3)" \
	"$RC $(counts invalid) $(drop invalid bad.example.com | cut -d' ' -f1-4)" "3 3 2 0 1 0 dropped invalid 400 invalidRecordSet"
eq "400 on add-change: the culprit named by the reply (tried alone, the rest in one: 3 submissions; halving takes 4)" "$(rep invalid .submissions)" 3
check "400 on add-change: the drop log carries errors[]'s detail" grep -q "the name is reserved by policy" "$T/invalid.drops"
clean_requests invalid
kill "$FAKE_PID"

# ---- stale change list: another client wrote between the list's creation and its submit ----
start_ak stale --fault race --race "race.example.com A 192.0.2.78" || exit 1
load <<<"$SEED" >/dev/null
plan "$T/stale.plan.json" create="$(list "$(ep race.example.com A 300 192.0.2.77)" "$(ep calm.example.com A 300 192.0.2.70)")"
apply stale "$T/stale.plan.json"
eq "stale: the name that moved is a conflict, dropped; the other change applied (exit 3)" \
	"$RC $(counts stale) $(drop stale race.example.com cause)" "3 2 1 0 1 0 dropped conflict 0 precheck exists"
eq "stale: the fake answered stale once, nothing of the list was applied then" "$(stat .submits_stale)" 1
eq "stale: the name that moved is named by reading the batch's names again (2 submissions; halving takes 3)" \
	"$(rep stale .submissions)" 2
eq "stale: the zone holds the other client's record and the calm one" "$(zone | grep -E '^(race|calm)\.' | tr '\n' ';')" \
	"calm.example.com 300 A 192.0.2.70;race.example.com 300 A 192.0.2.78;"
kill "$FAKE_PID"
start_ak stale2 --fault race --race "elsewhere.example.com A 192.0.2.79" || exit 1
plan "$T/stale2.plan.json" create="$(list "$(ep s2.example.com A 300 192.0.2.71)")"
apply stale2 "$T/stale2.plan.json"
eq "stale on another name: the batch is resubmitted and applied (exit 0)" "$RC $(counts stale2)" "0 1 1 0 0 0"
eq "stale on another name: two submits, one stale" "$(stat '"\(.submits) \(.submits_stale)"')" "2 1"
clean_requests stale
kill "$FAKE_PID"

# ---- the submit's reply is lost (applied, connection closed): settled by reading back ----
start_ak lost --fault drop || exit 1
plan "$T/lost.plan.json" create="$(list "$(ep l1.example.com A 300 192.0.2.61)" "$(ep l2.example.com A 300 192.0.2.62)")"
apply lost "$T/lost.plan.json"
eq "lost reply: every change in effect, none dropped or failed (exit 0)" "$RC $(counts lost | cut -d' ' -f1,4,5)" "0 2 0 0"
eq "lost reply: submitted once (the read-back proved it)" "$(stat .submits)" 1
eq "lost reply: libcurl resent the submit on a new connection, and its used nonce was refused (401, transient)" \
	"$(stat .nonces_reused)" 1
kill "$FAKE_PID"
start_ak lost500 --fault 500 || exit 1
apply lost500 "$T/lost.plan.json"
eq "500 on submit (nothing applied): resubmitted and applied" "$RC $(counts lost500)" "0 2 2 0 0 0"
eq "500 on submit: the unsubmitted list was found as a leftover and deleted before the next" \
	"$(stat '"\(.submits) \(.creates_refused) \(.leftovers_submitted) \(.lists)"')" "2 1 0 0"
kill "$FAKE_PID"

# ---- a leftover change list of a crashed run: deleted, never submitted ----
start_ak leftover || exit 1
curl -s -o /dev/null --cacert "$T/ca.pem" -H 'Content-Type: application/json' \
	--data-binary '{"name":"leftover.example.com","type":"A","ttl":300,"rdata":"192.0.2.99"}' \
	"$URL/_fake/leftover/example.com?client=$CT"
apply leftover "$T/one.plan.json"
eq "leftover: the plan applied" "$RC $(counts leftover)" "0 1 1 0 0 0"
eq "leftover: the create met it (409), it was deleted and never submitted" \
	"$(stat '"\(.creates_refused) \(.leftovers_submitted) \(.lists)"')" "1 0 0"
eq "leftover: its change is not in the zone" "$(zone | grep -c '^leftover\.')" 0
check "leftover: the log says a leftover change list was deleted" grep -q "leftover change list" "$T/leftover.err"
clean_requests leftover
kill "$FAKE_PID"

# ---- 429 with X-RateLimit-Next: waited, resubmitted ----
start_ak slow --fault 429 --fault-retry-after 1 || exit 1
apply slow "$T/one.plan.json"
eq "429 with X-RateLimit-Next: applied after the wait" "$RC $(counts slow)" "0 1 1 0 0 0"
# X-RateLimit-Next ~1 s ahead is a floor, capped at 10 x --backoff-cap (0.05 here): 0.5 s.
ge "429 with X-RateLimit-Next: the wait was the header's (capped at 10 x --backoff-cap)" "$(rep slow .backoff_seconds)" 0.45
kill "$FAKE_PID"
start_ak spent --rate 4 --rate-window 2 || exit 1
plan "$T/spent.plan.json" create="$(list "$(ep sp1.example.com A 300 192.0.2.91)" "$(ep sp2.example.com A 300 192.0.2.92)")"
apply spent "$T/spent.plan.json" --akamai-zone example.com --akamai-batch-change-size 1 --backoff-cap 1
eq "429 on every kind of request (4 per 2 s): waited out, all applied" "$RC $(counts spent)" "0 2 2 0 0 0"
ge "429 on every kind of request: the fake refused some" "$(stat .rate_limited)" 1
clean_requests spent
kill "$FAKE_PID"

# ---- 401 on submit: fatal, nothing written, the zone stopped ----
start_ak fatal --fault auth || exit 1
apply fatal "$T/one.plan.json"
eq "401 on submit: failed, nothing applied or dropped (exit 4)" "$RC $(counts fatal)" "4 1 0 0 0 1"
eq "401 on submit: submitted once (fatal: no retry)" "$(stat .submits)" 1
no_secret fatal
kill "$FAKE_PID"

# ---- pagination: a zone of 30 record sets, pages of 4 ----
start_ak pages --page-size 4 || exit 1
for i in $(seq 1 30); do echo "p$i.example.com 300 A 192.0.2.$i"; done | load >/dev/null
run records --provider akamai --akamai-api-endpoint "$URL" --akamai-ca-file "$T/ca.pem" >"$T/pages.out" 2>"$T/pages.err"
eq "pagination: records lists every record set over 8 pages (+ SOA, NS)" "$(grep -c 'p[0-9]*\.example\.com' "$T/pages.out")" 30
check "pagination: the listing followed the pages" [ "$(stat .reads)" -ge 8 ]
plan "$T/pages.plan.json" create="$(list $(for i in $(seq 31 55); do ep "p$i.example.com" A 300 "192.0.2.$i"; done))"
apply pagesplan "$T/pages.plan.json" --akamai-batch-change-size 100
eq "pagination: 25 names (above the per-name reads) applied after a whole-zone pre-check" "$RC $(counts pagesplan)" \
	"0 25 25 0 0 0"
clean_requests pages
kill "$FAKE_PID"

[ "$failures" -eq 0 ]
