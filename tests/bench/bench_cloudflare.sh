#!/usr/bin/env bash
#
# bench_cloudflare.sh - the cloudflare provider against
# tests/fakes/fake_cloudflare.py over HTTPS (every batch body checked against
# Cloudflare's schema): 1,000 A-record creations in one batch (--batch-size
# 1000, --cloudflare-batch-change-size 1000: a paid plan's batches hold
# 3,500), k of them conflicting, for k in 0 1 10 50, of two kinds:
#   exists  the name holds an A record with another address: the pre-check
#           (the read of the batch's names) finds all k at once;
#   cname   the name holds a CNAME: only Cloudflare refuses it (81054), one
#           at a time, its first error naming the culprit.
# Per run: submissions and reads (dnsbatch's counts), API requests (the
# fake's) and wall seconds, beside external-dns's cost on the same batch:
# the batch, then after a failed batch one request per change (1 + changes
# when k > 0). Target (issue 22): submissions <= k + 2.
#
# Env: DNSBATCH (default build/dnsbatch), CHANGES (default 1000), KS (default
# "0 1 10 50"), KINDS (default "exists cname"). Prints figures; exits non-zero
# only if a run is wrong (exit code, counts, a body off the schema), not on a
# missed target.
set -u
export LC_ALL=C
cd "$(dirname "$0")/../.." || exit 1
. tests/integration/checks.sh # tls_pki, fake_started, eq

DNSBATCH=${DNSBATCH:-build/dnsbatch}
CHANGES=${CHANGES:-1000}
KS=${KS:-0 1 10 50}
KINDS=${KINDS:-exists cname}
broken=0

for tool in openssl jq curl python3; do
	command -v "$tool" >/dev/null 2>&1 || { echo "bench_cloudflare: $tool is not installed"; exit 1; }
done
python3 -c 'import jsonschema' 2>/dev/null || { echo "bench_cloudflare: python3-jsonschema is not installed"; exit 1; }

fake_scratch # $T (its CA and certificate), PIDS stopped at exit
. tests/integration/cloudflare_fake.sh # after T: start_cf, stat


jq -n --argjson n "$CHANGES" '{create: [range($n) | {dnsName: "host\(.).example.com", recordType: "A", recordTTL: 300,
	labels: {}, targets: ["10.\(. / 65536 | floor % 256).\(. / 256 | floor % 256).\(. % 256)"]}],
	updateOld: [], updateNew: [], delete: []}' >"$T/plan.json"

# seed KIND K: the k conflicting names, spread over the batch.
seed() {
	local kind=$1 k=$2 i step
	: >"$T/seed"
	[ "$k" -gt 0 ] || return 0
	step=$((CHANGES / k))
	for ((i = step / 2; i < CHANGES; i += step)); do
		if [ "$kind" = exists ]; then
			echo "$Z1 host$i.example.com 300 A 192.0.2.1" >>"$T/seed"
		else
			echo "$Z1 host$i.example.com 300 CNAME elsewhere.example.net" >>"$T/seed"
		fi
	done
}
now() { date +%s.%N; }

echo "# $CHANGES A-record creations, one batch of $CHANGES operations"
printf '%-7s %-4s %8s %6s %6s %6s %12s %10s  %s\n' kind k wall subm reads api "extdns(1+n)" "subm<=k+2" outcome
for kind in $KINDS; do
	for k in $KS; do
		seed "$kind" "$k"
		start_cf bench --seed "$T/seed" --page-size 100 || exit 1
		t0=$(now)
		env -i PATH="$PATH" HOME="$T" CF_API_TOKEN="$TOKEN" "$DNSBATCH" apply --plan "$T/plan.json" \
			--provider cloudflare --cloudflare-api-endpoint "$URL/client/v4" --cloudflare-ca-file "$T/ca.pem" \
			--cloudflare-zone-id "$Z1" --cloudflare-batch-change-size 1000 --batch-size 1000 --output json \
			>"$T/out.json" 2>"$T/err"
		rc=$?
		wall=$(echo "$(now) - $t0" | bc)
		subm=$(jq .submissions "$T/out.json")
		reads=$(jq .reads "$T/out.json")
		outcome=$(jq -r '"\(.applied) applied, \(.dropped) dropped, \(.failed) failed"' "$T/out.json")
		api=$(stat .requests)
		extdns=$((k > 0 ? 1 + CHANGES : 1))
		target=$([ "$subm" -le $((k + 2)) ] && echo yes || echo NO)
		printf '%-7s %-4s %8.2f %6s %6s %6s %12s %10s  %s\n' "$kind" "$k" "$wall" "$subm" "$reads" "$api" "$extdns" \
			"$target" "$outcome"
		want=$((k > 0 ? 3 : 0))
		if [ "$rc" != "$want" ] || [ "$(jq .applied "$T/out.json")" != $((CHANGES - k)) ] ||
			[ "$(stat .bad_schema)" != 0 ]; then
			echo "  wrong run: exit $rc (want $want), $outcome, bad_schema $(stat .bad_schema): $(tail -2 "$T/err")"
			broken=1
		fi
		kill "$FAKE_PID" 2>/dev/null && wait "$FAKE_PID" 2>/dev/null
	done
done
exit "$broken"
