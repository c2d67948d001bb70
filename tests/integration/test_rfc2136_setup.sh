#!/usr/bin/env bash
# test_rfc2136_setup.sh - RFC 2136 setup faults against real BIND (issue 33 §3): a TSIG key the server refuses
# (BADSIG: the wrong secret; BADKEY: a name it does not know) on the first request, before anything applied, is a
# setup fault: exit 2, said with the fix, nothing in the zone. The sidecar's /healthz names the fault instead of
# "has not answered yet"; with the right key it is ready.
. "$(dirname "$0")/checks.sh"
test_begin
. tests/integration/servers.sh
dnsb_servers_init
needs named tsig-keygen dig curl
T=$(dnsb_newdir setup) || exit 1
dnsb_tsig_keygen "$T/key" dnsbatch-key && dnsb_tsig_keygen "$T/wrong-secret" dnsbatch-key &&
	dnsb_tsig_keygen "$T/unknown-name" other-key || exit 1
printf '$TTL 300\n@ IN SOA ns.example.test. h.example.test. 1 3600 600 86400 300\n@ IN NS ns\nns IN A 192.0.2.53\n' \
	>"$T/zone"
dnsb_start_named example.test "$T/zone" "$T/key" || { not_ok "named starts"; exit 1; }
PORT=$DNSB_SERVER_PORT
printf '{"create":[{"dnsName":"a.example.test","targets":["192.0.2.1"],"recordType":"A"}]}' >"$T/plan.json"
axfr() { dig -p "$PORT" @127.0.0.1 -k "$T/key" example.test AXFR +nocmd +nostats | grep -v -e '^;' -e TSIG | sort; }
before=$(axfr)

for k in wrong-secret:BADSIG unknown-name:BADKEY; do
	file=${k%%:*} code=${k#*:}
	"$DNSBATCH" apply --plan "$T/plan.json" --provider rfc2136 --rfc2136-host 127.0.0.1 --rfc2136-port "$PORT" \
		--rfc2136-zone example.test --rfc2136-tsig-keyfile "$T/$file" >/dev/null 2>"$T/$file.err"
	eq "$code on the first request: a setup fault, exit 2" "$?" 2
	check "... said, with the fix" grep -Fq \
		"setup fault: provider rfc2136 refused the key or the zone ($code) before anything was applied: fix the key" \
		"$T/$file.err"
	check "... named by the server's answer" grep -Fq "answered NOTAUTH (TSIG error $code)" "$T/$file.err"
done
eq "nothing was written to the zone" "$(axfr)" "$before"

# serve NAME KEYFILE: a sidecar on free ports; its /healthz body after the first probe in $T/NAME.health
serve() {
	local api mon pid i
	api=$(dnsb_free_port) && mon=$(dnsb_free_port)
	"$DNSBATCH" serve --provider rfc2136 --rfc2136-host 127.0.0.1 --rfc2136-port "$PORT" --rfc2136-zone example.test \
		--rfc2136-tsig-keyfile "$2" --listen "127.0.0.1:$api" --metrics-listen "127.0.0.1:$mon" 2>"$T/$1.serve.err" &
	pid=$!
	DNSB_SERVERS_PIDS+=("$pid")
	for ((i = 0; i < 100; i++)); do
		curl -s "http://127.0.0.1:$mon/healthz" >"$T/$1.health" 2>/dev/null
		grep -q 'answered yet\|fault\|^ok\|ready' "$T/$1.health" && ! grep -q 'answered yet' "$T/$1.health" && break
		sleep 0.1
	done
	dnsb_stop_pid "$pid"
}
serve bad "$T/wrong-secret"
check "serve, a wrong secret: /healthz names the setup fault" grep -Fq \
	"not ready: provider rfc2136: setup fault:" "$T/bad.health"
check "... with BADSIG, not 'has not answered yet'" grep -Fq "BADSIG" "$T/bad.health"
serve good "$T/key"
check "serve, the right key: /healthz is ready" sh -c '! grep -q "not ready" "$1" && [ -s "$1" ]' _ "$T/good.health"

[ "$failures" -eq 0 ]
