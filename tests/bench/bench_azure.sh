#!/usr/bin/env bash
#
# bench_azure.sh - the azure provider against tests/fakes/fake_azure.py over HTTPS (every request
# body and query checked against Azure's specification), the fake adding LATENCY to every API
# request: CHANGES A-record creations in one batch, with --azure-max-in-flight 1, 8 and 32. Per
# run: wall seconds, the fake's API requests (record-set writes, listings) beside what external-dns's
# azure provider sends for the same plan (one unconditional CreateOrUpdate per record set, after its
# listing of the zone). Target (issue 23): >= 6x faster at 8 in flight than at 1.
#
# Env: DNSBATCH (default build/dnsbatch), CHANGES (default 1000), LATENCY (milliseconds, default 50),
# FLIGHTS (default "1 8 32"). Prints figures; exits non-zero only if a run is wrong (exit code,
# counts, a request the specification refuses), not on a missed target.
set -u
export LC_ALL=C
cd "$(dirname "$0")/../.." || exit 1
. tests/integration/checks.sh # tls_pki, fake_started

DNSBATCH=${DNSBATCH:-build/dnsbatch}
FAKE=tests/fakes/fake_azure.py
CHANGES=${CHANGES:-1000}
LATENCY=${LATENCY:-50}
FLIGHTS=${FLIGHTS:-1 8 32}
broken=0

for tool in openssl jq curl bc python3; do
	command -v "$tool" >/dev/null 2>&1 || { echo "bench_azure: $tool is not installed"; exit 1; }
done
python3 -c 'import jsonschema' 2>/dev/null || { echo "bench_azure: python3-jsonschema is not installed"; exit 1; }

fake_scratch # $T (its CA and certificate), PIDS stopped at exit

jq -n --argjson n "$CHANGES" '{create: [range($n) | {dnsName: "host\(.).bench.example", recordType: "A", recordTTL: 300,
	labels: {}, targets: ["10.\(. / 65536 | floor % 256).\(. / 256 | floor % 256).\(. % 256)"]}],
	updateOld: [], updateNew: [], delete: []}' >"$T/plan.json"

start_fake() {
	rm -f "$T/bench.port"
	python3 "$FAKE" --port-file "$T/bench.port" --cert "$T/server.pem" --key "$T/server.key" --zone bench.example \
		--client-secret bench-secret --latency "$LATENCY" --page-size 1000 2>"$T/bench.fake.err" &
	fake_started bench $! || exit 1
}
stop_fake() { kill "$FAKE_PID" 2>/dev/null && wait "$FAKE_PID" 2>/dev/null; }
now() { date +%s.%N; }

echo "# $CHANGES A-record creations, one batch, fake latency ${LATENCY} ms per API request"
printf '%-10s %8s %8s %7s %6s %5s %8s %15s  %s\n' in-flight wall speedup writes lists gets max-seen "extdns(w+list)" outcome
base=
for m in $FLIGHTS; do
	start_fake
	t0=$(now)
	env -i PATH="$PATH" HOME="$T" AZURE_TENANT_ID=tenant-0001 AZURE_CLIENT_ID=client-0001 \
		AZURE_CLIENT_SECRET=bench-secret AZURE_AUTHORITY_HOST="https://127.0.0.1:$PORT" \
		"$DNSBATCH" apply --plan "$T/plan.json" --provider azure --azure-subscription-id sub-0001 \
		--azure-resource-group rg-dns --azure-api-endpoint "https://127.0.0.1:$PORT/" --azure-ca-file "$T/ca.pem" \
		--azure-max-in-flight "$m" --batch-size "$CHANGES" --output json --quiet >"$T/out.json" 2>"$T/err"
	rc=$?
	t1=$(now)
	curl -s --cacert "$T/ca.pem" "https://127.0.0.1:$PORT/_fake/stats" >"$T/stats.json"
	stop_fake
	got=$(jq -r '"\(.applied) applied, \(.dropped) dropped, \(.failed) failed"' "$T/out.json" 2>/dev/null)
	if [ "$rc" != 0 ] || [ "$got" != "$CHANGES applied, 0 dropped, 0 failed" ] ||
		[ "$(jq -r .bad_schema "$T/stats.json")" != 0 ]; then
		echo "# m=$m: exit $rc, $got, bad_schema $(jq -r .bad_schema "$T/stats.json"): $(head -c 300 "$T/err")"
		broken=1
	fi
	wall=$(echo "$t1 - $t0" | bc -l)
	[ -n "$base" ] || base=$wall
	writes=$(jq -r .writes "$T/stats.json")
	lists=$(jq -r '.lists + .zone_lists' "$T/stats.json")
	# external-dns: its listing of the zone (one page here), then one CreateOrUpdate per record set.
	printf '%-10s %8.3f %7.1fx %7s %6s %5s %8s %15s  %s\n' "$m" "$wall" "$(echo "$base / $wall" | bc -l)" "$writes" \
		"$lists" "$(jq -r .gets "$T/stats.json")" "$(jq -r .max_in_flight "$T/stats.json")" "$((CHANGES + 1))" "$got"
done
echo "# wall: whole process (TLS, token, reads included); writes: conditional PUT/DELETE the fake served;"
echo "# lists: zone and record-set listing pages, gets: record sets read by name (dnsbatch reads a batch's names by"
echo "# whichever is fewer requests); max-seen: requests in flight at once"
echo "# extdns: requests external-dns's azure provider sends for the same plan, unconditional"
exit "$broken"
