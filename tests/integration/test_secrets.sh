#!/usr/bin/env bash
# test_secrets.sh - issue 38 §4 and issue 31's secret reader, through the binary:
#  - a password in the --rate-budget URL is refused (it would sit in /proc/PID/cmdline), naming
#    --rate-budget-password-file and DNSBATCH_REDIS_PASSWORD, never the password;
#  - flag names are taken whole: `--pdns-api-key SECRET` was taken as --pdns-api-key-file and the
#    secret quoted in the error about the missing file;
#  - an error body echoing X-API-Key (tests/fakes/echo_http.py) and a Redis echoing AUTH
#    (tests/fakes/fake_redis.py --echo-auth) print no secret: every secret the process holds is
#    redacted from what it prints (stderr, the drop log);
#  - a key file past 64 KiB is an error naming the file, not cut at 4 KiB;
#  - the process is not dumpable (its /proc/PID/environ owned by root while it runs as nobody, proc(5);
#    core size 0)
#    unless --allow-core-dumps.
. "$(dirname "$0")/checks.sh"
test_begin
needs jq curl python3
scratch

KEY=k3y-$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')
PW=pw-$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')
printf '%s\n' "$KEY" >"$T/key"
creates "$T/plan.json" 2 s example.test 10.8
# run NAME ARGS...: dnsbatch ARGS; stdout $T/NAME.out, stderr $T/NAME.err; sets RC
run() { local n=$1; shift; "$DNSBATCH" "$@" >"$T/$n.out" 2>"$T/$n.err"; RC=$?; touch "$T/$n.drops"; }
# clean NAME WHAT: neither the key nor the password in NAME's stderr, stdout or drop log
clean() {
	if grep -qF -e "$KEY" -e "$PW" "$T/$1.err" "$T/$1.out" "$T/$1.drops"; then
		not_ok "$2" "$(grep -hF -e "$KEY" -e "$PW" "$T/$1.err" "$T/$1.out" "$T/$1.drops" | head -3)"
	else
		ok "$2"
	fi
}
# started NAME PID: wait for $T/NAME.port; sets PORT
started() {
	local i
	PIDS+=("$2")
	for ((i = 0; i < 200; i++)); do [ -s "$T/$1.port" ] && break; sleep 0.05; done
	PORT=$(cat "$T/$1.port" 2>/dev/null)
}

##### the command line ########################################################################################

run url apply --plan "$T/plan.json" --provider pdns --pdns-server http://127.0.0.1:1 --pdns-api-key-file "$T/key" \
	--pdns-zone example.test --rate-budget "redis://:$PW@127.0.0.1:6379"
eq "a password in the --rate-budget URL: refused, exit 2" "$RC" 2
check "... naming --rate-budget-password-file and DNSBATCH_REDIS_PASSWORD" \
	grep -q 'holds a password.*--rate-budget-password-file.*DNSBATCH_REDIS_PASSWORD' "$T/url.err"
clean url "... the password is not printed"

run prefix apply --plan "$T/plan.json" --provider pdns --pdns-server http://127.0.0.1:1 --pdns-zone example.test \
	--pdns-api-key "$KEY"
eq "--pdns-api-key SECRET (a prefix of --pdns-api-key-file): unknown option, exit 2" "$RC" 2
check "... named as written" grep -q "unknown option '--pdns-api-key'" "$T/prefix.err"
clean prefix "... the secret is not printed"
run prefix2 apply --plan "$T/plan.json" --provider pdns --pdns-server http://127.0.0.1:1 --pdns-zone example.test \
	"--pdns-api-key=$KEY"
eq "--pdns-api-key=SECRET: unknown option, exit 2" "$RC" 2
clean prefix2 "... the secret is not printed"
run prefix3 apply --pla "$T/plan.json" --provider memory --memory-zone example.test
eq "--pla (a prefix of --plan): unknown option, exit 2" "$RC" 2

##### echoed secrets ##########################################################################################

python3 tests/fakes/echo_http.py "$T/echo.port" 2>"$T/echo.err" &
started echo $!
run echo apply --plan "$T/plan.json" --provider pdns --pdns-server "http://127.0.0.1:$PORT" --pdns-api-key-file "$T/key" \
	--pdns-zone example.test --max-retries 0 --drop-log "$T/echo.drops"
check "a PowerDNS answering with the request's headers: the error is told" grep -q 'headers were' "$T/echo.err"
check "... with the key replaced" grep -q 'X-API-Key: \*\*\*' "$T/echo.err"
clean echo "... the API key is printed nowhere"

python3 tests/fakes/fake_redis.py "$T/redis.port" --echo-auth 2>"$T/redis.fake.err" &
started redis $!
DNSBATCH_REDIS_PASSWORD=$PW run auth apply --plan "$T/plan.json" --provider pdns \
	--pdns-server "http://127.0.0.1:$(cat "$T/echo.port")" --pdns-api-key-file "$T/key" --pdns-zone example.test \
	--max-retries 0 --rate-budget "redis://127.0.0.1:$PORT" --drop-log "$T/auth.drops"
check "a Redis echoing AUTH in its refusal: the fallback is told" grep -q 'AUTH refused' "$T/auth.err"
clean auth "... the Redis password is printed nowhere"
DNSBATCH_REDIS_PASSWORD=$PW run authjson apply --plan "$T/plan.json" --provider pdns \
	--pdns-server "http://127.0.0.1:$(cat "$T/echo.port")" --pdns-api-key-file "$T/key" --pdns-zone example.test \
	--max-retries 0 --rate-budget "redis://127.0.0.1:$PORT" --drop-log "$T/authjson.drops" --log-format json
clean authjson "... nor in JSON logs"

##### every provider's credentials, echoed back ##############################################################
# Issue 38's leftovers: a secret not read through the one reader (an environment variable, a key fetched from a
# token endpoint, STS or the container credentials endpoint) was not registered for redaction, and an endpoint
# quoting the request (tests/fakes/echo_http.py, --shape: where each provider's client reads a message) put it
# into stderr. Each run: the secret is told replaced (***), and printed nowhere: stderr, the JSON summary, the
# drop log.

secret() { echo "$1-$(head -c 9 /dev/urandom | od -An -tx1 | tr -d ' \n')"; }
CFTOK=$(secret cftok) CFKEY=$(secret cfkey) AZSEC=$(secret azsec) AZTOK=$(secret aztok)
AWSSEC=$(secret awssec) AWSTOK=$(secret awstok) FILESEC=$(secret filesec) FILETOK=$(secret filetok)
WEBTOK=$(secret webtok) CTRSEC=$(secret ctrsec) CTRTOK=$(secret ctrtok) CTRAUTH=$(secret ctrauth)
# echo_start NAME ARGS...: an echo endpoint; sets EP_NAME's port in $T/NAME.port
echo_start() { local n=$1; shift; python3 tests/fakes/echo_http.py "$T/$n.port" "$@" 2>"$T/$n.fake.err" & started "$n" $!; }
echo_start ecf --shape cloudflare
ECF=http://127.0.0.1:$PORT
echo_start eaz
EAZ=http://127.0.0.1:$PORT
echo_start eaztok --shape azure --token "$AZTOK"
EAZTOK=http://127.0.0.1:$PORT
echo_start eaws --shape aws --aws-creds "$CTRSEC:$CTRTOK"
EAWS=http://127.0.0.1:$PORT
# quoted NAME ENV... -- ARGS...: dnsbatch apply ARGS in an environment of ENV only; $T/NAME.{err,out,drops}
quoted() {
	local n=$1 env=()
	shift
	while [ "$1" != -- ]; do env+=("$1"); shift; done
	shift
	env -i PATH="$PATH" HOME="$T/home" LC_ALL=C ${ASAN_OPTIONS:+ASAN_OPTIONS=$ASAN_OPTIONS} "${env[@]}" \
		"$DNSBATCH" apply --plan "$T/plan.json" --max-retries 0 --output json --drop-log "$T/$n.drops" "$@" \
		>"$T/$n.out" 2>"$T/$n.err"
	touch "$T/$n.drops"
}
# sealed NAME WHAT SECRET...: the echo was told with a secret replaced, and none of SECRET is printed
sealed() {
	check "$2: the echo is told, a secret replaced" grep -q '\*\*\*' "$T/$1.err"
	unprinted "$@"
}
# unprinted NAME WHAT SECRET...: none of SECRET is printed
unprinted() {
	local n=$1 what=$2
	shift 2
	if grep -qF "${@/#/-e}" "$T/$n.err" "$T/$n.out" "$T/$n.drops"; then
		not_ok "$what: no secret in stderr, the JSON summary or the drop log" \
			"$(grep -hoF "${@/#/-e}" "$T/$n.err" "$T/$n.out" "$T/$n.drops" | head -3)"
	else
		ok "$what: no secret in stderr, the JSON summary or the drop log"
	fi
}
mkdir -p "$T/home/.aws"

quoted cftok "CF_API_TOKEN=$CFTOK" -- --provider cloudflare --cloudflare-api-endpoint "$ECF/client/v4"
sealed cftok "Cloudflare, \$CF_API_TOKEN" "$CFTOK"
quoted cfkey "CF_API_KEY=$CFKEY" CF_API_EMAIL=dns@example.com -- --provider cloudflare \
	--cloudflare-api-endpoint "$ECF/client/v4"
sealed cfkey "Cloudflare, \$CF_API_KEY" "$CFKEY"

AZ=(--provider azure --azure-subscription-id sub-1 --azure-resource-group rg)
quoted azsec AZURE_TENANT_ID=t1 AZURE_CLIENT_ID=c1 "AZURE_CLIENT_SECRET=$AZSEC" "AZURE_AUTHORITY_HOST=$EAZ" -- \
	"${AZ[@]}" --azure-api-endpoint "$EAZ/"
sealed azsec "Azure, \$AZURE_CLIENT_SECRET (the token endpoint quoting the request body)" "$AZSEC"
printf '{"tenantId": "t1", "aadClientId": "c1", "aadClientSecret": "%s"}\n' "$AZSEC" >"$T/azure.json"
quoted azfile "AZURE_AUTHORITY_HOST=$EAZ" -- "${AZ[@]}" --azure-api-endpoint "$EAZ/" --azure-config-file "$T/azure.json"
sealed azfile "Azure, aadClientSecret of --azure-config-file" "$AZSEC"
quoted aztok AZURE_TENANT_ID=t1 AZURE_CLIENT_ID=c1 "AZURE_CLIENT_SECRET=$AZSEC" "AZURE_AUTHORITY_HOST=$EAZTOK" -- \
	"${AZ[@]}" --azure-api-endpoint "$EAZTOK/"
sealed aztok "Azure, the access token it obtained" "$AZTOK" "$AZSEC"

AWS=(--provider aws --aws-zone-id Z1)
quoted awsenv AWS_ACCESS_KEY_ID=AKIDENV01 "AWS_SECRET_ACCESS_KEY=$AWSSEC" "AWS_SESSION_TOKEN=$AWSTOK" \
	"AWS_ENDPOINT_URL_ROUTE_53=$EAWS" -- "${AWS[@]}"
sealed awsenv "AWS, \$AWS_SECRET_ACCESS_KEY and \$AWS_SESSION_TOKEN" "$AWSSEC" "$AWSTOK"
printf '[default]\naws_access_key_id = AKIDFILE01\naws_secret_access_key = %s\naws_session_token = %s\n' \
	"$FILESEC" "$FILETOK" >"$T/home/.aws/credentials"
quoted awsfile "AWS_ENDPOINT_URL_ROUTE_53=$EAWS" -- "${AWS[@]}"
sealed awsfile "AWS, the shared credentials file" "$FILESEC" "$FILETOK"
rm -f "$T/home/.aws/credentials"
printf '%s\n' "$WEBTOK" >"$T/webtok"
quoted awsweb "AWS_WEB_IDENTITY_TOKEN_FILE=$T/webtok" AWS_ROLE_ARN=arn:aws:iam::123456789012:role/dns \
	"AWS_ENDPOINT_URL_STS=$EAWS" "AWS_ENDPOINT_URL_ROUTE_53=$EAWS" -- "${AWS[@]}"
# STS's refusal is told by its code only: the echo is not quoted
unprinted awsweb "AWS, the web identity token (STS quoting the request)" "$WEBTOK"
quoted awsctr "AWS_CONTAINER_CREDENTIALS_FULL_URI=$EAWS/creds" "AWS_CONTAINER_AUTHORIZATION_TOKEN=$CTRAUTH" \
	"AWS_ENDPOINT_URL_ROUTE_53=$EAWS" -- "${AWS[@]}"
sealed awsctr "AWS, container credentials (the keys fetched, the authorization token)" "$CTRSEC" "$CTRTOK" "$CTRAUTH"

##### one secret reader #######################################################################################

{ head -c 70000 /dev/zero | tr '\0' k; echo; } >"$T/bigkey"
run big apply --plan "$T/plan.json" --provider pdns --pdns-server http://127.0.0.1:1 --pdns-api-key-file "$T/bigkey" \
	--pdns-zone example.test
eq "a PowerDNS key file over 64 KiB: an error, exit 2 (it was cut at 4 KiB and sent)" "$RC" 2
check "... naming the flag and the file" grep -q -- "--pdns-api-key-file $T/bigkey: over 64 KiB" "$T/big.err"
check "... never the content" sh -c '! grep -q kkkkkkkk "$1"' _ "$T/big.err"

##### not dumpable ############################################################################################

if [ "$(id -u)" != 0 ]; then
	ok "# skip: the dump checks need root (to run dnsbatch as nobody) # SKIP"
else
	chmod 755 "$T"
	# dumped NAME ARGS...: serve as nobody; "OWNER-of-/proc/PID CORE-LIMIT" while it runs
	dumped() {
		local n=$1 pid i owner=
		shift
		setpriv --reuid=65534 --regid=65534 --clear-groups "$DNSBATCH" serve --provider memory \
			--memory-zone example.test --listen 127.0.0.1:0 --metrics-listen "" "$@" 2>"$T/$n.err" &
		pid=$!
		PIDS+=("$pid")
		for ((i = 0; i < 100; i++)); do grep -q 'serving the external-dns webhook' "$T/$n.err" && break; sleep 0.05; done
		owner=$(stat -c %u "/proc/$pid/environ")
		echo "$owner $(awk '/^Max core file size/ { print $5 }' "/proc/$pid/limits")"
		kill -TERM "$pid"
		wait "$pid"
	}
	eq "serve as nobody: not dumpable (/proc/PID/environ owned by root), no core file" "$(dumped nodump)" "0 0"
	eq "... with --allow-core-dumps: dumpable (owned by nobody)" "$(dumped dump --allow-core-dumps | cut -d' ' -f1)" 65534
fi

[ "$failures" -eq 0 ]
