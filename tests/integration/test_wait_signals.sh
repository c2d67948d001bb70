#!/usr/bin/env bash
# test_wait_signals.sh - issue 38 §1 "signals end a wait at once", for the HTTP backends' own wait: a read
# answered 429 with Retry-After 30 is waited out (up to 10 x 5 s) by the backend before it is tried again;
# SIGTERM during that wait ended only when the wait did. Against tests/fakes/fake_clouddns (Cloud DNS
# over HTTPS, every read 429 Retry-After 30), `apply` without a deadline: SIGTERM ends it within 2 s,
# with its summary and drop log.
. "$(dirname "$0")/checks.sh"
test_begin
FAKE=${FAKE:-$(dirname "$DNSBATCH")/fake_clouddns}
needs openssl jq
fake_scratch
if ! { openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$T/sa.key" &&
	openssl pkey -in "$T/sa.key" -pubout -out "$T/sa.pub"; } >"$T/keys.log" 2>&1; then
	not_ok "openssl makes the service-account key" "$(tail -3 "$T/keys.log")"
	exit 1
fi
EMAIL=dnsbatch@test-project.iam.gserviceaccount.com
printf 'example-com www.example.com. 300 A 192.0.2.1\n' >"$T/records"
"$FAKE" --port-file "$T/gcp.port" --cert "$T/server.pem" --key "$T/server.key" --zone example-com=example.com \
	--pubkey "$T/sa.pub" --client-email "$EMAIL" --records "$T/records" --faults 'list:*:429=30' \
	--log "$T/gcp.fake.log" 2>"$T/gcp.fake.err" &
fake_started gcp $! || exit 1
jq -n --arg uri "https://127.0.0.1:$PORT/token" --arg email "$EMAIL" --rawfile key "$T/sa.key" \
	'{type: "service_account", project_id: "test-project", private_key_id: "0123abcd", private_key: $key,
	  client_email: $email, client_id: "1", token_uri: $uri}' >"$T/key.json"
# www exists: the create conflicts, and is read back before it is dropped
plan "$T/plan.json" create="$(list "$(ep www.example.com A 300 192.0.2.99)")"

"$DNSBATCH" apply --plan "$T/plan.json" --provider google --google-project test-project \
	--google-api-endpoint "https://127.0.0.1:$PORT/dns/v1/" --google-ca-file "$T/ca.pem" \
	--google-credentials "$T/key.json" --google-zone example.com=example-com --google-batch-change-interval 0 \
	--output json --drop-log "$T/drops" >"$T/out.json" 2>"$T/err" &
pid=$!
PIDS+=("$pid")
for ((i = 0; i < 200; i++)); do grep -q 'throttled; retrying in' "$T/err" && break; sleep 0.05; done
check "the read-back is throttled and waits (Retry-After 30)" grep -q 'throttled; retrying in' "$T/err"
start=$(date +%s.%N)
kill -TERM "$pid"
for ((i = 0; i < 100; i++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
secs=$(echo "$(date +%s.%N) - $start" | bc)
kill -KILL "$pid" 2>/dev/null
wait "$pid"
RC=$?
le "SIGTERM ends the wait at once (${secs} s)" "$secs" 2
eq "... the apply stops with exit 4" "$RC" 4
eq "... its summary: 1 change, failed" "$(jq -r '"\(.changes) \(.failed)"' "$T/out.json" 2>/dev/null)" "1 1"
eq "... and the drop log has its line" "$(wc -l <"$T/drops" | tr -d ' ')" 1

[ "$failures" -eq 0 ]
