#!/usr/bin/env bash
# test_exit_codes.sh - exit 2 keeps its promise, "nothing was sent", through the real binary: output
# paths (metrics file, zone directory) checked before sending; setup faults of Cloud DNS (no
# credentials) and PowerDNS (wrong key, wrong server id, an extra /api/v1, the API off) found at start
# and named with their fix; flags of another provider refused; the engine flags taken by serve as by
# apply; `version` and `--version`; drops --plan with --explain refused; and the retry message: a
# sentence, said before the wait.
. "$(dirname "$0")/checks.sh"
test_begin
. tests/integration/servers.sh
dnsb_servers_init
T=$(dnsb_newdir exit) || exit 1
chmod 755 "$DNSB_SERVERS_TMP" "$T"

PLAN=$ROOT/examples/plans/clean.json
zone_copy() { # NAME: a fresh copy of the example zone at $T/NAME/z
	mkdir -p "$T/$1"
	cp "$ROOT/examples/zones/example.com.zone" "$T/$1/z"
	chmod 644 "$T/$1/z"
}
# run NAME ARGS...: dnsbatch ARGS, stdout in $T/NAME.out, stderr in $T/NAME.err; sets RC
run() { local n=$1; shift; "$DNSBATCH" "$@" >"$T/$n.out" 2>"$T/$n.err"; RC=$?; }
unchanged() { cmp -s "$ROOT/examples/zones/example.com.zone" "$T/$1/z"; }

##### output paths, before anything is sent ###################################################################

zone_copy metrics
run metrics apply --plan "$PLAN" --provider zonefile --zonefile "example.com=$T/metrics/z" --metrics-file "$T/no/such/dir/m.prom"
eq "--metrics-file in a directory that does not exist: exit 2" "$RC" 2
check "... the message names the directory and says nothing was sent" \
	grep -q "the directory $T/no/such/dir: No such file or directory (nothing was sent)" "$T/metrics.err"
check "... the zone is untouched" unchanged metrics
run droplog apply --plan "$PLAN" --provider zonefile --zonefile "example.com=$T/metrics/z" --drop-log "$T/no/such/dir/d.jsonl"
eq "--drop-log in a directory that does not exist: exit 2" "$RC" 2
check "... the zone is untouched" unchanged metrics
run metricsdir apply --plan "$PLAN" --provider zonefile --zonefile "example.com=$T/metrics/z" --metrics-file "$T"
eq "--metrics-file naming a directory: exit 2" "$RC" 2
check "... the zone is untouched" unchanged metrics

# A directory the process cannot write (PATH.lock and the temporary file go there): as nobody when root.
zone_copy ro
chmod 555 "$T/ro"
as_user=()
[ "$(id -u)" = 0 ] && as_user=(setpriv --reuid=65534 --regid=65534 --clear-groups)
"${as_user[@]}" "$DNSBATCH" apply --plan "$PLAN" --provider zonefile --zonefile "example.com=$T/ro/z" >/dev/null 2>"$T/ro.err"
RC=$?
eq "a zone directory the process cannot write: exit 2" "$RC" 2
check "... named with the lock file and the fix" grep -q \
	"zone file $T/ro/z: cannot write in $T/ro: Permission denied (each write takes $T/ro/z.lock and writes a temporary file beside the zone: give the user dnsbatch runs as write access to the directory)" \
	"$T/ro.err"
check "... not retried as a transient error" sh -c '! grep -q "retrying" "$1"' _ "$T/ro.err"
check "... the zone is untouched" unchanged ro

##### flags ###################################################################################################

zone_copy flags
run other apply --plan "$PLAN" --provider zonefile --zonefile "example.com=$T/flags/z" --pdns-server http://127.0.0.1:1
eq "--pdns-server with --provider zonefile: exit 2" "$RC" 2
check "... names the flag and its provider" grep -Fq -- '--pdns-server is a flag of provider pdns, not of zonefile' "$T/other.err"
check "... the zone is untouched" unchanged flags
# (timeout: a serve that ignored the flag would serve until stopped)
timeout 10 "$DNSBATCH" serve --provider memory --memory-zone example.com --google-project p --listen 127.0.0.1:0 \
	--metrics-listen "" >/dev/null 2>"$T/other-serve.err"
eq "serve: --google-project with --provider memory: exit 2" "$?" 2

for v in "version" "--version" "apply --version" "serve --version" "records --version" "drops --version"; do
	# shellcheck disable=SC2086
	run version $v
	# (`dnsbatch version` goes on with the libraries and features: its first line is --version's)
	eq "dnsbatch $v: exit 0, the version" "$RC $(head -n 1 "$T/version.out")" \
		"0 dnsbatch $(sed -n 's/^#define DNSBATCH_VERSION "\(.*\)"/\1/p' include/dnsbatch/*.h | head -1)"
done

: >"$T/empty.drops"
run drops-pair drops "$T/empty.drops" --plan --explain
eq "drops --plan --explain: refused, exit 2" "$RC" 2
check "... says to give one" grep -q 'give one' "$T/drops-pair.err"

# serve takes the engine flags apply takes; --help says which mean nothing to it.
run serve-help serve --help
check "serve --help: --timeout means nothing to serve" grep -q -- '--timeout SECONDS *means nothing to serve' "$T/serve-help.out"
check "serve --help: --metrics-file means nothing to serve" grep -q -- '--metrics-file FILE *means nothing to serve' "$T/serve-help.out"
api=$(dnsb_free_port) && mon=$(dnsb_free_port)
"$DNSBATCH" serve --provider memory --memory-zone example.com --listen "127.0.0.1:$api" --metrics-listen "127.0.0.1:$mon" \
	--backoff-base 0.5 --backoff-cap 5 --max-rate-limit-waits 3 --seed 7 --batch-size 10 --max-retries 2 \
	--timeout 9 --metrics-file "$T/ignored.prom" 2>"$T/serve.err" &
spid=$!
DNSB_SERVERS_PIDS+=("$spid")
up=0
dnsb_wait_healthz "$spid" "$mon" && up=1
eq "serve takes --backoff-base/--backoff-cap/--max-rate-limit-waits/--seed/--timeout/--metrics-file" "$up" 1
check "serve: --timeout and --metrics-file ignored, and it says so" \
	grep -q -- '--timeout means nothing to serve.*ignored' "$T/serve.err"
kill -TERM "$spid" 2>/dev/null
wait "$spid"
eq "serve: stops on SIGTERM, exit 0" "$?" 0
run serve-quiet serve --provider memory --memory-zone example.com --quiet --max-body-size 0
check "serve --quiet: accepted (the run stops at the next flag's bad value)" \
	grep -q -- '--max-body-size 0: expected a number of bytes' "$T/serve-quiet.err"

##### retries: a sentence, said before the wait ###############################################################

# A first wait of 29.6 s (seed 6, base = cap = 40): the line must be out long before the wait ends.
"$DNSBATCH" apply --plan "$PLAN" --provider memory --memory-zone example.com --memory-faults 1:transient \
	--backoff-base 40 --backoff-cap 40 --seed 6 >/dev/null 2>"$T/wait.err" &
wpid=$!
DNSB_SERVERS_PIDS+=("$wpid")
said=0
for ((i = 0; i < 200; i++)); do
	grep -q 'retrying in' "$T/wait.err" && { said=1; break; }
	sleep 0.05
done
eq "'retrying in X s' is said before the wait" "$said" 1
secs=$(sed -n 's/.*retrying in \([0-9.]*\) s.*/\1/p' "$T/wait.err" | head -1)
ge "... and the wait was long enough to tell ($secs s)" "${secs:-0}" 10
kill -KILL "$wpid" 2>/dev/null
{ wait "$wpid"; } 2>/dev/null
check "... as a sentence: status, code, message" grep -q \
	'example.com.: 30 changes not applied yet: transient error (503 backendError): Service unavailable' "$T/wait.err"

##### Cloud DNS without credentials ###########################################################################

# No token in the environment, no key file, and a metadata server that does not answer.
start=$(date +%s)
env -u DNSBATCH_GOOGLE_ACCESS_TOKEN -u GOOGLE_APPLICATION_CREDENTIALS GCE_METADATA_HOST=127.0.0.1:1 \
	"$DNSBATCH" apply --plan "$PLAN" --provider google --google-project p --google-zone example.com=example \
	--google-api-endpoint https://127.0.0.1:1/dns/v1 >/dev/null 2>"$T/gcp.err"
RC=$?
eq "Cloud DNS, no credentials at all: exit 2" "$RC" 2
check "... says what was tried" grep -q 'no credentials: \$DNSBATCH_GOOGLE_ACCESS_TOKEN unset, no key file' "$T/gcp.err"
le "... at once, not after retries ($(($(date +%s) - start)) s)" "$(($(date +%s) - start))" 5
check "... not retried" sh -c '! grep -q "retrying" "$1"' _ "$T/gcp.err"

##### PowerDNS setup faults ###################################################################################

if ! command -v pdns_server >/dev/null 2>&1 || ! dnsb_start_pdns example.com 2>"$T/pdns-start.err"; then
	not_ok "pdns_server starts" "$(cat "$T/pdns-start.err" 2>/dev/null)"
	[ "$failures" -eq 0 ]
	exit
fi
URL=$DNSB_PDNS_URL
export DNSBATCH_PDNS_API_KEY
DNSBATCH_PDNS_API_KEY=$(cat "$DNSB_PDNS_KEYFILE")
pdns() { # NAME ARGS...: apply the plan to the pdns provider
	local n=$1
	shift
	run "$n" apply --plan "$PLAN" --provider pdns --pdns-zone example.com --max-retries 1 --backoff-base 0.01 \
		--backoff-cap 0.01 "$@"
}
records() { curl -s -H "X-API-Key: $DNSBATCH_PDNS_API_KEY" "$URL/api/v1/servers/localhost/zones/example.com." | jq '.rrsets | length'; }
before=$(records)

pdns id --pdns-server "$URL" --pdns-server-id nope
eq "PowerDNS, a wrong server id: exit 2" "$RC" 2
check "... names the server's ids and the flag" grep -q "has no server id 'nope' (HTTP 404): its server ids: localhost; give one with --pdns-server-id" "$T/id.err"
pdns apiv1 --pdns-server "$URL/api/v1"
eq "PowerDNS, an extra /api/v1 in the URL: exit 2" "$RC" 2
check "... says to remove it" grep -q 'the URL ends in /api/v1, which dnsbatch adds itself' "$T/apiv1.err"
DNSBATCH_PDNS_API_KEY=wrong pdns key --pdns-server "$URL"
eq "PowerDNS, a wrong API key: exit 2" "$RC" 2
check "... names the 401 and the fix" grep -q 'refused the API key from \$DNSBATCH_PDNS_API_KEY (HTTP 401): it must equal api-key' "$T/key.err"

# The same server's webserver with api=no: every /api path answers 404.
off=$(dnsb_newdir pdns-off) && mkdir -p "$off/run" && cp "$DNSB_PDNS_KEYFILE" "$off/api.key"
sqlite3 "$off/pdns.sqlite3" </usr/share/pdns-backend-sqlite3/schema/schema.sqlite3.sql
offhttp=$(dnsb_free_port) && offdns=$(dnsb_free_port)
dnsb_pdns_conf "$off" "$offdns" "$offhttp" | sed 's/^api=yes$/api=no/' >"$off/pdns.conf"
pdns_server --config-dir="$off" --daemon=no --guardian=no >>"$off/pdns.log" 2>&1 &
DNSB_SERVERS_PIDS+=("$!")
for ((i = 0; i < 200; i++)); do
	[ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$offhttp/")" != 000 ] && break
	sleep 0.05
done
pdns off --pdns-server "http://127.0.0.1:$offhttp"
eq "PowerDNS with api=no: exit 2" "$RC" 2
check "... says to set api=yes" grep -q 'answers HTTP 404 under /api/v1: the PowerDNS API is off.*set api=yes' "$T/off.err"

pdns down --pdns-server "http://127.0.0.1:$(dnsb_free_port)"
eq "PowerDNS not listening: transient, exit 4" "$RC" 4
check "a connection failure is told as a sentence" grep -q \
	'30 changes failed: transient (not sent: the safety thresholds could not count .*GET http://127.0.0.1:[0-9]*/api/v1/servers/localhost/zones/example.com.: Failed to connect' \
	"$T/down.err"
check "... with no empty status or code in it" sh -c '! grep -Fq "(0 :" "$1"' _ "$T/down.err"
eq "PowerDNS: nothing was written by any of these runs" "$(records)" "$before"

[ "$failures" -eq 0 ]
