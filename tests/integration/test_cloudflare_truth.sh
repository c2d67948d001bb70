#!/usr/bin/env bash
#
# test_cloudflare_truth.sh - issue 31's Cloudflare findings through the dnsbatch binary against
# tests/fakes/fake_cloudflare.py: a TTL that never landed is not taken for one in effect; a TTL
# below Cloudflare's minimum is compared as the automatic one it is written as; every type
# external-dns writes to Cloudflare (SRV and CAA in "data") is written and read back, a type the
# provider does not write dropped before anything is sent; the DNS rules every service enforces
# (a CNAME beside other data) found by the pre-check, not one refusal at a time; each documented
# form of an error naming its operation (source.pointer, the message, a record id) read.
#
# Prints "ok - NAME" or "not ok - NAME" per check; exits 1 if any failed.
. "$(dirname "$0")/checks.sh"
test_begin
. tests/integration/cloudflare_fake.sh

fake_begin jsonschema python3-jsonschema openssl jq curl python3

cat >"$T/seed" <<EOF
$Z1 www.example.com 300 A 192.0.2.1
$Z1 gone.example.com 300 A 192.0.2.9
EOF

# ---- a TTL-only update that never lands is not in effect ----
start_cf ttl --seed "$T/seed" --fault '500*40' || exit 1
plan "$T/ttl.plan.json" updateOld="$(list "$(ep www.example.com A 300 192.0.2.1)")" \
	updateNew="$(list "$(ep www.example.com A 600 192.0.2.1)")"
apply ttl "$T/ttl.plan.json" --cloudflare-zone-id "$Z1" --max-retries 2
eq "TTL-only update, every attempt refused with 500: failed (exit 4), not already_applied" "$RC $(counts ttl)" \
	"4 1 0 0 0 1"
eq "TTL-only update: the zone still holds TTL 300" "$(zone | grep '^www\.')" "www.example.com 300 A 192.0.2.1"
kill "$FAKE_PID"
# The same update answered 502 after its commit: in effect, proved by the read-back.
start_cf ttl2 --seed "$T/seed" --fault 502after || exit 1
apply ttl2 "$T/ttl.plan.json" --cloudflare-zone-id "$Z1"
eq "TTL-only update, 502 after the commit: in effect, none dropped or failed (exit 0)" \
	"$RC $(counts ttl2 | cut -d' ' -f1,4,5)" "0 1 0 0"
eq "TTL-only update, 502 after the commit: TTL 600 held" "$(zone | grep '^www\.')" "www.example.com 600 A 192.0.2.1"
clean_requests ttl2
kill "$FAKE_PID"

# ---- a TTL below Cloudflare's minimum is written, and compared, as automatic ----
start_cf short --seed "$T/seed" || exit 1
plan "$T/short.plan.json" create="$(list "$(ep short.example.com A 30 192.0.2.30)")"
apply short "$T/short.plan.json" --cloudflare-zone-id "$Z1"
eq "TTL 30: applied" "$RC $(counts short)" "0 1 1 0 0 0"
eq "TTL 30: Cloudflare holds automatic (1)" "$(zone | grep '^short\.')" "short.example.com 1 A 192.0.2.30"
apply short2 "$T/short.plan.json" --cloudflare-zone-id "$Z1"
eq "TTL 30: the same plan again is in effect (automatic is what TTL 30 asks of Cloudflare)" "$RC $(counts short2)" \
	"0 1 0 1 0 0"
kill "$FAKE_PID"

# ---- every type external-dns writes to Cloudflare, and one the provider does not write ----
start_cf types --seed "$T/seed" || exit 1
plan "$T/types.plan.json" create="$(list "$(ep _sip._tcp.example.com SRV 300 '10 5 5060 sip.example.com.' '20 0 5061 .')" \
	"$(ep example.com CAA 300 '0 issue "letsencrypt.org"' '128 iodef "mailto:sec\"x@example.com"')" \
	"$(ep mail.example.com MX 300 '10 mx1.example.com.')" "$(ep sub.example.com NS 300 ns1.other.example.)" \
	"$(ep txt.example.com TXT 300 '"v=spf1 -all"')" "$(ep 4.2.0.192.example.com PTR 300 host.example.com.)" \
	"$(ep six.example.com AAAA 300 2001:db8::1)")"
apply types "$T/types.plan.json" --cloudflare-zone-id "$Z1"
eq "SRV, CAA, MX, NS, TXT, PTR, AAAA: applied" "$RC $(counts types)" "0 7 7 0 0 0"
eq "SRV and CAA posted with their data, listed with Cloudflare's content" \
	"$(zone | grep -E ' (SRV|CAA) ' | tr '\n' ';')" \
	"_sip._tcp.example.com 300 SRV 10 5 5060 sip.example.com;_sip._tcp.example.com 300 SRV 20 0 5061 .;example.com 300 CAA 0 issue \"letsencrypt.org\";example.com 300 CAA 128 iodef \"mailto:sec\\\"x@example.com\";"
apply types2 "$T/types.plan.json" --cloudflare-zone-id "$Z1"
eq "the same plan again: every record read back as written (all already in effect)" "$RC $(counts types2)" "0 7 0 7 0 0"
run records --provider cloudflare --cloudflare-api-endpoint "$URL/client/v4" --cloudflare-ca-file "$T/ca.pem" \
	--cloudflare-zone-id "$Z1" >"$T/records.out" 2>"$T/records.err"
check "dnsbatch records lists the SRV records" grep -q '_sip._tcp.example.com.*SRV.*10 5 5060 sip.example.com.' "$T/records.out"
plan "$T/sshfp.plan.json" create="$(list "$(ep host.example.com SSHFP 300 '1 1 0123456789abcdef0123456789abcdef01234567')" \
	"$(ep fine.example.com A 300 192.0.2.77)")"
before=$(stat .batches)
apply sshfp "$T/sshfp.plan.json" --cloudflare-zone-id "$Z1"
eq "SSHFP (a type the provider does not write): dropped invalid, the A applied (exit 3)" \
	"$RC $(counts sshfp) $(drop sshfp host.example.com | cut -d' ' -f1,2)" "3 2 1 0 1 0 dropped invalid"
eq "SSHFP: dropped before anything was sent (one batch, the A's)" "$(($(stat .batches) - before))" 1
check "SSHFP: the drop says the provider writes no such record" grep -q "writes no record of this type" "$T/sshfp.drops"
clean_requests types
kill "$FAKE_PID"

# ---- 10 names holding a CNAME and 1,000 A creates, 10 of them at those names ----
for i in $(seq 0 9); do echo "$Z1 c$i.example.com 300 CNAME www.example.com"; done >"$T/cnames.seed"
creates "$T/cn.plan.json" 990 a example.com 10.0
jq --slurpfile x <(for i in $(seq 0 9); do ep "c$i.example.com" A 300 "192.0.2.$((100 + i))"; done) \
	'.create += $x' "$T/cn.plan.json" >"$T/cnames.plan.json"
start_cf cnames --seed "$T/cnames.seed" --page-size 100 || exit 1
apply cnames "$T/cnames.plan.json" --cloudflare-zone-id "$Z1" --timeout 300
eq "CNAME rule: 990 applied, the 10 beside a CNAME dropped (exit 3)" "$RC $(counts cnames)" "3 1000 990 0 10 0"
eq "CNAME rule: each drop names the CNAME in the way" "$(jq -r .cause "$T/cnames.drops" | sort | uniq -c | tr -s ' ')" \
	" 10 cname"
# Batches of 200: the one holding the 10 is refused once by the pre-check naming all of them, then sent
# without them: 6 submissions, 5 POSTs. Cloudflare names one culprit per refusal: without the rule each
# of the 10 cost a POST refused (15 submissions, 15 POSTs, 151 requests).
le "CNAME rule: at most 6 submissions (15 without the rule)" "$(rep cnames .submissions)" 6
le "CNAME rule: at most 5 batches posted (15 without the rule)" "$(stat .batches)" 5
echo "# cnames: $(rep cnames .submissions) submissions, $(stat .batches) batches posted, $(stat .requests) requests"
clean_requests cnames
kill "$FAKE_PID"

# ---- each documented form of an error naming its operation ----
# A CNAME another client makes at r1 between the pre-check's read and the POST: only Cloudflare can
# refuse r1's A, in one of three forms; named, it is set apart at once and the other seven go in the
# next submission (2 in all); a form not read would cost a search by halves.
for form in pointer message; do
	start_cf "form-$form" --seed "$T/seed" --fault race --race "r1.example.com CNAME www.example.com" \
		--error-names "$form" || exit 1
	plan "$T/form.plan.json" create="$(list $(for i in $(seq 1 8); do ep "r$i.example.com" A 300 "192.0.2.$((10 + i))"; done))"
	apply "form-$form" "$T/form.plan.json" --cloudflare-zone-id "$Z1"
	eq "error form '$form': r1 dropped with Cloudflare's 81054, the other 7 applied (exit 3)" \
		"$RC $(counts "form-$form") $(drop "form-$form" r1.example.com | cut -d' ' -f1-4)" \
		"3 8 7 0 1 0 dropped conflict 400 81054"
	eq "error form '$form': named at once: 2 submissions" "$(rep "form-$form" .submissions)" 2
	clean_requests "form-$form"
	kill "$FAKE_PID"
done
# Another client deletes gone's record before the POST: Cloudflare names the delete by its record id.
start_cf form-id --seed "$T/seed" --fault racedel --race "gone.example.com A 192.0.2.9" --error-names id || exit 1
plan "$T/formid.plan.json" delete="$(list "$(ep gone.example.com A 300 192.0.2.9)")" \
	create="$(list $(for i in $(seq 1 7); do ep "r$i.example.com" A 300 "192.0.2.$((10 + i))"; done))"
apply form-id "$T/formid.plan.json" --cloudflare-zone-id "$Z1"
eq "error form 'id': the delete named by its record id; in effect after all (already_applied), the 7 applied" \
	"$RC $(counts form-id)" "0 8 7 1 0 0"
eq "error form 'id': named at once: 2 submissions" "$(rep form-id .submissions)" 2
clean_requests form-id
kill "$FAKE_PID"

[ "$failures" -eq 0 ]
