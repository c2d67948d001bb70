#!/usr/bin/env bash
#
# test_cloudflare.sh - the cloudflare provider through the dnsbatch binary
# against tests/fakes/fake_cloudflare.py over HTTPS (a CA and a server
# certificate made here with the openssl CLI); each scenario starts its own
# fake on a free loopback port, stopped by PID at the end (also when a check
# fails). The fake checks every batch body against Cloudflare's published
# schema: each scenario checks that it refused none.
#
# Each dnsbatch run gets a clean environment (env -i) with only the
# Cloudflare variables of its credential source; no secret may show in what
# it prints.
#
# Prints "ok - NAME" or "not ok - NAME" per check; exits 1 if any failed.
# Env: DNSBATCH (default build/dnsbatch), DNSB_KEEP_TMP=1 to keep the temp dir.
. "$(dirname "$0")/checks.sh"
test_begin
. tests/integration/cloudflare_fake.sh
. tests/integration/redis.sh

fake_begin jsonschema python3-jsonschema openssl jq curl python3 redis-server redis-cli

# no_secret NAME: nothing apply NAME printed holds a credential
no_secret() {
	if grep -qF -e "$TOKEN" -e "$OTHER_TOKEN" -e "$KEY" "$T/$1.json" "$T/$1.err" "$T/$1.drops"; then
		not_ok "$1: no credential in what dnsbatch prints"
	else
		ok "$1: no credential in what dnsbatch prints"
	fi
}

cat >"$T/seed" <<EOF
$Z1 www.example.com 300 A 192.0.2.1
$Z1 alias.example.com 300 CNAME www.example.com
$Z1 stale.example.com 300 A 192.0.2.20
$Z1 moved.example.com 300 A 192.0.2.30
$Z1 keep.example.com 300 TXT "v=1"
EOF

# ---- the fake's own check: a body off Cloudflare's schema is refused and counted ----
start_cf schema || exit 1
bad() { curl -s --cacert "$T/ca.pem" -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \
	-d "$1" "$URL/client/v4/zones/$Z1/dns_records/batch" | jq -r '.errors[0].code'; }
eq "fake: a post with a wrong type (ttl as a string) is refused" \
	"$(bad '{"posts":[{"name":"a.example.com","type":"A","content":"192.0.2.1","ttl":"300"}]}')" 1004
eq "fake: a post with a member Cloudflare does not know is refused" \
	"$(bad '{"posts":[{"name":"a.example.com","type":"A","content":"192.0.2.1","ttl":300,"weight":1}]}')" 1004
eq "fake: a delete without an id is refused" "$(bad '{"deletes":[{"name":"a.example.com"}]}')" 1004
eq "fake: the three are counted (a test run then fails)" "$(stat .bad_schema)" 3
eq "fake: a body of Cloudflare's shape passes" \
	"$(bad '{"posts":[{"name":"a.example.com","type":"A","content":"192.0.2.1","ttl":1,"proxied":true,"comment":"c"}]}')" null
kill "$FAKE_PID"

# ---- credentials and zones at start ----
start_cf auth --seed "$T/seed" || exit 1
plan "$T/one.plan.json" create="$(list "$(ep one.example.com A 300 192.0.2.5)")"
CREDS=(CF_API_TOKEN=$OTHER_TOKEN)
apply nozone "$T/one.plan.json" --cloudflare-zone-id "$Z1"
eq "a token without the zone: exit 2 at start" "$RC" 2
check "a token without the zone: the error says 403" grep -q "HTTP 403" "$T/nozone.err"
eq "a token without the zone: no batch sent" "$(stat .batches)" 0
no_secret nozone
CREDS=(CF_API_TOKEN=not-a-token)
apply badtoken "$T/one.plan.json"
eq "a token Cloudflare refuses: exit 2 at start" "$RC" 2
CREDS=()
apply nocreds "$T/one.plan.json"
eq "no credentials: exit 2" "$RC" 2
check "no credentials: the error names CF_API_TOKEN" grep -q "CF_API_TOKEN" "$T/nocreds.err"

printf '%s\n' "$TOKEN" >"$T/token"
CREDS=("CF_API_TOKEN=file:$T/token")
apply tokenfile "$T/one.plan.json"
eq "CF_API_TOKEN=file:PATH, zones from GET /zones: applied" "$RC $(counts tokenfile)" "0 1 1 0 0 0"
no_secret tokenfile
plan "$T/two.plan.json" create="$(list "$(ep two.example.com A 300 192.0.2.6)")"
CREDS=(CF_API_KEY=$KEY CF_API_EMAIL=$EMAIL)
apply globalkey "$T/two.plan.json" --cloudflare-zone-id "$Z1"
eq "CF_API_KEY with CF_API_EMAIL: applied" "$RC $(counts globalkey)" "0 1 1 0 0 0"
no_secret globalkey
plan "$T/both.plan.json" create="$(list "$(ep both.example.com A 300 192.0.2.7)" "$(ep both.example.org A 300 192.0.2.8)")"
apply bothzones "$T/both.plan.json" --cloudflare-zone-id "$Z1" --cloudflare-zone-id "$Z2"
eq "--cloudflare-zone-id twice: a change in each zone applied" "$RC $(counts bothzones)" "0 2 2 0 0 0"
eq "--cloudflare-zone-id twice: each in its zone" "$(zone "$Z1" | grep -c '^both\.')$(zone "$Z2" | grep -c '^both\.')" 11
apply onezone "$T/both.plan.json" --cloudflare-zone-id "$Z1"
eq "--cloudflare-zone-id once: the other zone's change dropped as no_zone (exit 3)" \
	"$RC $(counts onezone) $(drop onezone both.example.org | cut -d' ' -f1,2)" "3 2 0 1 1 0 dropped no_zone"
CREDS=(CF_API_KEY=$KEY)
apply noemail "$T/two.plan.json"
eq "CF_API_KEY without CF_API_EMAIL: exit 2" "$RC" 2
clean_requests auth
kill "$FAKE_PID"
CREDS=(CF_API_TOKEN=$TOKEN)

# ---- a mixed plan with every conflict kind ----
start_cf mixed --seed "$T/seed" || exit 1
mixed_plan "$T/mixed.plan.json"
apply mixed "$T/mixed.plan.json" --cloudflare-zone-id "$Z1"
# The create of an identical record and the delete of a missing one conflict in the pre-check, and the
# read-back finds them in effect already (verify before drop): already_applied, not dropped.
eq "mixed: 3 applied, 2 already in effect, 3 dropped (exit 3)" "$RC $(counts mixed)" "3 8 3 2 3 0"
eq "mixed: the create of an identical record and the delete of a missing one are not in the drop log" \
	"$(drop mixed www.example.com)$(drop mixed gone.example.com)" ""
# A CNAME beside other data breaks RFC 1034's rule, which Cloudflare enforces (81053, 81054): the pre-check
# names both before the POST (issue 31).
mixed_precheck_drops
eq "mixed: the zone holds the good changes and nothing of the others" "$(zone | tr '\n' ';')" \
	"alias.example.com 300 CNAME www.example.com;good-txt.example.com 300 TXT \"hello world\";good.example.com 300 A 192.0.2.50;good.example.com 300 A 192.0.2.51;keep.example.com 600 TXT \"v=2\";moved.example.com 300 A 192.0.2.30;stale.example.com 300 A 192.0.2.20;www.example.com 300 A 192.0.2.1;"
# One submission the pre-check refuses naming its five, one that applies.
eq "mixed: 2 submissions (the culprits named, none found by halving)" "$(rep mixed .submissions)" 2
clean_requests mixed
kill "$FAKE_PID"

# ---- --cloudflare-proxied and --cloudflare-record-comment ----
start_cf proxied --seed "$T/seed" || exit 1
plan "$T/proxied.plan.json" create="$(list "$(ep p.example.com A 300 192.0.2.70)" "$(ep ptxt.example.com TXT 300 '"t"')")"
apply proxied "$T/proxied.plan.json" --cloudflare-zone-id "$Z1" --cloudflare-proxied --cloudflare-record-comment "by dnsbatch"
eq "proxied: applied" "$RC $(counts proxied)" "0 2 2 0 0 0"
eq "proxied: A proxied with TTL 1 (automatic) and the comment; TXT not proxiable" \
	"$(curl -s --cacert "$T/ca.pem" "$URL/_fake/zone/$Z1" | jq -r '.records[] | select(.name | startswith("p")) |
		"\(.name) \(.ttl) \(.proxied) \(.comment)"' | sort | tr '\n' ';')" \
	"p.example.com 1 true by dnsbatch;ptxt.example.com 300 false by dnsbatch;"
apply proxied2 "$T/proxied.plan.json" --cloudflare-zone-id "$Z1" --cloudflare-proxied --cloudflare-record-comment "by dnsbatch"
eq "proxied: the same plan again is already in effect (TTL 1 read back as automatic)" "$RC $(counts proxied2)" "0 2 0 2 0 0"
# The comment is part of the record: without the flag the plan asks for none, and the records hold one.
apply proxied3 "$T/proxied.plan.json" --cloudflare-zone-id "$Z1" --cloudflare-proxied
eq "proxied: another comment is not the record asked for (the creates conflict)" "$RC $(counts proxied3)" "3 2 0 0 2 0"
# A plan naming the properties as external-dns does (proxied false on the A, a comment of its own).
plan "$T/props.plan.json" create="$(list "$(ep q.example.com A 300 192.0.2.71 |
	jq -c '.providerSpecific = [{"name": "external-dns.alpha.kubernetes.io/cloudflare-proxied", "value": "false"},
		{"name": "external-dns.alpha.kubernetes.io/cloudflare-record-comment", "value": "mine"}]')")"
apply props "$T/props.plan.json" --cloudflare-zone-id "$Z1" --cloudflare-proxied --cloudflare-record-comment "by dnsbatch"
eq "properties: applied and verified" "$RC $(counts props)" "0 1 1 0 0 0"
eq "properties: not proxied, its own TTL and comment" \
	"$(curl -s --cacert "$T/ca.pem" "$URL/_fake/zone/$Z1" | jq -r '.records[] | select(.name == "q.example.com") |
		"\(.ttl) \(.proxied) \(.comment)"')" "300 false mine"
clean_requests proxied
kill "$FAKE_PID"

# ---- 502 after commit: verified, nothing dropped ----
start_cf lost --seed "$T/seed" --fault 502after || exit 1
plan "$T/lost.plan.json" create="$(list "$(ep l1.example.com A 300 192.0.2.61)" "$(ep l2.example.com A 300 192.0.2.62)")" \
	delete="$(list "$(ep stale.example.com A 300 192.0.2.20)")"
apply lost "$T/lost.plan.json" --cloudflare-zone-id "$Z1"
eq "502 after commit: every change in effect, none dropped (exit 0)" "$RC $(counts lost | cut -d' ' -f1,4,5)" "0 3 0 0"
eq "502 after commit: the batch was sent once" "$(stat .batches)" 1
clean_requests lost
kill "$FAKE_PID"

# ---- 429 with Retry-After: waited, resubmitted ----
start_cf slow --seed "$T/seed" --fault 429 || exit 1
apply slow "$T/one.plan.json" --cloudflare-zone-id "$Z1"
eq "429 with Retry-After: applied after the wait" "$RC $(counts slow)" "0 1 1 0 0 0"
# Retry-After: 1 is a floor, capped at 10 x --backoff-cap (0.05 here): 0.5 s, ten times any jittered wait.
ge "429 with Retry-After: the wait was Retry-After's (capped at 10 x --backoff-cap)" "$(rep slow .backoff_seconds)" 0.45
kill "$FAKE_PID"

# ---- a 429's hold past the deadline: the engine is told, and ends there ----
# The first batch's 429 asks 30 s, and the token is held that long; the deadline is 4 s away
# (--backoff-cap 10: the engine would wait up to 100 s). The second batch's read is not sent, and
# its answer carries the hold as its Retry-After: the engine ends it at its deadline at once, not
# after quick resubmissions (each not sent, or sent into the hold).
start_cf held --seed "$T/seed" --fault 429 --fault-retry-after 30 || exit 1
plan "$T/held.plan.json" create="$(list "$(ep h1.example.com A 300 192.0.2.81)" "$(ep h2.example.com A 300 192.0.2.82)")"
apply held "$T/held.plan.json" --cloudflare-zone-id "$Z1" --cloudflare-batch-change-size 1 --timeout 4 --backoff-cap 10
eq "429 hold past the deadline: both failed, none applied or dropped (exit 4)" "$RC $(counts held)" "4 2 0 0 0 2"
eq "429 hold past the deadline: the batch held back failed for the deadline" "$(drop held h2.example.com | cut -d' ' -f1,2)" \
	"failed deadline"
eq "429 hold past the deadline: each batch submitted once" "$(rep held .submissions) $(rep held .retries)" "2 0"
eq "429 hold past the deadline: nothing sent during the hold (one batch; its read, the zone's GET)" \
	"$(stat .batches) $(stat .requests)" "1 3"
check "429 hold past the deadline: the refusal names the hold" grep -Eq "leaves no request for (29|30)\.[0-9] s" "$T/held.err"
eq "429 hold past the deadline: ended at once: the engine waited nothing" "$(rep held .backoff_seconds)" 0
kill "$FAKE_PID"

# ---- the RateLimit headers: slowed down before the limit, no 429 ----
start_cf paced --seed "$T/seed" --rate 10 --rate-window 2 || exit 1
plan "$T/paced.plan.json" create="$(list $(for i in $(seq 1 16); do ep "r$i.example.com" A 300 "192.0.2.$((100 + i))"; done))"
apply paced "$T/paced.plan.json" --cloudflare-zone-id "$Z1" --cloudflare-batch-change-size 4
eq "RateLimit: 16 creates applied in batches of 4 at 10 requests per 2 s" "$RC $(counts paced)" "0 16 16 0 0 0"
eq "RateLimit: no request refused with 429 (reads and writes paced from one count)" "$(stat .rate_limited)" 0
ge "RateLimit: more requests than the quota were sent" "$(stat .requests)" 11
check "RateLimit: the requests held back are counted in the log" grep -q "requests held back .* by the RateLimit header" \
	"$T/paced.err"
clean_requests paced
kill "$FAKE_PID"
# With --rate-budget: reads and writes take the shared budget's tokens, and the headers falling low slow it.
start_cf budget --rate 10 --rate-window 2 || exit 1
start_redis "$T/redis" || { not_ok "redis-server starts"; exit 1; }
plan "$T/budget.plan.json" create="$(list $(for i in $(seq 1 12); do ep "c$i.example.com" A 300 "192.0.2.$((100 + i))"; done))"
apply budget "$T/budget.plan.json" --cloudflare-zone-id "$Z1" --cloudflare-batch-change-size 4 \
	--rate-budget "redis://127.0.0.1:$REDIS_PORT" --metrics-file "$T/budget.metrics"
eq "rate budget: applied" "$RC $(counts budget)" "0 12 12 0 0 0"
eq "rate budget: every request, reads and writes, took a token of the shared budget" \
	"$(sed -n 's/^dnsbatch_rate_budget_tokens_total{bucket="shared"} //p' "$T/budget.metrics")" "$(stat .requests)"
ge "rate budget: the RateLimit header falling low slowed the shared rate" \
	"$(sed -n 's/^dnsbatch_rate_budget_throttles_total //p' "$T/budget.metrics")" 1
eq "rate budget: no 429" "$(stat .rate_limited)" 0
stop_redis
REDIS_DIR=
kill "$FAKE_PID"
# Two instances on one token: each reads the token's count in the headers, so both slow down.
start_cf paced2 --rate 10 --rate-window 2 || exit 1
plan "$T/pa.plan.json" create="$(list $(for i in $(seq 1 12); do ep "a$i.example.com" A 300 "192.0.2.$((100 + i))"; done))"
plan "$T/pb.plan.json" create="$(list $(for i in $(seq 1 12); do ep "b$i.example.com" A 300 "192.0.2.$((100 + i))"; done))"
apply pa "$T/pa.plan.json" --cloudflare-zone-id "$Z1" --cloudflare-batch-change-size 4 &
apply_pid=$!
apply pb "$T/pb.plan.json" --cloudflare-zone-id "$Z1" --cloudflare-batch-change-size 4
wait "$apply_pid"
eq "RateLimit, two instances on one token: both applied" "$(counts pa) $(counts pb)" "12 12 0 0 0 12 12 0 0 0"
# A 429 stays possible when both take the last request at once (each counts its own); it is then waited out.
le "RateLimit, two instances on one token: at most one 429 (the headers are shared)" "$(stat .rate_limited)" 1
kill "$FAKE_PID"

# ---- another client of the token spent its limit: the 429's Retry-After is waited out once ----
start_cf spent --seed "$T/seed" --rate 5 --rate-window 2 || exit 1
for i in 1 2 3 4 5; do
	curl -s -o /dev/null --cacert "$T/ca.pem" -H "Authorization: Bearer $TOKEN" "$URL/client/v4/zones/$Z1"
done
apply spent "$T/one.plan.json" --cloudflare-zone-id "$Z1"
eq "429 on a read (the token spent by another client): applied after its Retry-After" "$RC $(counts spent)" "0 1 1 0 0 0"
eq "429 on a read: one 429, then nothing sent until Retry-After had passed" "$(stat .rate_limited)" 1
kill "$FAKE_PID"

# ---- another client between the read and the batch (the README's window) ----
start_cf race --seed "$T/seed" --fault race --race "race.example.com A 192.0.2.78" || exit 1
plan "$T/race.plan.json" create="$(list "$(ep race.example.com A 300 192.0.2.77)")"
apply race "$T/race.plan.json" --cloudflare-zone-id "$Z1" --metrics-file "$T/race.metrics"
eq "race: the create succeeds (Cloudflare has no condition on a post)" "$RC $(counts race)" "0 1 1 0 0 0"
eq "race: the other client's record joined the RRset, as the README says" "$(zone | grep '^race\.' | tr '\n' ';')" \
	"race.example.com 300 A 192.0.2.77;race.example.com 300 A 192.0.2.78;"
# The read-back after the POST finds what neither the batch wrote nor the pre-check read (issue 31).
check "race: the read-back after the batch warns 'race', naming the RRset" \
	grep -q "race: zone example.com.: race.example.com. A holds 192.0.2.77, 192.0.2.78" "$T/race.err"
eq "race: counted in dnsbatch_overwrites_detected_total" \
	"$(sed -n 's/^dnsbatch_overwrites_detected_total{zone="example.com."} //p' "$T/race.metrics")" 1
kill "$FAKE_PID"
start_cf race2 --seed "$T/seed" --fault race --race "race2.example.com CNAME www.example.com" || exit 1
plan "$T/race2.plan.json" create="$(list "$(ep race2.example.com A 300 192.0.2.79)" "$(ep race3.example.com A 300 192.0.2.80)")"
apply race2 "$T/race2.plan.json" --cloudflare-zone-id "$Z1"
eq "race: a CNAME made by another client refuses the batch; that change dropped, the other applied" \
	"$RC $(counts race2) $(drop race2 race2.example.com | cut -d' ' -f4)" "3 2 1 0 1 0 81054"
clean_requests race
kill "$FAKE_PID"

# ---- another provider refuses Cloudflare's properties before sending ----
printf '%s\n' '$ORIGIN example.com.' '@ 300 IN SOA ns1 hostmaster 1 3600 600 86400 300' '@ 300 IN NS ns1' \
	'ns1 300 IN A 192.0.2.53' >"$T/x.zone"
plan "$T/z.plan.json" create="$(list "$(ep p.example.com A 300 192.0.2.70 |
	jq -c '.providerSpecific = [{"name": "external-dns.alpha.kubernetes.io/cloudflare-proxied", "value": "true"}]')" \
	"$(ep plain.example.com A 300 192.0.2.44)")"
env -i PATH="$PATH" HOME="$T" "$DNSBATCH" apply --plan "$T/z.plan.json" --provider zonefile --zonefile "example.com=$T/x.zone" \
	--output json --drop-log "$T/zonefile.drops" >"$T/zonefile.json" 2>"$T/zonefile.err"
eq "zonefile: the proxied record dropped invalid, the plain one applied" "$(counts zonefile)" "2 1 0 1 0"
check "zonefile: the message names the property and the provider" \
	grep -q "cloudflare-proxied or .*: provider zonefile stores no such property" "$T/zonefile.drops"

[ "$failures" -eq 0 ]
