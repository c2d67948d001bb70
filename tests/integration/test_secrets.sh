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
set -u
export LC_ALL=C
cd "$(dirname "$0")/../.." || exit 1
ROOT=$PWD
DNSBATCH=${DNSBATCH:-$ROOT/build/dnsbatch}
. tests/integration/checks.sh
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
