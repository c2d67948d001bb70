#!/usr/bin/env bash
#
# test_google.sh - the google provider through the dnsbatch binary against
# tests/fakes/fake_clouddns over HTTPS: a CA and a server certificate, a
# service-account key and a second, unknown CA are made here with the
# openssl CLI; each scenario starts its own fake on a free loopback port
# (stopped by PID at the end, also when a check fails).
#
# Prints "ok - NAME" or "not ok - NAME" per check; exits 1 if any failed.
# Env: DNSBATCH (default build/dnsbatch), FAKE (default: fake_clouddns beside
# DNSBATCH), DNSB_KEEP_TMP=1 to keep the temp dir.
. "$(dirname "$0")/checks.sh"
test_begin

FAKE=${FAKE:-$(dirname "$DNSBATCH")/fake_clouddns}
PLANS=$ROOT/examples/plans
ZONEFILE=$ROOT/examples/zones/example.com.zone

fake_needs "" "" openssl jq curl
[ -x "$FAKE" ] || { not_ok "$FAKE is built (make tests)"; exit 1; }
fake_scratch

##### keys, made now (the CA and certificate: fake_scratch) ##########################################

sa_keys() {
	openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$T/sa.key" &&
	openssl pkey -in "$T/sa.key" -pubout -out "$T/sa.pub" &&
	openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$T/wrong-sa.key" &&
	openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$T/ec.key"
}
if ! sa_keys >"$T/keys.log" 2>&1; then
	not_ok "openssl makes the service-account keys" "$(tail -3 "$T/keys.log")"
	exit 1
fi
SA_EMAIL=dnsbatch@test-project.iam.gserviceaccount.com

# keyfile FILE TOKEN_URI [PRIVATE_KEY_FILE]: a service-account key file as the Cloud console writes it.
keyfile() {
	jq -n --arg uri "$2" --arg email "$SA_EMAIL" --rawfile key "${3:-$T/sa.key}" \
		'{type: "service_account", project_id: "test-project", private_key_id: "0123abcd", private_key: $key,
		  client_email: $email, client_id: "1234567890", auth_uri: "https://accounts.google.com/o/oauth2/auth",
		  token_uri: $uri}' >"$1"
}

# The example zone as the fake's seed: "example-com OWNER TTL TYPE RDATA" (its own SOA and NS apart).
# A copy: the zone-file provider keeps its lock file beside the zone, and the repository's tree stays as it is.
cp "$ZONEFILE" "$T/example.com.zone"
"$DNSBATCH" records --provider zonefile --zonefile "example.com=$T/example.com.zone" |
	awk -F'\t' '!($1 == "example.com." && ($4 == "SOA" || $4 == "NS")) { print "example-com", $1, $2, $4, $5 }' \
		>"$T/example.records"
cat >"$T/small.records" <<'EOF'
example-com www.example.com. 300 A 192.0.2.1
example-com alias.example.com. 300 CNAME www.example.com.
example-com stale.example.com. 300 A 192.0.2.20
example-com gone-later.example.com. 300 A 192.0.2.30
example-com a-owned.example.com. 600 TXT "heritage=external-dns,external-dns/owner=default"
example-com owned.example.com. 300 A 192.0.2.40
EOF

##### the fake ######################################################################################

# start_fake NAME [fake flags...]: a fake with zone example-com = example.com, the test key's public key
# and the server certificate; sets PORT, URL (the API endpoint), FAKE_PID; logs to $T/NAME.fake.log.
start_fake() {
	local name=$1
	shift
	rm -f "$T/$name.port"
	"$FAKE" --port-file "$T/$name.port" --cert "$T/server.pem" --key "$T/server.key" \
		--zone example-com=example.com --pubkey "$T/sa.pub" --client-email "$SA_EMAIL" \
		--log "$T/$name.fake.log" "$@" 2>"$T/$name.fake.err" &
	fake_started "$name" $! || return 1
	URL=https://127.0.0.1:$PORT/dns/v1/
	keyfile "$T/$name.key.json" "https://127.0.0.1:$PORT/token"
}
stop_fake() { kill "$FAKE_PID" 2>/dev/null && wait "$FAKE_PID" 2>/dev/null; }
# stat FILTER: a figure of the running fake's counters
stat() { curl -s --cacert "$T/ca.pem" "https://127.0.0.1:$PORT/_fake/stats" | jq -r "$1"; }
# zone: the fake's zone example-com, "owner ttl type rdata,rdata" per RRset
zone() {
	curl -s --cacert "$T/ca.pem" "https://127.0.0.1:$PORT/_fake/zone/example-com" |
		jq -r '.rrsets[] | "\(.name) \(.ttl) \(.type) \(.rrdatas | join(","))"'
}

# apply NAME PLAN [flags...]: dnsbatch apply against the running fake, with the key file of NAME's fake
# unless a flag or the environment says otherwise; sets RC; leaves $T/NAME.json, .err, .drops, .prom.
apply() {
	local name=$1 planfile=$2
	shift 2
	rm -f "$T/$name.drops" "$T/$name.prom"
	"$DNSBATCH" apply --plan "$planfile" --provider google --google-project test-project \
		--google-api-endpoint "$URL" --google-ca-file "$T/ca.pem" --google-batch-change-interval 0 \
		--backoff-base 0.01 --backoff-cap 0.05 "$@" \
		--drop-log "$T/$name.drops" --metrics-file "$T/$name.prom" --output json >"$T/$name.json" 2>"$T/$name.err"
	RC=$?
	touch "$T/$name.drops"
}
# secrets_absent NAME: no token, assertion or key material in what dnsbatch printed
secrets_absent() {
	local f=$T/$1.err hits
	hits=$(grep -cE 'ya29\.|eyJ[A-Za-z0-9_-]{10,}|PRIVATE KEY|MII[A-Za-z0-9+/]{20}|tok-secret' "$f" "$T/$1.json" "$T/$1.drops" 2>/dev/null |
		awk -F: '{s += $NF} END {print s + 0}')
	eq "$1: no token, assertion or key in stderr, stdout or the drop log" "$hits" 0
}

##### clean.json on the example zone: one changes.create, one connection ############################

start_fake clean --records "$T/example.records"
apply clean "$PLANS/clean.json" --google-zone example.com=example-com --google-credentials "$T/clean.key.json"
eq "clean: exit 0" "$RC" 0
eq "clean: 30 applied" "$(counts clean)" "30 30 0 0 0"
eq "clean: 1 submission, 0 reads" "$(rep clean '"\(.submissions) \(.reads)"')" "1 0"
eq "clean: the fake committed one change" "$(stat .commits)" 1
eq "clean: one TCP connection for the token, projects.get and changes.create" "$(stat .connections)" 1
eq "clean: one token from the key's token_uri, JWT verified" "$(stat '"\(.tokens_issued) \(.jwt_refused)"')" "1 0"
zone >"$T/clean.zone"
check "clean: docs-v2 CNAME created with TTL 3600" grep -Fxq 'docs-v2.example.com. 3600 CNAME docs-v2.pages.example.net.' "$T/clean.zone"
check "clean: events A with both addresses, TTL 60" grep -Fxq 'events.example.com. 60 A 203.0.113.41,203.0.113.42' "$T/clean.zone"
check "clean: app A updated" grep -Fxq 'app.example.com. 300 A 203.0.113.13' "$T/clean.zone"
check "clean: SRV created" grep -Fxq '_minecraft._tcp.games.example.com. 300 SRV 0 5 25565 mc.games.example.com.' "$T/clean.zone"
eq "clean: old-promo deleted" "$(grep -c '^old-promo.example.com. ' "$T/clean.zone")" 0
check "clean: metrics count 30 applied" grep -Fxq 'dnsbatch_changes_total{zone="example.com.",outcome="applied"} 30' "$T/clean.prom"
secrets_absent clean

# The same plan again: every change already in effect, nothing committed.
apply clean2 "$PLANS/clean.json" --google-zone example.com=example-com --google-credentials "$T/clean.key.json"
eq "clean again: exit 0, 30 already applied" "$RC $(counts clean2)" "0 30 0 30 0 0"
eq "clean again: nothing committed" "$(stat .commits)" 1

# dnsbatch records lists the zone through rrsets.list, page by page (page size 100).
"$DNSBATCH" records --provider google --google-project test-project --google-api-endpoint "$URL" \
	--google-ca-file "$T/ca.pem" --google-credentials "$T/clean.key.json" >"$T/records.out" 2>"$T/records.err"
eq "records: exit 0" "$?" 0
eq "records: every RRset the fake holds is listed" \
	"$(awk '{print $1, $4}' "$T/records.out" | sort -u | wc -l | tr -d ' ')" "$(zone | wc -l | tr -d ' ')"
ge "records: several rrsets.list pages" "$(grep -c 'rrsets -> 200' "$T/clean.fake.log")" 3
stop_fake

##### conflicts.json: each kind of conflict dropped with the provider's reason ######################
# The same expectations as the zone-file provider's (examples/plans/README.md): 26 applied,
# 2 already_applied, 12 dropped (conflict 8, invalid 2, no_zone 2). Zones from managedZones.list.

start_fake conf --records "$T/example.records" --zone other-zone=other.example.net --page-size 1
apply conf "$PLANS/conflicts.json" --google-credentials "$T/conf.key.json"
eq "conflicts: exit 3" "$RC" 3
eq "conflicts: changes applied already_applied dropped failed" "$(counts conf)" "40 26 2 12 0"
eq "conflicts: drop log reasons" "$(jq -rs 'group_by(.reason) | map("\(.[0].reason)=\(length)") | join(" ")' "$T/conf.drops")" \
	"conflict=8 invalid=2 no_zone=2"
eq "conflicts: legacy A dropped with 409 alreadyExists" "$(drop conf legacy.example.com)" "dropped conflict 409 alreadyExists"
eq "conflicts: status CNAME dropped with 400 cnameResourceRecordSetConflict" "$(drop conf status.example.com)" \
	"dropped conflict 400 cnameResourceRecordSetConflict"
eq "conflicts: shop update dropped with 412 conditionNotMet" "$(drop conf shop.example.com)" "dropped conflict 412 conditionNotMet"
eq "conflicts: grpc.search delete dropped with 412 conditionNotMet" "$(drop conf grpc.search.example.com)" \
	"dropped conflict 412 conditionNotMet"
check "conflicts: the 409's message names the RRset" \
	grep -q "named 'legacy.example.com. (A)' already exists" "$T/conf.drops"
check "conflicts: the CNAME message is Cloud DNS's" grep -q "may have either one CNAME resource record set" "$T/conf.drops"
eq "conflicts: zones found by managedZones.list, one page each" "$(grep -c 'managedZones -> 200' "$T/conf.fake.log")" 2
check "conflicts: metrics count the conflict drops" grep -Eq '^dnsbatch_dropped_changes_total\{.*reason="conflict".*\} [1-9]' "$T/conf.prom"
zone >"$T/conf.zone"
check "conflicts: legacy A kept its data" grep -Fxq 'legacy.example.com. 3600 A 192.0.2.100' "$T/conf.zone"
submissions=$(rep conf .submissions)
eq "conflicts: the fake saw as many changes.create as dnsbatch counted" "$(stat .requests.create)" "$submissions"
secrets_absent conf
stop_fake

##### a group refused in one member: no other member written #######################################
whole_group_plan "$T/whole.plan.json" example-com >"$T/whole.records"
start_fake whole --records "$T/whole.records"
apply whole "$T/whole.plan.json" --google-zone example.com=example-com --google-credentials "$T/whole.key.json"
whole_group_checks
stop_fake

##### each kind of refusal on its own, the rest applied ############################################

start_fake kinds --records "$T/small.records" --invalid bad.example.com
plan "$T/kinds.plan.json" \
	create="$(list "$(ep www.example.com A 300 192.0.2.99)" "$(ep alias.example.com A 300 192.0.2.98)" \
		"$(ep bad.example.com A 300 192.0.2.97)" "$(ep ok1.example.com A 300 192.0.2.11)" \
		"$(ep ok2.example.com TXT 300 '"two"')")" \
	delete="$(list "$(ep stale.example.com A 300 192.0.2.21)" "$(ep missing.example.com A 300 192.0.2.50)" \
		"$(ep gone-later.example.com A 300 192.0.2.30)")"
apply kinds "$T/kinds.plan.json" --google-zone example.com=example-com --google-credentials "$T/kinds.key.json"
eq "kinds: exit 3" "$RC" 3
eq "kinds: create of an existing RRset: 409 alreadyExists" "$(drop kinds www.example.com)" "dropped conflict 409 alreadyExists"
eq "kinds: A beside a CNAME: 400 cnameResourceRecordSetConflict" "$(drop kinds alias.example.com)" \
	"dropped conflict 400 cnameResourceRecordSetConflict"
eq "kinds: invalid record: 400 invalid, reason invalid" "$(drop kinds bad.example.com)" "dropped invalid 400 invalid"
check "kinds: the invalid message names the entry's rrdata" grep -q "Invalid value for 'entity.change.additions\[0\].rrdata\[0\]'" "$T/kinds.drops"
eq "kinds: stale deletion: 412 conditionNotMet" "$(drop kinds stale.example.com)" "dropped conflict 412 conditionNotMet"
eq "kinds: deletion of a missing RRset (404) is already in effect, not dropped" "$(drop kinds missing.example.com)" ""
eq "kinds: 5 applied, 1 already applied, 4 dropped" "$(counts kinds)" "8 3 1 4 0"
zone >"$T/kinds.zone"
check "kinds: ok1 created" grep -Fxq 'ok1.example.com. 300 A 192.0.2.11' "$T/kinds.zone"
check "kinds: ok2 created" grep -Fxq 'ok2.example.com. 300 TXT "two"' "$T/kinds.zone"
eq "kinds: gone-later deleted" "$(grep -c '^gone-later' "$T/kinds.zone")" 0
check "kinds: www kept" grep -Fxq 'www.example.com. 300 A 192.0.2.1' "$T/kinds.zone"
eq "kinds: the fake reported 404 notFound once" "$(grep -c 'changes.* -> 404' "$T/kinds.fake.log")" 1
stop_fake

##### hints cut submissions ########################################################################
# 200 creations, 5 of them already existing: the first 409 lists all five (entity.change.additions[i]),
# the engine settles the named groups and sends the rest once: at most k + 2 submissions.

{
	cat "$T/small.records"
	for i in 7 60 100 150 199; do echo "example-com host$i.example.com. 300 A 192.0.2.$i"; done
} >"$T/hints.records"
creates "$T/hints.plan.json" 200 host example.com 10.0
start_fake hints --records "$T/hints.records"
apply hints "$T/hints.plan.json" --google-zone example.com=example-com --google-credentials "$T/hints.key.json"
eq "hints: exit 3, 195 applied, 5 dropped" "$RC $(counts hints)" "3 200 195 0 5 0"
le "hints: submissions <= k + 2 = 7" "$(rep hints .submissions)" 7
eq "hints: the first refusal named all five, each drop with its own errors[] entry (entity.change.additions[i])" \
	"$(jq -rs --arg q "'" 'map(([.change[][]?][0].dnsName) as $n | .message |
		test("additions\\[[0-9]+\\]") and contains("named " + $q + $n + ". (A)" + $q)) | unique | join(",")' \
		"$T/hints.drops")" true
eq "hints: every drop is the 409" "$(jq -rs 'map("\(.reason) \(.code)") | unique | join(",")' "$T/hints.drops")" \
	"conflict alreadyExists"
eq "hints: one connection for the whole run" "$(stat .connections)" 1
stop_fake

##### 502 after commit, then 409: nothing dropped ##################################################
# Cloud DNS answered 502 to a batch that had succeeded, then 409 to every retry.

plan "$T/lost.plan.json" \
	create="$(list "$(ep n1.example.com A 300 192.0.2.101)" "$(ep n2.example.com TXT 300 '"x"')" "$(ep n3.example.com A 300 192.0.2.103)")" \
	updateOld="$(list "$(ep stale.example.com A 300 192.0.2.20)")" updateNew="$(list "$(ep stale.example.com A 600 192.0.2.22)")" \
	delete="$(list "$(ep gone-later.example.com A 300 192.0.2.30)")"
start_fake lost --records "$T/small.records" --faults create:1:commit-502
apply lost "$T/lost.plan.json" --google-zone example.com=example-com --google-credentials "$T/lost.key.json"
eq "502-then-409: exit 0" "$RC" 0
eq "502-then-409: every change already applied, none dropped" "$(counts lost)" "5 0 5 0 0"
eq "502-then-409: the fake committed once and answered 502 (an HTML page)" \
	"$(stat .commits) $(grep -c 'changes.* -> 502' "$T/lost.fake.log")" "1 1"
check "502-then-409: the resubmission was refused" grep -Eq 'changes.* -> (409|404|412)' "$T/lost.fake.log"
eq "502-then-409: drop log empty" "$(wc -c <"$T/lost.drops" | tr -d ' ')" 0
stop_fake

##### transient answers before commit, and a reset connection: retried ###########################
# libcurl itself sends a request once more when a reused connection closes without a byte of answer
# (the server may have closed it while idle), so the fake resets twice to reach dnsbatch.

creates "$T/retry.plan.json" 6 r example.com 10.0
start_fake retry --records "$T/small.records" --faults create:1:503,create:2:500,create:3-4:reset
apply retry "$T/retry.plan.json" --google-zone example.com=example-com --google-credentials "$T/retry.key.json"
eq "5xx and reset: exit 0, all applied" "$RC $(counts retry)" "0 6 6 0 0 0"
eq "5xx and reset: retried after 503, 500 and the reset" "$(rep retry '"\(.submissions) \(.retries)"')" "4 3"
eq "5xx and reset: committed once, 5 requests seen" "$(stat '"\(.commits) \(.requests.create)"')" "1 5"
check "5xx and reset: metrics count transient retries" grep -Eq '^dnsbatch_retries_total\{reason="transient"\} [3-9]' "$T/retry.prom"
stop_fake

##### 429 with Retry-After: waited at least that long ##############################################

creates "$T/rate.plan.json" 4 q example.com 10.0
start_fake rate --records "$T/small.records" --faults create:1:429=2
t0=$(date +%s.%N)
apply rate "$T/rate.plan.json" --google-zone example.com=example-com --google-credentials "$T/rate.key.json" --backoff-cap 1
t1=$(date +%s.%N)
eq "429 Retry-After 2: exit 0, all applied" "$RC $(counts rate)" "0 4 4 0 0 0"
ge "429 Retry-After 2: the run took at least 2 s" "$(echo "$t1 - $t0" | bc -l)" 2
ge "429 Retry-After 2: 2 s of backoff counted" "$(rep rate .backoff_seconds)" 1.99
stop_fake

start_fake rate-date --records "$T/small.records" --faults create:1:429=date:2,create:2:403-rate
apply rate-date "$T/rate.plan.json" --google-zone example.com=example-com --google-credentials "$T/rate-date.key.json" --backoff-cap 1
eq "429 with an HTTP-date, then 403 rateLimitExceeded: exit 0, all applied" "$RC $(counts rate-date)" "0 4 4 0 0 0"
ge "429 with an HTTP-date: at least 1 s waited (whole seconds)" "$(rep rate-date .backoff_seconds)" 1
check "rate limits counted as such" grep -Eq '^dnsbatch_retries_total\{reason="rate_limited"\} 2' "$T/rate-date.prom"
stop_fake

##### 429 on a read: Retry-After a floor; one past the deadline fails the read at once ##############
# The gaps are measured between the requests as the fake saw them (its log: " at SECONDS", monotonic).

# gap NAME PATTERN: seconds between the first two requests of the fake's log matching PATTERN
gap() { grep -E "$2" "$T/$1.fake.log" | head -2 | awk '{ t[NR] = $NF } END { printf "%.3f", t[2] - t[1] }'; }
start_fake ra-list --records "$T/small.records" --faults list:1:429=2
"$DNSBATCH" records --provider google --google-project test-project --google-api-endpoint "$URL" \
	--google-ca-file "$T/ca.pem" --google-credentials "$T/ra-list.key.json" >"$T/ra-list.out" 2>"$T/ra-list.err"
eq "read 429 Retry-After 2: records exit 0, every RRset listed" "$? $(awk '{print $1, $4}' "$T/ra-list.out" | sort -u | wc -l)" \
	"0 $(zone | wc -l)"
eq "read 429 Retry-After 2: rrsets.list refused once, then answered" \
	"$(grep -oE 'rrsets -> [0-9]+' "$T/ra-list.fake.log" | tr '\n' ' ')" "rrsets -> 429 rrsets -> 200 "
ge "read 429 Retry-After 2: the second rrsets.list came at least 2 s after the first" "$(gap ra-list 'rrsets -> ')" 1.999
check "read 429 Retry-After 2: and no longer (the wait drawn was the Retry-After)" \
	grep -q 'throttled; retrying in 2.00 s' "$T/ra-list.err"
stop_fake

# A conflict read back before it is dropped: every read answered 429 with Retry-After 30, the run's deadline 6 s away.
plan "$T/ra-dl.plan.json" create="$(list "$(ep www.example.com A 300 192.0.2.99)")"
start_fake ra-dl --records "$T/small.records" --faults list:*:429=30
apply ra-dl "$T/ra-dl.plan.json" --google-zone example.com=example-com --google-credentials "$T/ra-dl.key.json" --timeout 6
eq "read 429 past the deadline: exit 4, the change failed (not dropped)" "$RC $(counts ra-dl)" "4 1 0 0 0 1"
eq "read 429 past the deadline: one read-back, refused once, not tried again" \
	"$(grep -oE 'rrsets\?name=[^ ]* -> [0-9]+' "$T/ra-dl.fake.log" | tr '\n' ' ')" "rrsets?name=www.example.com. -> 429 "
eq "read 429 past the deadline: ended at once: no wait, in the read or the engine" \
	"$(grep -c 'retrying in' "$T/ra-dl.err") $(rep ra-dl .backoff_seconds)" "0 0"
eq "read 429 past the deadline: logged failed, unverified" "$(drop ra-dl www.example.com)" "failed transient 409 alreadyExists"
check "read 429 past the deadline: the log names the Retry-After" grep -q 'Retry-After (30.0 s) is past the time left' "$T/ra-dl.drops"
stop_fake

# A read inside a submission (the TTL of an old record sent without one), the same 429: the submission is answered
# rate_limited with that Retry-After, which the engine (cap 10 x 10 s) cannot wait before its deadline either.
plan "$T/ra-sub.plan.json" \
	updateOld="$(list "$(jq -c '.recordTTL = 0' <<<"$(ep owned.example.com A 0 192.0.2.40)")")" \
	updateNew="$(list "$(ep owned.example.com A 300 192.0.2.41)")"
start_fake ra-sub --records "$T/small.records" --faults list:*:429=30
# --force: no safety-threshold count (its listing would meet the 429 first: test_thresholds.sh).
apply ra-sub "$T/ra-sub.plan.json" --google-zone example.com=example-com --google-credentials "$T/ra-sub.key.json" \
	--timeout 6 --backoff-cap 10 --force
eq "read 429 in a submission: exit 4, failed at the deadline, one submission" \
	"$RC $(counts ra-sub) $(rep ra-sub .submissions) $(drop ra-sub owned.example.com)" "4 1 0 0 0 1 1 failed deadline 0 "
eq "read 429 in a submission: the read refused once, nothing sent after it" \
	"$(grep -cE 'rrsets\?name=owned.example.com. -> 429' "$T/ra-sub.fake.log") $(grep -c 'changes' "$T/ra-sub.fake.log")" "1 0"
stop_fake

# The same plan without --force: the safety thresholds' count lists the zone first, within the run's time left;
# every listing answered 429 with Retry-After 30, the deadline 6 s away: the count gives up at once (it once waited
# 30 s a try, forever), the change fails, nothing is sent.
start_fake ra-count --records "$T/small.records" --faults list:*:429=30
t0=$(date +%s)
apply ra-count "$T/ra-sub.plan.json" --google-zone example.com=example-com --google-credentials "$T/ra-count.key.json" \
	--timeout 6 --backoff-cap 10
eq "threshold count under 429s: exit 4, the change failed, no submission" \
	"$RC $(counts ra-count) $(rep ra-count .submissions)" "4 1 0 0 0 1 0"
check "threshold count under 429s: ended within the deadline ($(($(date +%s) - t0)) s)" [ $(($(date +%s) - t0)) -le 8 ]
stop_fake

##### 403 quotaExceeded and 413: split, nothing dropped ############################################
# The project advertises 1000 additions per change but enforces 4 (a quota lowered mid-run).

creates "$T/quota.plan.json" 10 qx example.com 10.0
start_fake quota --records "$T/small.records" --enforce-additions 4
apply quota "$T/quota.plan.json" --google-zone example.com=example-com --google-credentials "$T/quota.key.json"
eq "403 quotaExceeded: exit 0, 10 applied, none dropped" "$RC $(counts quota)" "0 10 10 0 0 0"
ge "403 quotaExceeded: the batch was split" "$(rep quota .submissions)" 3
eq "403 quotaExceeded: no retry counted" "$(rep quota .retries)" 0
check "403 quotaExceeded: answered by the fake" grep -q 'changes.* -> 403' "$T/quota.fake.log"
stop_fake

start_fake q413 --records "$T/small.records" --faults create:1:413
apply q413 "$T/quota.plan.json" --google-zone example.com=example-com --google-credentials "$T/q413.key.json"
eq "413: exit 0, 10 applied, none dropped" "$RC $(counts q413)" "0 10 10 0 0 0"
stop_fake

# Quotas from projects.get: 3 additions per change, so batches of 3 and never a 403.
start_fake quota3 --records "$T/small.records" --quota-additions 3
apply quota3 "$T/quota.plan.json" --google-zone example.com=example-com --google-credentials "$T/quota3.key.json"
eq "projects.get quota 3: exit 0, 10 applied" "$RC $(counts quota3)" "0 10 10 0 0 0"
eq "projects.get quota 3: 4 batches, 4 submissions, no refusal" "$(rep quota3 '"\(.batches) \(.submissions)"') $(grep -c ' -> 403' "$T/quota3.fake.log")" "4 4 0"
# --google-batch-change-size caps a batch too.
apply bsize "$T/quota.plan.json" --google-zone example.com=example-com --google-credentials "$T/quota3.key.json" \
	--google-batch-change-size 2
eq "--google-batch-change-size 2: 10 already applied in 5 batches" "$RC $(counts bsize) $(rep bsize .batches)" "0 10 0 10 0 0 5"
stop_fake

##### pacing, and a zone the project does not have ##############################################

start_fake pace --records "$T/small.records"
t0=$(date +%s.%N)
apply pace "$T/quota.plan.json" --google-zone example.com=example-com --google-credentials "$T/pace.key.json" \
	--google-batch-change-size 4 --google-batch-change-interval 0.3
t1=$(date +%s.%N)
eq "--google-batch-change-interval 0.3: exit 0, 10 applied in 3 submissions" "$RC $(counts pace) $(rep pace .submissions)" "0 10 10 0 0 0 3"
ge "--google-batch-change-interval 0.3: the three submissions at least 0.6 s apart in all" "$(echo "$t1 - $t0" | bc -l)" 0.6
apply nozone "$T/quota.plan.json" --google-zone example.com=no-such-zone --google-credentials "$T/pace.key.json"
eq "unknown managed zone: exit 4, every change failed" "$RC $(counts nozone)" "4 10 0 0 0 10"
eq "unknown managed zone: failed fatal with the 404" "$(jq -rs 'map("\(.reason) \(.status) \(.code)") | unique | join(",")' "$T/nozone.drops")" \
	"fatal 404 notFound"
stop_fake

##### TTL unset on an old record: read before the deletion ##########################################
# external-dns's registry sends recordTTL 0 for ownership records it deletes or updates.

plan "$T/ttl.plan.json" \
	updateOld="$(list "$(ep owned.example.com A 300 192.0.2.40)" "$(jq -c '.recordTTL = 0 | .labels.ownedRecord = "owned.example.com"' <<<"$(ep a-owned.example.com TXT 0 '"heritage=external-dns,external-dns/owner=default"')")")" \
	updateNew="$(list "$(ep owned.example.com A 300 192.0.2.41)" "$(jq -c '.recordTTL = 0 | .labels.ownedRecord = "owned.example.com"' <<<"$(ep a-owned.example.com TXT 0 '"heritage=external-dns,external-dns/owner=default,external-dns/resource=x"')")")"
start_fake ttl --records "$T/small.records"
apply ttl "$T/ttl.plan.json" --google-zone example.com=example-com --google-credentials "$T/ttl.key.json"
eq "unset TTL: exit 0, both applied" "$RC $(counts ttl)" "0 2 2 0 0 0"
eq "unset TTL: one submission" "$(rep ttl .submissions)" 1
check "unset TTL: the current TTL was read by name first" grep -q 'rrsets?name=a-owned.example.com. -> 200' "$T/ttl.fake.log"
check "unset TTL: the ownership record updated" grep -q '^a-owned.example.com. .* TXT .*resource=x' <(zone)
stop_fake

##### tokens: refreshed before expiry, after a 401, and never logged ################################

# The fake stops honouring its tokens after 1 s while saying they last an hour: a 401 mid-run.
creates "$T/tok.plan.json" 6 t example.com 10.0
start_fake expired --records "$T/small.records" --token-lifetime 1 --latency 0.3
apply expired "$T/tok.plan.json" --google-zone example.com=example-com --google-credentials "$T/expired.key.json" --batch-size 1
eq "expired token: exit 0, all applied" "$RC $(counts expired)" "0 6 6 0 0 0"
ge "expired token: refused at least once" "$(stat .unauthorized)" 1
ge "expired token: a new token fetched" "$(stat .tokens_issued)" 2
check "expired token: the refresh is logged, the token is not" grep -q 'HTTP 401, fetching a new access token' "$T/expired.err"
secrets_absent expired
stop_fake

# Tokens said to last 2 s are fetched anew before they run out: no 401 at all.
start_fake short --records "$T/small.records" --token-expires-in 2 --latency 0.4
apply short "$T/tok.plan.json" --google-zone example.com=example-com --google-credentials "$T/short.key.json" --batch-size 1
eq "short-lived token: exit 0, all applied" "$RC $(counts short)" "0 6 6 0 0 0"
eq "short-lived token: refreshed before expiry, never refused" "$(stat '"\(.tokens_issued >= 2) \(.unauthorized)"')" "true 0"
stop_fake

# A token that stays refused: one refresh, then fatal; the changes fail, nothing is dropped.
start_fake refused --records "$T/small.records" --faults create:*:401
apply refused "$T/tok.plan.json" --google-zone example.com=example-com --google-credentials "$T/refused.key.json"
eq "401 after a refresh: exit 4, every change failed" "$RC $(counts refused)" "4 6 0 0 0 6"
eq "401 after a refresh: failed with reason fatal" "$(jq -rs 'map(.reason) | unique | join(",")' "$T/refused.drops")" fatal
eq "401 after a refresh: two tokens, two changes.create" "$(stat '"\(.tokens_issued) \(.requests.create)"')" "2 2"
stop_fake

# A token from the environment is used as is; one the API refuses stops the provider at once.
start_fake envtok --records "$T/small.records" --static-token tok-secret-123
DNSBATCH_GOOGLE_ACCESS_TOKEN=tok-secret-123 apply envtok "$T/tok.plan.json" --google-zone example.com=example-com
eq "env token: exit 0, all applied" "$RC $(counts envtok)" "0 6 6 0 0 0"
eq "env token: no token fetched" "$(stat .tokens_issued)" 0
DNSBATCH_GOOGLE_ACCESS_TOKEN=tok-secret-wrong apply envbad "$T/tok.plan.json" --google-zone example.com=example-com
eq "env token refused: exit 2" "$RC" 2
check "env token refused: the error names the variable" grep -q 'DNSBATCH_GOOGLE_ACCESS_TOKEN was refused' "$T/envbad.err"
secrets_absent envbad
stop_fake

# The GCE metadata server (plain HTTP, Metadata-Flavor: Google) when there is no token nor key file.
start_fake meta --records "$T/small.records" --metadata-port-file "$T/meta.mport"
GCE_METADATA_HOST=127.0.0.1:$(cat "$T/meta.mport") apply meta "$T/tok.plan.json" --google-zone example.com=example-com
eq "metadata server: exit 0, all applied" "$RC $(counts meta)" "0 6 6 0 0 0"
eq "metadata server: one token from it" "$(stat '"\(.requests.metadata) \(.tokens_issued)"')" "1 1"
GOOGLE_APPLICATION_CREDENTIALS=$T/meta.key.json apply meta-env "$T/tok.plan.json" --google-zone example.com=example-com
eq "\$GOOGLE_APPLICATION_CREDENTIALS: exit 0, all already applied" "$RC $(counts meta-env)" "0 6 0 6 0 0"
eq "\$GOOGLE_APPLICATION_CREDENTIALS: the key's token endpoint used" "$(stat .requests.token)" 1
stop_fake

##### bad key files: a clear error, exit 2, nothing sent ###########################################

start_fake badkey --records "$T/small.records"
echo 'not json' >"$T/bad1.key"
jq 'del(.private_key)' "$T/badkey.key.json" >"$T/bad2.key"
jq '.private_key = "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"' "$T/badkey.key.json" >"$T/bad3.key"
keyfile "$T/bad4.key" "https://127.0.0.1:$PORT/token" "$T/ec.key"
keyfile "$T/bad5.key" "https://127.0.0.1:$PORT/token" "$T/wrong-sa.key"
jq '.type = "authorized_user"' "$T/badkey.key.json" >"$T/bad6.key"
for case in "bad1:not a JSON object" "bad2:no private_key" "bad3:private_key is not an unencrypted PEM private key" \
	"bad4:RS256 needs RSA" "bad5:invalid_grant: Invalid JWT Signature." "bad6:are not supported" \
	"bad7:No such file"; do
	n=${case%%:*} want=${case#*:}
	apply "$n" "$T/tok.plan.json" --google-zone example.com=example-com --google-credentials "$T/$n.key"
	eq "bad key file $n: exit 2" "$RC" 2
	check "bad key file $n: says '$want'" grep -qF -- "$want" "$T/$n.err"
	secrets_absent "$n"
done
eq "bad key files: nothing committed" "$(stat '"\(.commits) \(.requests.create)"')" "0 0"
eq "bad key files: the wrong key's JWT was refused by its signature" "$(stat .jwt_refused)" 1
stop_fake

##### TLS: an unknown CA fails closed ##############################################################

start_fake tls --records "$T/small.records"
apply tls-system "$T/tok.plan.json" --google-zone example.com=example-com --google-credentials "$T/tls.key.json" \
	--google-ca-file /dev/null
eq "TLS, an empty CA file: exit 2" "$RC" 2
"$DNSBATCH" apply --plan "$T/tok.plan.json" --provider google --google-project test-project --google-api-endpoint "$URL" \
	--google-zone example.com=example-com --google-credentials "$T/tls.key.json" --google-batch-change-interval 0 \
	>"$T/tls-default.json" 2>"$T/tls-default.err"
eq "TLS, the system's CAs (which do not know the test CA): exit 2" "$?" 2
check "TLS, the system's CAs: the error says the certificate does not verify" grep -qi 'certificate' "$T/tls-default.err"
apply tls-other "$T/tok.plan.json" --google-zone example.com=example-com --google-credentials "$T/tls.key.json" \
	--google-ca-file "$T/other-ca.pem"
eq "TLS, another CA: exit 2" "$RC" 2
check "TLS, another CA: the error says the certificate does not verify" grep -qi 'certificate' "$T/tls-other.err"
eq "TLS: nothing reached the API" "$(stat '"\(.requests.any) \(.commits)"')" "0 0"
apply tls-ok "$T/tok.plan.json" --google-zone example.com=example-com --google-credentials "$T/tls.key.json"
eq "TLS, --google-ca-file naming the CA: exit 0, all applied" "$RC $(counts tls-ok)" "0 6 6 0 0 0"
stop_fake

##### the sidecar: one provider used by concurrent applies ##########################################
# Four POST /records at once, two per zone: the provider's one connection, its token and its pacing
# are shared between the server's threads.

. tests/integration/extdns_client.sh
start_fake sidecar --records "$T/small.records" --zone example-net=example.net --latency 0.05
extdns_serve "$T/serve.log" --provider google --google-project test-project --google-api-endpoint "$URL" \
	--google-ca-file "$T/ca.pem" --google-credentials "$T/sidecar.key.json" --google-batch-change-interval 0 \
	--metrics-listen 127.0.0.1:0 || not_ok "sidecar: dnsbatch serve starts" "$(cat "$T/serve.log")"
for z in com net; do
	for part in a b; do
		jq -n --arg z "$z" --arg p "$part" '{create: [range(5) | {dnsName: "side\($p)\(.).example.\($z)",
			recordType: "A", recordTTL: 300, targets: ["192.0.2.\(.)"]}], updateOld: [], updateNew: [], delete: []}' \
			>"$T/side-$z-$part.plan.json"
		(extdns_post "$EXTDNS_API" /records "$T/side-$z-$part.plan.json" >/dev/null; echo "$EXTDNS_STATUS" >"$T/side-$z-$part.status") &
	done
done
wait $(jobs -p | grep -v "^$EXTDNS_PID$" | grep -v "^$FAKE_PID$") 2>/dev/null
eq "sidecar: four concurrent POST /records answered 204" "$(cat "$T"/side-*.status | sort | uniq -c | awk '{print $1, $2}')" "4 204"
eq "sidecar: the 20 records are in the two zones" \
	"$(curl -s --cacert "$T/ca.pem" "https://127.0.0.1:$PORT/_fake/zone/example-com" | jq '[.rrsets[] | select(.name | startswith("side"))] | length') $(curl -s --cacert "$T/ca.pem" "https://127.0.0.1:$PORT/_fake/zone/example-net" | jq '[.rrsets[] | select(.name | startswith("side"))] | length')" \
	"10 10"
eq "sidecar: one token for every thread" "$(stat .tokens_issued)" 1
eq "sidecar: one connection, shared by the threads in turn" "$(stat .connections)" 1
extdns_get "$EXTDNS_API" /records >"$T/side-records.json"
eq "sidecar: GET /records lists them (rrsets.list)" "$(jq '[.[] | select(.dnsName | startswith("side"))] | length' "$T/side-records.json")" 20
extdns_stop
eq "sidecar: stops cleanly" "$EXTDNS_EXIT" 0
stop_fake

##### usage errors #################################################################################

"$DNSBATCH" apply --plan "$T/tok.plan.json" --provider google >"$T/u1.out" 2>"$T/u1.err"
eq "no --google-project: exit 2" "$?" 2
check "no --google-project: says so" grep -q -- '--google-project is required' "$T/u1.err"
"$DNSBATCH" apply --plan "$T/tok.plan.json" --provider google --google-project p --google-zone example.com \
	>"$T/u2.out" 2>"$T/u2.err"
eq "--google-zone without =ZONENAME: exit 2" "$?" 2
check "--google-zone without =ZONENAME: says the form" grep -q 'expected DNSNAME=ZONENAME' "$T/u2.err"
"$DNSBATCH" apply --plan "$T/tok.plan.json" --provider google --google-project p --google-zone example.com=ex \
	--google-api-endpoint http://127.0.0.1:1/ >"$T/u3.out" 2>"$T/u3.err"
eq "plain http endpoint refused: exit 2" "$?" 2

exit $((failures > 0))
