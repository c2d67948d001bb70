#!/usr/bin/env bash
# shellcheck disable=SC2016 # zone-file text: $ORIGIN and $TTL are not shell expansions
# test_thresholds.sh - the safety thresholds (issue 33 §2) through the real binary on a zone file:
# one-shot: a plan deleting all of a 20-RRset zone is held (exit 2, nothing written, the counts and --force
# named), --force and a per-zone override apply it, a plan under the threshold applies, no-op updates do not
# count, the apex NS is held without --force, a small zone is never over a percentage, a failing count
# listing fails the zone's changes (exit 4, nothing sent);
# sidecar: the held changes fail (503) while the rest applies, the gauge counts them, POST /release with the
# digest releases exactly that set (a wrong digest: 404), and the next POST /records applies it.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/integration/extdns_client.sh

tmp=$(mktemp -d "${TMPDIR:-/tmp}/dnsbatch-thresholds.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# A zone of 20 RRsets: SOA, NS, ns1 and h1..h17.
zone() {
	printf '$ORIGIN example.test.\n$TTL 300\n'
	printf '@ IN SOA ns1.example.test. hostmaster.example.test. 1 7200 3600 1209600 300\n'
	printf '@ IN NS ns1.example.test.\nns1 IN A 192.0.2.53\n'
	for i in $(seq 1 17); do printf 'h%d IN A 192.0.2.%d\n' "$i" "$i"; done
}
# deletes FROM TO: a plan deleting h FROM..TO, plus the create of new.example.test
plan() {
	local from=$1 to=$2 sep=""
	printf '{"create":[{"dnsName":"new.example.test","targets":["203.0.113.1"],"recordType":"A","recordTTL":300}],"delete":['
	for i in $(seq "$from" "$to"); do
		printf '%s{"dnsName":"h%d.example.test","targets":["192.0.2.%d"],"recordType":"A","recordTTL":300}' "$sep" "$i" "$i"
		sep=,
	done
	printf ']}\n'
}
count() { "$DNSBATCH" records --provider zonefile --zonefile "example.test=$1" | grep -c '	A	'; }
apply() { # ZONEFILE PLAN [flags]: sets rc; stderr in $tmp/err
	local z=$1 p=$2
	shift 2
	"$DNSBATCH" apply --provider zonefile --zonefile "example.test=$z" --plan "$p" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
}

zone >"$tmp/z.zone"
plan 1 17 >"$tmp/all.json"
plan 1 3 >"$tmp/few.json"
# A controller whose source disappeared: every record deleted. One-shot: nothing sent, exit 2.
cp "$tmp/z.zone" "$tmp/a.zone"
apply "$tmp/a.zone" "$tmp/all.json"
extdns_check "one-shot: deleting 17 of 20 RRsets exits 2" [ "$rc" = 2 ]
extdns_check "one-shot: nothing written for the zone (create held too)" cmp -s "$tmp/z.zone" "$tmp/a.zone"
extdns_check "one-shot: the message names the counts and the flag" grep -q 'deletes 17 of 20 RRsets (85%), over --max-delete-percent 30.*--force' "$tmp/err"
"$DNSBATCH" plan --provider zonefile --zonefile "example.test=$tmp/a.zone" --plan "$tmp/all.json" --output json --quiet >"$tmp/plan.json"
extdns_check "one-shot: dnsbatch plan predicts it: exit 2, every change held" \
	jq -e '.exit_code == 2 and ([.outcomes[].outcome] | unique) == ["held"] and (.outcomes | length) == 18' "$tmp/plan.json"
apply "$tmp/a.zone" "$tmp/all.json" --force
extdns_check "one-shot: --force applies it (exit 0)" [ "$rc" = 0 ]
extdns_check "one-shot: --force: the zone holds ns1 and new only" [ "$(count "$tmp/a.zone")" = 2 ]
# The count's listing fails (a 503 on the zone's first read): the zone's changes fail, retryable (exit 4), and
# nothing is sent uncounted.
"$DNSBATCH" apply --provider memory --memory-zonefile "example.test=$tmp/z.zone" --memory-faults '1:read-transient' \
	--plan "$tmp/few.json" --output json --quiet >"$tmp/lf.json" 2>"$tmp/lf.err"
rc=$?
extdns_check "one-shot: the count's listing fails: exit 4" [ "$rc" = 4 ]
extdns_check "... nothing submitted, every change failed (transient)" \
	jq -e '.submissions == 0 and ([.outcomes[] | "\(.outcome) \(.reason)"] | unique) == ["failed transient"]' "$tmp/lf.json"
cp "$tmp/z.zone" "$tmp/b.zone"
apply "$tmp/b.zone" "$tmp/all.json" --max-delete-percent EXAMPLE.test=90
extdns_check "one-shot: a per-zone --max-delete-percent ZONE=90 lets 85% through" [ "$rc" = 0 ]
cp "$tmp/z.zone" "$tmp/c.zone"
apply "$tmp/c.zone" "$tmp/all.json" --max-delete-percent other.test=90
extdns_check "one-shot: another zone's override leaves this one held" [ "$rc" = 2 ]
apply "$tmp/c.zone" "$tmp/few.json"
extdns_check "one-shot: 3 deletes of 20 (15%) apply" [ "$rc:$(count "$tmp/c.zone")" = "0:16" ]
apply "$tmp/c.zone" "$tmp/all.json" --min-existing-rrsets 30
extdns_check "one-shot: a zone under --min-existing-rrsets is never over a percentage" [ "$rc" = 0 ]
apply "$tmp/c.zone" "$tmp/all.json" --max-delete-percent 150
extdns_check "one-shot: a percentage over 100 is a usage error" [ "$rc" = 2 ]
extdns_check "one-shot: ... naming the flag" grep -q -- '--max-delete-percent' "$tmp/err"
# Updates that change nothing (external-dns's registry migration) do not count.
cp "$tmp/z.zone" "$tmp/d.zone"
{
	printf '{"updateOld":['; sep=""
	for i in $(seq 1 17); do printf '%s{"dnsName":"h%d.example.test","targets":["192.0.2.%d"],"recordType":"A","recordTTL":300}' "$sep" "$i" "$i"; sep=,; done
	printf '],"updateNew":['; sep=""
	for i in $(seq 1 17); do printf '%s{"dnsName":"h%d.example.test","targets":["192.0.2.%d"],"recordType":"A","recordTTL":300}' "$sep" "$i" "$i"; sep=,; done
	printf ']}\n'
} >"$tmp/noop.json"
apply "$tmp/d.zone" "$tmp/noop.json"
extdns_check "one-shot: 17 updates that change nothing are not held" [ "$rc" = 0 ]
sed 's/"192\.0\.2\.\([0-9]*\)"\]/"198.51.100.\1"]/g' "$tmp/noop.json" | jq -c '.updateOld = input.updateOld' - "$tmp/noop.json" >"$tmp/upd.json"
apply "$tmp/d.zone" "$tmp/upd.json"
extdns_check "one-shot: 17 real updates of 20 are held (exit 2)" [ "$rc" = 2 ]
extdns_check "one-shot: ... naming --max-update-percent" grep -q 'updates 17 of 20 RRsets.*--max-update-percent 30' "$tmp/err"
# The apex NS RRset: held without --force, whatever the share.
printf '{"updateOld":[{"dnsName":"example.test","targets":["ns1.example.test"],"recordType":"NS","recordTTL":300}],"updateNew":[{"dnsName":"example.test","targets":["ns2.example.net"],"recordType":"NS","recordTTL":300}]}\n' >"$tmp/ns.json"
apply "$tmp/d.zone" "$tmp/ns.json"
extdns_check "one-shot: a change of the apex NS RRset is held (exit 2)" [ "$rc" = 2 ]
extdns_check "one-shot: ... saying so" grep -q 'NS RRset at the apex' "$tmp/err"
apply "$tmp/d.zone" "$tmp/ns.json" --force
extdns_check "one-shot: ... and applied with --force" [ "$rc" = 0 ]
# A small zone (fewer than 10 RRsets) may be emptied.
printf '$ORIGIN example.test.\n$TTL 300\n@ IN SOA ns1.example.test. h. 1 7200 3600 1209600 300\n@ IN NS ns1.example.test.\nh1 IN A 192.0.2.1\nh2 IN A 192.0.2.2\n' >"$tmp/s.zone"
apply "$tmp/s.zone" <(plan 1 2) --quiet
extdns_check "one-shot: a 4-RRset zone may lose both its A RRsets" [ "$rc" = 0 ]

# Sidecar: the create applies, the 17 deletes are held (503), then released and applied.
cp "$tmp/z.zone" "$tmp/w.zone"
extdns_serve "$tmp/serve.log" --provider zonefile --zonefile "example.test=$tmp/w.zone" --domain-filter example.test \
	|| { echo "not ok - serve starts"; exit 1; }
extdns_check "sidecar: ready" extdns_wait_ready 10
extdns_post "$EXTDNS_API" /records "$tmp/all.json" >"$tmp/r1"
extdns_check "sidecar: the held deletes answer 503 (external-dns retries)" [ "$EXTDNS_STATUS" = 503 ]
extdns_check "sidecar: the create under the threshold applied, no delete" [ "$(count "$tmp/w.zone")" = 19 ]
extdns_check "sidecar: dnsbatch_held_changes{kind=delete} 17" \
	[ "$(extdns_metric 'dnsbatch_held_changes{zone="example.test.",kind="delete"}')" = 17 ]
digest=$(sed -n 's/.*release this set with POST \/release?digest=\([0-9a-f]\{64\}\).*/\1/p' "$tmp/serve.log" | tail -n1)
extdns_check "sidecar: the log line gives the digest" [ -n "$digest" ]
extdns_post "$EXTDNS_API" "/release?digest=$(printf '%064d' 0)" /dev/null >/dev/null
extdns_check "sidecar: a digest no held set has: 404" [ "$EXTDNS_STATUS" = 404 ]
extdns_post "$EXTDNS_API" /records "$tmp/all.json" >/dev/null
extdns_check "sidecar: still held on the next loop (503)" [ "$EXTDNS_STATUS:$(count "$tmp/w.zone")" = "503:19" ]
# A different set (one delete fewer) has another digest: the release of one does not let the other through.
plan 2 17 >"$tmp/other.json"
extdns_post "$EXTDNS_API" "/release?digest=$digest" /dev/null >"$tmp/rel"
extdns_check "sidecar: POST /release with the digest: 200" [ "$EXTDNS_STATUS" = 200 ]
extdns_post "$EXTDNS_API" /records "$tmp/other.json" >/dev/null
extdns_check "sidecar: a changed set is not released by it" [ "$EXTDNS_STATUS:$(count "$tmp/w.zone")" = "503:19" ]
extdns_post "$EXTDNS_API" /records "$tmp/all.json" >/dev/null
extdns_check "sidecar: the released set applies on the next POST /records (204)" [ "$EXTDNS_STATUS" = 204 ]
extdns_check "sidecar: the zone holds ns1 and new only" [ "$(count "$tmp/w.zone")" = 2 ]
extdns_check "sidecar: the gauge is back to 0" \
	[ "$(extdns_metric 'dnsbatch_held_changes{zone="example.test.",kind="delete"}')" = 0 ]
extdns_post "$EXTDNS_API" "/release?digest=$digest" /dev/null >/dev/null
extdns_check "sidecar: a release is used once (the set is gone: 404)" [ "$EXTDNS_STATUS" = 404 ]
extdns_stop
extdns_done
