#!/usr/bin/env bash
# test_provider_wait_signals.sh - issue 38 §1 "signals end a wait at once", for the waits that
# test_wait_signals.sh (a read's throttle wait) and the rate budget's do not cover: the engine's backoff
# before a retry (applier/engine/retry.c), Google's submission interval (applier/net/interval.c),
# Cloudflare's hold after a 429 (providers/cloudflare/cloudflare.c), Azure's quota hold
# (providers/azure/send.c) and Route53's INSYNC polling (providers/aws/insync.c). Each slept on through
# SIGTERM (30 s or more here). Each apply below is in such a wait when SIGTERM comes: it must end within
# a second, exit 4, with its JSON summary and a drop-log line for its failed change (Route53's change was
# accepted before the INSYNC wait: applied, exit 0).
. "$(dirname "$0")/checks.sh"
test_begin
CLOUDDNS=${CLOUDDNS:-$(dirname "$DNSBATCH")/fake_clouddns}
needs jq python3 openssl bc pgrep
fake_scratch

# term NAME WHAT FAILED READY: dnsbatch (started in the background as $APID, summary $T/NAME.json, drop log
# $T/NAME.drops) is given until READY (a command) holds, then 0.5 s more in its wait; SIGTERM must end it
# within 1 s with exit 4 (0 when FAILED is 0: all applied), its summary counting FAILED failed changes and its
# drop log a line for each.
term() {
	local name=$1 what=$2 failed=$3 i start secs rc target
	shift 3
	PIDS+=("$APID")
	for ((i = 0; i < 400; i++)); do "$@" 2>/dev/null && break; sleep 0.05; done
	sleep 0.5
	# dnsbatch itself: APID, or its child when APID is the subshell of a helper function (run, apply)
	target=$(pgrep -P "$APID" | head -1)
	target=${target:-$APID}
	if ! kill -0 "$target" 2>/dev/null; then
		not_ok "$what: the apply is in its wait when SIGTERM comes" "$(tail -3 "$T/$name.err")"
		return
	fi
	start=$(date +%s.%N)
	kill -TERM "$target"
	for ((i = 0; i < 200; i++)); do kill -0 "$APID" 2>/dev/null || break; sleep 0.02; done
	secs=$(echo "$(date +%s.%N) - $start" | bc)
	kill -KILL "$target" 2>/dev/null
	wait "$APID"
	rc=$?
	le "$what: SIGTERM ends the wait at once (${secs} s)" "$secs" 1
	if [ "$failed" -gt 0 ]; then eq "... exit 4" "$rc" 4; else eq "... exit 0 (every change applied)" "$rc" 0; fi
	eq "... its summary: $failed failed" "$(jq -r .failed "$T/$name.json" 2>/dev/null)" "$failed"
	eq "... its drop log: $failed lines" "$(wc -l <"$T/$name.drops" 2>/dev/null | tr -d ' ')" "$failed"
}
said() { grep -q "$1" "$2"; }

##### the engine's backoff before a retry (memory provider: every submission transient) #################

creates "$T/one.json" 1 w example.test 10.9
"$DNSBATCH" apply --plan "$T/one.json" --provider memory --memory-zone example.test --memory-faults '*:transient' \
	--backoff-base 30 --backoff-cap 30 --output json --drop-log "$T/engine.drops" >"$T/engine.json" \
	2>"$T/engine.err" &
APID=$!
term engine "the engine's backoff (30 s)" 1 said 'retrying in' "$T/engine.err"

##### Google's submission interval (--google-batch-change-interval 30, two batches) ######################

if { openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$T/sa.key" &&
	openssl pkey -in "$T/sa.key" -pubout -out "$T/sa.pub"; } >"$T/sa.log" 2>&1; then
	EMAIL=dnsbatch@test-project.iam.gserviceaccount.com
	: >"$T/records"
	"$CLOUDDNS" --port-file "$T/gcp.port" --cert "$T/server.pem" --key "$T/server.key" --zone example-com=example.com \
		--pubkey "$T/sa.pub" --client-email "$EMAIL" --records "$T/records" --log "$T/gcp.fake.log" \
		2>"$T/gcp.fake.err" &
	fake_started gcp $! || exit 1
	jq -n --arg uri "https://127.0.0.1:$PORT/token" --arg email "$EMAIL" --rawfile key "$T/sa.key" \
		'{type: "service_account", project_id: "test-project", private_key_id: "0123abcd", private_key: $key,
		  client_email: $email, client_id: "1", token_uri: $uri}' >"$T/key.json"
	creates "$T/two.json" 2 g example.com 10.8
	"$DNSBATCH" apply --plan "$T/two.json" --provider google --google-project test-project \
		--google-api-endpoint "https://127.0.0.1:$PORT/dns/v1/" --google-ca-file "$T/ca.pem" \
		--google-credentials "$T/key.json" --google-zone example.com=example-com --batch-size 1 \
		--google-batch-change-interval 30 --output json --drop-log "$T/google.drops" >"$T/google.json" \
		2>"$T/google.err" &
	APID=$!
	term google "Google's submission interval (30 s)" 1 said 'POST' "$T/gcp.fake.log"
else
	not_ok "openssl makes the service account key" "$(tail -3 "$T/sa.log")"
fi

##### Cloudflare's hold after a 429 (Retry-After 30) #####################################################

(
	. tests/integration/cloudflare_fake.sh
	start_cf cf --fault 429 --fault-retry-after 30 || exit 1
	trap 'kill "$FAKE_PID" 2>/dev/null' EXIT
	creates "$T/cf.plan" 1 c example.com 10.7
	run apply --plan "$T/cf.plan" --provider cloudflare --cloudflare-api-endpoint "$URL/client/v4" \
		--cloudflare-ca-file "$T/ca.pem" --backoff-base 0.01 --backoff-cap 0.05 --drop-log "$T/cf.drops" \
		--output json >"$T/cf.json" 2>"$T/cf.err" &
	APID=$!
	term cf "Cloudflare's hold after a 429 (30 s)" 1 said '429' "$T/cf.err"
	[ "$failures" -eq 0 ]
) || failures=$((failures + 1))

##### Azure's quota hold after a 429 (Retry-After 30) ####################################################

(
	. tests/integration/azure_fake.sh
	start_fake az --fault 429 --fault-retry-after 30 || exit 1
	trap 'kill "$FAKE_PID" 2>/dev/null' EXIT
	mkdir -p "$T/home"
	creates "$T/az.plan" 1 a example.com 10.6
	run apply --plan "$T/az.plan" "${AZ_FLAGS[@]}" --backoff-base 0.01 --backoff-cap 0.05 --output json \
		--drop-log "$T/az.drops" >"$T/az.json" 2>"$T/az.err" &
	APID=$!
	term az "Azure's quota hold after a 429 (30 s)" 1 sh -c '[ "$(curl -s --max-time 2 --cacert "$1/ca.pem" \
		"$2/_fake/stats" | jq -r .writes 2>/dev/null)" -ge 1 ]' _ "$T" "$URL"
	[ "$failures" -eq 0 ]
) || failures=$((failures + 1))

##### Route53's INSYNC polling (never INSYNC) ############################################################

(
	. tests/integration/aws_fake.sh
	start_fake aws --insync-after -1 || exit 1
	trap 'kill "$FAKE_PID" 2>/dev/null' EXIT
	creates "$T/aws.plan" 1 r example.com 10.5
	mkdir -p "$T/home"
	run apply --plan "$T/aws.plan" --provider aws --aws-batch-change-interval 0 --aws-wait-insync \
		--drop-log "$T/aws.drops" --output json >"$T/aws.json" 2>"$T/aws.err" &
	APID=$!
	term aws "Route53's INSYNC polling (the change accepted)" 0 said '/change/' "$T/aws.fake.log"
	eq "... the change is applied (Route53 accepted it)" "$(jq -r .applied "$T/aws.json" 2>/dev/null)" 1
	[ "$failures" -eq 0 ]
) || failures=$((failures + 1))

[ "$failures" -eq 0 ]
