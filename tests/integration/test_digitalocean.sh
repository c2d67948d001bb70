#!/usr/bin/env bash
#
# test_digitalocean.sh - the digitalocean provider through the dnsbatch binary against
# tests/fakes/fake_digitalocean.py over HTTPS (a CA and a server certificate made here with the openssl CLI); each
# scenario starts its own fake on a free loopback port, stopped by PID at the end (also when a check fails). The
# fake checks every request against DigitalOcean's OpenAPI description: each scenario checks that it refused none.
#
# Each dnsbatch run gets a clean environment (env -i), the token from its file (or $DO_TOKEN alone); the token may
# not show in what it prints.
#
# Prints "ok - NAME" or "not ok - NAME" per check; exits 1 if any failed.
# Env: DNSBATCH (default build/dnsbatch), DNSB_KEEP_TMP=1 to keep the temp dir.
. "$(dirname "$0")/checks.sh"
test_begin
. tests/integration/digitalocean_fake.sh

fake_begin jsonschema python3-jsonschema openssl jq curl python3

# no_secret NAME: nothing apply NAME printed holds the token
no_secret() {
	if grep -qF -e "$TOKEN" "$T/$1.json" "$T/$1.err" "$T/$1.drops"; then
		not_ok "$1: no token in what dnsbatch prints"
	else
		ok "$1: no token in what dnsbatch prints"
	fi
}
# zone_: example.com's records (zone) without the apex NS DigitalOcean keeps
zone_() { zone | grep -v '^@ [0-9]* NS '; }
# ---- the token and the domains at start ----
start_do auth || exit 1
plan "$T/one.plan.json" create="$(list "$(ep one.example.com A 300 192.0.2.5)")"
DO_ENV=("DO_TOKEN=$TOKEN")
run apply --plan "$T/one.plan.json" --provider digitalocean --digitalocean-api-endpoint "$URL" \
	--digitalocean-ca-file "$T/ca.pem" --drop-log "$T/env.drops" --output json >"$T/env.json" 2>"$T/env.err"
RC=$?
eq "\$DO_TOKEN, the domains from GET /v2/domains: applied" "$RC $(counts env)" "0 1 1 0 0 0"
touch "$T/env.drops"
no_secret env
DO_ENV=()
plan "$T/two.plan.json" create="$(list "$(ep two.example.org A 300 192.0.2.6)")"
apply file "$T/two.plan.json"
eq "--digitalocean-token-file: applied (to the second domain)" "$RC $(counts file)" "0 1 1 0 0 0"
no_secret file
run apply --plan "$T/two.plan.json" --provider digitalocean --digitalocean-api-endpoint "$URL" \
	--digitalocean-ca-file "$T/ca.pem" >"$T/none.out" 2>"$T/none.err"
eq "no token: exit 2" "$?" 2
check "no token: the error names \$DO_TOKEN and the flag" grep -q -- 'DO_TOKEN or --digitalocean-token-file' "$T/none.err"
printf 'dop_v1_not-the-token\n' >"$T/bad.token"
apply badtoken "$T/one.plan.json" --digitalocean-token-file "$T/bad.token"
eq "a refused token (401 at GET /v2/domains): exit 2, nothing applied" "$RC $(stat .auth_refused)" "2 1"
check "a refused token: the error says 401" grep -q "HTTP 401" "$T/badtoken.err"
apply badpage "$T/one.plan.json" --digitalocean-api-page-size 201
eq "--digitalocean-api-page-size 201 (above the API's 200): exit 2" "$RC" 2
clean_requests auth
kill "$FAKE_PID"

# ---- a mixed plan: creates, updates, deletes, conflicts, an invalid change: exact ----
start_do mixed || exit 1
{
	rec www A 300 192.0.2.1
	rec alias CNAME 300 www.example.com
	rec stale A 300 192.0.2.20
	rec moved A 300 192.0.2.30
	rec keep TXT 300 v=1
	rec multi A 300 192.0.2.60
	rec multi A 300 192.0.2.61
	rec gone A 300 192.0.2.40
	rec mx MX 300 mail.example.com priority=10
} | load >/dev/null
curl -s --cacert "$T/ca.pem" "$URL/_fake/zone/example.com" | jq -r '.domain_records[] | select(.name == "multi" or
	.name == "keep") | "\(.name) \(.id)"' | sort >"$T/ids.before"
plan "$T/mixed.plan.json" \
	create="$(list "$(ep good.example.com A 300 192.0.2.50 192.0.2.51)" "$(ep www.example.com A 300 192.0.2.1)" \
		"$(ep alias.example.com A 300 192.0.2.9)" "$(ep stale.example.com CNAME 300 www.example.com)" \
		"$(ep example.com CNAME 300 www.example.com)" "$(ep good-txt.example.com TXT 300 '"hello world"')" \
		"$(ep bad.example.com TXT 300 '"two" "strings"')" "$(ep srv._tcp.example.com SRV 300 '1 2 3 t.example.com')")" \
	updateOld="$(list "$(ep moved.example.com A 300 192.0.2.99)" "$(ep keep.example.com TXT 300 '"v=1"')" \
		"$(ep multi.example.com A 300 192.0.2.60 192.0.2.61)" "$(ep mx.example.com MX 300 '10 mail.example.com')")" \
	updateNew="$(list "$(ep moved.example.com A 300 192.0.2.31)" "$(ep keep.example.com TXT 600 '"v=2"')" \
		"$(ep multi.example.com A 300 192.0.2.61 192.0.2.62 192.0.2.63)" "$(ep mx.example.com MX 20 '20 mail.example.com')")" \
	delete="$(list "$(ep gone.example.com A 300 192.0.2.40)" "$(ep never.example.com A 300 192.0.2.41)")"
apply mixed "$T/mixed.plan.json"
eq "mixed: 7 applied, 2 already in effect, 5 dropped (exit 3)" "$RC $(counts mixed)" "3 14 7 2 5 0"
eq "mixed: each change's outcome" "$(jq -r '.outcomes[] | "\(.kind) \(.dnsName) \(.recordType) \(.outcome)"' \
	"$T/mixed.json" | tr '\n' ';')" "create good.example.com. A applied;create www.example.com. A already_applied;create alias.example.com. A dropped;create stale.example.com. CNAME dropped;create example.com. CNAME dropped;create good-txt.example.com. TXT applied;create bad.example.com. TXT dropped;create srv._tcp.example.com. SRV applied;update moved.example.com. A dropped;update keep.example.com. TXT applied;update multi.example.com. A applied;update mx.example.com. MX applied;delete gone.example.com. A applied;delete never.example.com. A already_applied;"
eq "mixed: A beside a CNAME: dropped by the pre-check" "$(drop mixed alias.example.com cause)" \
	"dropped conflict 0 precheck cname"
eq "mixed: CNAME beside an A: dropped by the pre-check" "$(drop mixed stale.example.com cause)" \
	"dropped conflict 0 precheck cname"
eq "mixed: CNAME at the apex: dropped by the pre-check" "$(drop mixed example.com | cut -d' ' -f1-4)" \
	"dropped conflict 0 precheck"
eq "mixed: update of other values: dropped (pre-check)" "$(drop mixed moved.example.com cause)" \
	"dropped conflict 0 precheck differs"
eq "mixed: a TXT of two short strings (one string in DigitalOcean): dropped invalid before sending" \
	"$(drop mixed bad.example.com | cut -d' ' -f1-2)" "dropped invalid"
eq "mixed: the domain holds the good changes and nothing of the others" "$(zone_ | tr '\n' ';')" \
	"alias 300 CNAME www.example.com;good 300 A 192.0.2.50;good 300 A 192.0.2.51;good-txt 300 TXT hello world;keep 600 TXT v=2;moved 300 A 192.0.2.30;multi 300 A 192.0.2.61;multi 300 A 192.0.2.62;multi 300 A 192.0.2.63;mx 30 MX 20 mail.example.com;srv._tcp 300 SRV 1 2 3 t.example.com;stale 300 A 192.0.2.20;www 300 A 192.0.2.1;"
eq "mixed: records updated in place (their ids kept), the difference added" \
	"$(curl -s --cacert "$T/ca.pem" "$URL/_fake/zone/example.com" | jq -r '.domain_records[] | select(.name == "multi"
		or .name == "keep") | "\(.name) \(.id)"' | sort | comm -12 - "$T/ids.before" | wc -l)" 3
eq "mixed: the writes: 5 POSTs, 3 PUTs, 1 DELETE" "$(stat '"\(.creates) \(.updates) \(.deletes)"')" "5 3 1"
eq "mixed: nothing refused by the fake (the pre-check found every conflict)" "$(stat .refused_422)" 0
apply mixed2 "$T/mixed.plan.json"
eq "mixed: the same plan again writes nothing" "$(stat '"\(.creates) \(.updates) \(.deletes)"')" "5 3 1"
clean_requests mixed
no_secret mixed
kill "$FAKE_PID"

# ---- a write refused mid-group: the group's earlier writes undone ----
start_do undo || exit 1
rec old A 300 192.0.2.70 | load >/dev/null
plan "$T/undo.plan.json" create="$(list "$(ep three.example.com A 300 192.0.2.1 192.0.2.2 192.0.2.3)")" \
	delete="$(list "$(ep old.example.com A 300 192.0.2.70)")"
# the runs: DELETE old; 3 POSTs side by side, one refused -> undo (2 DELETEs, old POSTed again); the culprit alone: 3
# POSTs, one refused -> undo (2 DELETEs); then the delete alone
fault ok ok refuse ok ok ok ok refuse
apply undo "$T/undo.plan.json"
eq "refused mid-group: the group's change dropped invalid, the delete (alone) applied (exit 3)" \
	"$RC $(counts undo) $(drop undo three.example.com | cut -d' ' -f1-4)" "3 2 1 0 1 0 dropped invalid 422 unprocessable_entity"
eq "refused mid-group: the landed writes undone (nothing of three.example.com left)" "$(zone_ | tr '\n' ';')" ""
check "refused mid-group: the drop log carries DigitalOcean's message" grep -q "scripted refusal" "$T/undo.drops"
eq "refused mid-group: each undo deleted the POSTs that landed and posted the deleted record again" \
	"$(stat '"\(.creates) \(.deletes) \(.faults)"')" "5 6 2"
clean_requests undo
kill "$FAKE_PID"

# ---- an undo that fails: rollback, fatal, named ----
start_do rollback || exit 1
plan "$T/rb.plan.json" create="$(list "$(ep rb.example.com A 300 192.0.2.1 192.0.2.2)")"
fault ok refuse 500
apply rollback "$T/rb.plan.json"
eq "undo refused: the change failed, never applied or dropped (exit 4)" "$RC $(counts rollback)" "4 1 0 0 0 1"
left=$(zone_ | awk '$1 == "rb" { print $4 }')
eq "undo refused: one record left in the zone (the two POSTs side by side: whichever landed)" \
	"$(echo "$left" | grep -c '^192\.0\.2\.[12]$')" 1
check "undo refused: the error says rollback and names the record left (the message tells the truth)" \
	grep -q "rollback.*rb.example.com. A $left" "$T/rollback.err" "$T/rollback.json" "$T/rollback.drops"
kill "$FAKE_PID"

# ---- a lost reply: read back, not written twice ----
start_do lost || exit 1
plan "$T/lost.plan.json" create="$(list "$(ep l1.example.com A 300 192.0.2.61 192.0.2.62)")"
fault drop
apply lost "$T/lost.plan.json"
eq "lost reply: read back (it landed), the rest written: applied (exit 0)" "$RC $(counts lost)" "0 1 1 0 0 0"
eq "lost reply: the domain holds each value once" "$(zone_ | tr '\n' ';')" "l1 300 A 192.0.2.61;l1 300 A 192.0.2.62;"
eq "lost reply: 2 records created, one reply dropped" "$(stat '"\(.creates) \(.dropped_replies)"')" "2 1"
le "lost reply: a resend by libcurl (a new connection) met its own record at most once" "$(stat .refused_422)" 1
kill "$FAKE_PID"
start_do lost500 || exit 1
fault ok 500after
apply lost500 "$T/lost.plan.json"
eq "500 after the write: read back (it landed): applied (exit 0)" "$RC $(counts lost500)" "0 1 1 0 0 0"
eq "500 after the write: each value once" "$(zone_ | tr '\n' ';')" "l1 300 A 192.0.2.61;l1 300 A 192.0.2.62;"
kill "$FAKE_PID"

# ---- 429: waited out ----
start_do slow --fault-retry-after 1 || exit 1
fault 429
apply slow "$T/one.plan.json"
eq "429 on a write: waited out, applied" "$RC $(counts slow)" "0 1 1 0 0 0"
eq "429 on a write: the fake refused one, the record is there once" "$(stat .faults) $(zone_ | tr '\n' ';')" \
	"1 one 300 A 192.0.2.5;"
kill "$FAKE_PID"
start_do burst --rate-minute 6 --minute-seconds 2 || exit 1
creates "$T/burst.plan.json" 8 b example.com 10.0
apply burst "$T/burst.plan.json" --rate-budget-rate 1000 --rate-budget-burst 1000
eq "the burst limit (6 per 2 s, the budget raised past it): waited out, all applied" "$RC $(counts burst)" "0 8 8 0 0 0"
ge "the burst limit: the fake answered 429 (ratelimit-reset, retry-after)" "$(stat .burst_limited)" 1
eq "the burst limit: each record once" "$(zone_ | wc -l)" 8
clean_requests burst
kill "$FAKE_PID"

# ---- the hourly limit nearly spent, its reset far: a group that could not be undone is not started ----
start_do hour --rate-hour 20 --hour-seconds 600 || exit 1
# shellcheck disable=SC2046 # the addresses are split into targets on purpose
plan "$T/h1.plan.json" create="$(list "$(ep h1.example.com A 300 $(for i in $(seq 1 10); do echo 192.0.2.$i; done))")"
apply hour1 "$T/h1.plan.json"
eq "hourly limit: the first run's 10 records applied (12 of the token's 20 requests spent)" "$RC $(counts hour1)" \
	"0 1 1 0 0 0"
# shellcheck disable=SC2046
plan "$T/h2.plan.json" create="$(list "$(ep h2.example.com A 300 $(for i in $(seq 1 8); do echo 192.0.2.$i; done))")"
apply hour2 "$T/h2.plan.json" --timeout 3
eq "hourly limit: 8 writes (and as many undos) do not fit the 6 left: failed at the deadline, not rollback (exit 4)" \
	"$RC $(counts hour2) $(jq -r .reason "$T/hour2.drops")" "4 1 0 0 0 1 deadline"
eq "hourly limit: nothing of the group written" "$(zone_ | grep -c '^h2 ')" 0
kill "$FAKE_PID"

# ---- pagination: 30 records, pages of 4 ----
start_do pages || exit 1
for i in $(seq 1 30); do rec "p$i" A 300 "192.0.2.$i"; done | load >/dev/null
run records --provider digitalocean --digitalocean-api-endpoint "$URL" --digitalocean-ca-file "$T/ca.pem" \
	--digitalocean-token-file "$T/do.token" --digitalocean-api-page-size 4 >"$T/pages.out" 2>"$T/pages.err"
eq "pagination: records lists every record over the pages" "$(grep -c 'p[0-9]*\.example\.com' "$T/pages.out")" 30
check "pagination: the listing followed 8 pages at least" [ "$(stat .reads)" -ge 8 ]
clean_requests pages
kill "$FAKE_PID"

[ "$failures" -eq 0 ]
