#!/usr/bin/env bash
#
# bench_akamai.sh - the akamai provider against tests/fakes/fake_akamai.py over
# HTTPS (every request checked against Akamai's OpenAPI document): 1,000
# A-record creations (--batch-size 1000; change lists of
# --akamai-batch-change-size, default 100), k of them conflicting (the name
# holds an A record with another address), for k in 0 1 10 50. Per run:
# submissions and reads (dnsbatch's counts), the fake's requests (change
# lists created and submitted, add-changes, record-set reads) and wall
# seconds, beside what external-dns's removed in-tree provider sent for the
# same plan: one bulk POST /zones/{zone}/recordsets of every new record, which
# Edge DNS refuses whole when one record set exists: 1 request, and 0 of the
# 1,000 created while k > 0, on every loop.
#
# Env: DNSBATCH (default build/dnsbatch), CHANGES (default 1000), KS (default
# "0 1 10 50"), LIST (default 100: --akamai-batch-change-size). Prints figures;
# exits non-zero only if a run is wrong (exit code, counts, a request off the
# document).
set -u
export LC_ALL=C
cd "$(dirname "$0")/../.." || exit 1
. tests/integration/checks.sh # tls_pki, fake_started

DNSBATCH=${DNSBATCH:-build/dnsbatch}
CHANGES=${CHANGES:-1000}
KS=${KS:-0 1 10 50}
LIST=${LIST:-100}
broken=0
for tool in openssl jq curl python3; do
	command -v "$tool" >/dev/null 2>&1 || { echo "bench_akamai: $tool is not installed"; exit 1; }
done
fake_scratch # $T (its CA and certificate), PIDS stopped at exit
. tests/integration/akamai_fake.sh # after T: start_ak, stat, load

jq -n --argjson n "$CHANGES" '{create: [range($n) | {dnsName: "host\(.).example.com", recordType: "A", recordTTL: 300,
	labels: {}, targets: ["10.\(. / 65536 | floor % 256).\(. / 256 | floor % 256).\(. % 256)"]}],
	updateOld: [], updateNew: [], delete: []}' >"$T/plan.json"
now() { date +%s.%N; }

echo "# $CHANGES A-record creations, change lists of $LIST"
printf '%-4s %7s %5s %6s %6s %6s %6s %6s  %-22s %s\n' k wall subm reads lists submit adds api "removed provider" outcome
for k in $KS; do
	start_ak bench --page-size 500 || exit 1
	if [ "$k" -gt 0 ]; then
		step=$((CHANGES / k))
		for ((i = step / 2; i < CHANGES; i += step)); do echo "host$i.example.com 300 A 192.0.2.1"; done | load >/dev/null
	fi
	t0=$(now)
	env -i PATH="$PATH" HOME="$T" "${CREDS[@]}" "$DNSBATCH" apply --plan "$T/plan.json" --provider akamai \
		--akamai-api-endpoint "$URL" --akamai-ca-file "$T/ca.pem" --akamai-zone example.com \
		--akamai-batch-change-size "$LIST" --batch-size 1000 --output json >"$T/out.json" 2>"$T/err"
	rc=$?
	wall=$(echo "$(now) - $t0" | bc)
	got=$(jq -r '"\(.applied) \(.dropped) \(.failed)"' "$T/out.json")
	want="$((CHANGES - k)) $k 0"
	ok=ok
	[ "$got" = "$want" ] && [ "$rc" = "$([ "$k" -gt 0 ] && echo 3 || echo 0)" ] || { ok="WRONG rc=$rc got $got"; broken=1; }
	[ "$(stat .bad_schema)" = 0 ] || { ok="$ok; requests off the document"; broken=1; }
	printf '%-4s %7.2f %5s %6s %6s %6s %6s %6s  %-22s %s\n' "$k" "$wall" "$(jq -r .submissions "$T/out.json")" \
		"$(jq -r .reads "$T/out.json")" "$(stat .creates)" "$(stat .submits)" "$(stat .adds)" "$(stat .requests)" \
		"1 request, $([ "$k" -gt 0 ] && echo 0 || echo "$CHANGES") created" "$ok"
	kill "$FAKE_PID"
	wait "$FAKE_PID" 2>/dev/null
done
exit $broken
