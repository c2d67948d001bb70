#!/usr/bin/env bash
#
# test_azure_names.sh - record sets whose name or TTL dnsbatch cannot represent, against
# tests/fakes/fake_azure.py (found by fuzz_azure; the units are tests/unit/test_azure_names.c):
#   - a name ldns refuses (a..b, a label over 63 octets) read as out of memory, and the whole
#     listing failed: now left out with an info line naming it and why, the rest listed;
#   - a TTL outside 0..2147483647 (RFC 2181 section 8) wrapped (-1 read as 4294967295, 4294967301
#     as 5), so a delete of "wrap A 5" would delete it: now a conflict named unrepresentable,
#     never written over or deleted, by a GET by name and by the listing alike.
#
# Prints "ok - NAME" or "not ok - NAME" per check; exits 1 if any failed.
# Env: DNSBATCH (default build/dnsbatch), DNSB_KEEP_TMP=1 to keep the temp dir.
. "$(dirname "$0")/checks.sh"
test_begin

. tests/integration/azure_fake.sh

fake_begin jsonschema python3-jsonschema openssl jq curl python3

# held: every record set the fake holds, one a line "NAME TYPE PROPERTIES" (sorted)
held() {
	curl -s --max-time 10 --cacert "$T/ca.pem" "$URL/_fake/zone/example.com" |
		jq -r '.rrsets[] | "\(.name) \(.type) \(.records | tojson) \(.ttl)"' | sort
}

LONG=$(head -c 64 /dev/zero | tr '\0' l)
{
	printf 'example.com a..b A {"TTL":300,"ARecords":[{"ipv4Address":"192.0.2.1"}]}\n'
	printf 'example.com %s A {"TTL":300,"ARecords":[{"ipv4Address":"192.0.2.2"}]}\n' "$LONG"
	printf 'example.com neg A {"TTL":-1,"ARecords":[{"ipv4Address":"192.0.2.3"}]}\n'
	printf 'example.com wrap A {"TTL":4294967301,"ARecords":[{"ipv4Address":"192.0.2.4"}]}\n'
	printf 'example.com big TXT {"TTL":2147483648,"TXTRecords":[{"value":["v"]}]}\n'
	printf 'example.com www A {"TTL":300,"ARecords":[{"ipv4Address":"192.0.2.5"}]}\n'
} >"$T/names.seed"
start_fake names --seed "$T/names.seed" || exit 1
before=$(held)

##### the listing ###################################################################################
run records "${AZ_FLAGS[@]}" >"$T/names.records" 2>"$T/names.records.err"
eq "records: exit 0 (a bad name is not out of memory)" "$?" 0
check "records: no out of memory" bash -c "! grep -qi 'out of memory' '$T/names.records.err'"
check "records: the good record set listed" grep -qE '^www\.example\.com\.\s+300\s+IN\s+A\s+192\.0\.2\.5$' "$T/names.records"
eq "records: none of the five listed" "$(grep -cE "^(a\.\.b|$LONG|neg|wrap|big)\." "$T/names.records")" 0
check "records: a..b named, with ldns's reason" grep -q "a\.\.b\.example\.com\. A: a name dnsbatch cannot read (Empty label)" \
	"$T/names.records.err"
check "records: the 64-octet label named" grep -q "$LONG\.example\.com\. A: a name dnsbatch cannot read (Label length overflow)" \
	"$T/names.records.err"
check "records: TTL -1 named" grep -q "neg\.example\.com\. A: a TTL of -1, outside 0\.\.2147483647" "$T/names.records.err"
check "records: TTL 4294967301 named, not read as 5" grep -q "wrap\.example\.com\. A: a TTL of 4294967301, outside" \
	"$T/names.records.err"
check "records: TTL 2147483648 named" grep -q "big\.example\.com\. TXT: a TTL of 2147483648, outside" "$T/names.records.err"

##### never written over or deleted #################################################################
# One change: read by a GET by name. "wrap A 5" is what the wrapped read made of it.
plan "$T/del1.plan.json" delete="$(list "$(ep wrap.example.com A 5 192.0.2.4)")"
apply del1 "$T/del1.plan.json" --max-retries 0
eq "delete of wrap A 5 (GET): dropped as a conflict, named unrepresentable" "$RC $(drop del1 wrap.example.com)" \
	"3 dropped conflict 0 unrepresentable"
# Many changes at once, with the good one: read by the listing.
plan "$T/many.plan.json" delete="$(list "$(ep neg.example.com A 300 192.0.2.3)" \
	"$(ep wrap.example.com A 5 192.0.2.4)")" \
	create="$(list "$(ep big.example.com TXT 300 '"w"')" "$(ep new.example.com A 300 192.0.2.9)")" \
	updateOld="$(list "$(ep www.example.com A 300 192.0.2.5)")" updateNew="$(list "$(ep www.example.com A 300 192.0.2.6)")"
apply many "$T/many.plan.json" --max-retries 0 --azure-max-in-flight 1
eq "a batch beside them: the good changes applied, the three dropped" "$(counts many)" "5 2 0 3 0"
eq "delete of neg A: a conflict, named" "$(drop many neg.example.com)" "dropped conflict 0 unrepresentable"
eq "create at big TXT: a conflict, named" "$(drop many big.example.com)" "dropped conflict 0 unrepresentable"
after=$(held)
eq "the five record sets untouched" "$(grep -vE '^(www|new) ' <<<"$after")" "$(grep -vE '^(www|new) ' <<<"$before")"
check "the good update and create landed" grep -q '^www A \[{"ipv4Address":"192.0.2.6"}\] 300' <<<"$after"
clean_requests names
stop_fake

echo "# $failures failed"
[ "$failures" -eq 0 ]
