#!/usr/bin/env bash
# test_ratelimit_bounds.sh - issue 38 §1 through the real binary: a rate budget whose Redis lies
# (tests/fakes/fake_redis.py) never holds `apply` or `serve` longer than their deadline or the cap, and
# a signal ends its wait at once. Against a real PowerDNS on a free loopback port:
#  - {1, 999999999999} (a wait of 11.6 days) kept `apply --timeout 10` asleep 37 minutes: now the local
#    share takes over, said once; everything applied within seconds;
#  - a wait of 30 s (under the cap) slept until SIGTERM: the signal ends it, the summary is written;
#  - `serve` against that server never started listening: now it does.
. "$(dirname "$0")/checks.sh"
test_begin
. tests/integration/servers.sh
needs jq curl python3 pdns_server sqlite3
dnsb_servers_init
T=$(dnsb_newdir bounds) || exit 1

if ! dnsb_start_pdns example.test 2>"$T/start.err"; then
	not_ok "pdns_server starts" "$(cat "$T/start.err")"
	exit 1
fi
URL=$DNSB_PDNS_URL
KEYFILE=$DNSB_PDNS_KEYFILE

# fake NAME FLAGS...: a lying Redis; sets REDIS_URL
fake() {
	local n=$1 i
	shift
	python3 tests/fakes/fake_redis.py "$T/$n.port" "$@" 2>"$T/$n.fake.err" &
	DNSB_SERVERS_PIDS+=("$!")
	for ((i = 0; i < 200; i++)); do [ -s "$T/$n.port" ] && break; sleep 0.05; done
	REDIS_URL=redis://127.0.0.1:$(cat "$T/$n.port")
}
creates "$T/plan.json" 5 b example.test 10.9
# apply NAME ARGS...: the plan through pdns with the rate budget at REDIS_URL; sets RC, SECS
apply() {
	local n=$1 start
	shift
	start=$(date +%s.%N)
	timeout 30 "$DNSBATCH" apply --plan "$T/plan.json" --provider pdns --pdns-server "$URL" --pdns-api-key-file "$KEYFILE" \
		--pdns-zone example.test --rate-budget "$REDIS_URL" --output json --drop-log "$T/$n.drops" "$@" \
		>"$T/$n.json" 2>"$T/$n.err"
	RC=$?
	SECS=$(echo "$(date +%s.%N) - $start" | bc)
}

fake days --take '*3\r\n:1\r\n:999999999999\r\n:5000\r\n'
apply days --timeout 10
eq "Redis answering a wait of 11.6 days, apply --timeout 10: exit 0" "$RC" 0
le "... within seconds (${SECS} s)" "$SECS" 5
eq "... every change applied (by the local share)" "$(jq -r .applied "$T/days.json")" 5
eq "... the nonsense said once" "$(grep -c 'answered nonsense' "$T/days.err")" 1

fake long --take '*3\r\n:1\r\n:30000000\r\n:4850\r\n'
"$DNSBATCH" apply --plan "$T/plan.json" --provider pdns --pdns-server "$URL" --pdns-api-key-file "$KEYFILE" \
	--pdns-zone example.test --rate-budget "$REDIS_URL" --output json --drop-log "$T/long.drops" \
	>"$T/long.json" 2>"$T/long.err" &
pid=$!
DNSB_SERVERS_PIDS+=("$pid")
for ((i = 0; i < 100; i++)); do grep -q takes "$T/long.fake.err" && break; sleep 0.05; done
sleep 0.3
start=$(date +%s.%N)
kill -TERM "$pid"
for ((i = 0; i < 100; i++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
kill -KILL "$pid" 2>/dev/null # still asleep after 5 s: the check below fails
wait "$pid"
RC=$?
SECS=$(echo "$(date +%s.%N) - $start" | bc)
eq "a wait of 30 s, then SIGTERM: the apply stops, exit 4" "$RC" 4
le "... at once (${SECS} s after the signal)" "$SECS" 2
eq "... with its summary: 5 changes, 5 failed" "$(jq -r '"\(.changes) \(.failed)"' "$T/long.json")" "5 5"
eq "... and the drop log holds the 5 changes not sent" "$(wc -l <"$T/long.drops" | tr -d ' ')" 5

fake serve --take '*3\r\n:1\r\n:999999999999\r\n:5000\r\n'
api=$(dnsb_free_port) && mon=$(dnsb_free_port)
"$DNSBATCH" serve --provider pdns --pdns-server "$URL" --pdns-api-key-file "$KEYFILE" --pdns-zone example.test \
	--rate-budget "$REDIS_URL" --listen "127.0.0.1:$api" --metrics-listen "127.0.0.1:$mon" 2>"$T/serve.err" &
spid=$!
DNSB_SERVERS_PIDS+=("$spid")
up=0
dnsb_wait_healthz "$spid" "$mon" && up=1
eq "serve against that Redis: listening within 10 s" "$up" 1
check "... the budget's fallback counted in the metrics" \
	sh -c 'curl -s "http://127.0.0.1:$1/metrics" | grep -q "^dnsbatch_rate_budget_fallbacks_total 1"' _ "$mon"
kill -TERM "$spid" 2>/dev/null
wait "$spid"
eq "... stops on SIGTERM, exit 0" "$?" 0

[ "$failures" -eq 0 ]
