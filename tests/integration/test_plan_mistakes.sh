#!/usr/bin/env bash
# test_plan_mistakes.sh - the mistakes users make with `dnsbatch apply` (issue 33 §3), through the real binary: each
# told with the place and the fix, with the exit code the README promises (2: nothing sent; 3: some dropped).
. "$(dirname "$0")/checks.sh"
test_begin
. tests/integration/servers.sh
dnsb_servers_init
T=$(dnsb_newdir mistakes) || exit 1

ZONE0=$ROOT/examples/zones/example.com.zone
# run NAME PLAN-TEXT [ARGS...]: the plan written to $T/NAME.json, applied to a fresh copy of the example zone;
# stdout in $T/NAME.out, stderr in $T/NAME.err, RC set
run() {
	local n=$1
	printf '%s' "$2" >"$T/$n.json"
	shift 2
	cp "$ZONE0" "$T/$n.zone"
	"$DNSBATCH" apply --plan "$T/$n.json" --provider zonefile --zonefile "example.com=$T/$n.zone" "$@" \
		>"$T/$n.out" 2>"$T/$n.err"
	RC=$?
}
untouched() { cmp -s "$ZONE0" "$T/$1.zone"; }
A='{"dnsName":"new.example.com","targets":["192.0.2.7"],"recordType":"A"}'

##### not a plan ##############################################################################################

run r53 '{"Changes":[{"Action":"CREATE","ResourceRecordSet":{"Name":"new.example.com","Type":"A","TTL":300,"ResourceRecords":[{"Value":"192.0.2.7"}]}}]}'
eq "a Route53 change batch: exit 2" "$RC" 2
check "... says what was expected and what it looks like" grep -Fq \
	"$T/r53.json: \$: expected an object with create, updateOld, updateNew and delete lists (an external-dns plan); this one has only the key Changes: it looks like a Route53 change batch" "$T/r53.err"
check "... the zone is untouched" untouched r53
run nolists '{"creates":['"$A"']}'
eq "an object with none of the four lists: exit 2" "$RC" 2
check "... names its keys" grep -Fq "this one has only the key creates" "$T/nolists.err"
run empty '{}'
eq "{} (external-dns's no changes): exit 0" "$RC" 0
run legacy '{"Create":null,"UpdateOld":null,"UpdateNew":null,"Delete":null}'
eq "the four legacy lists, null: exit 0" "$RC" 0

##### strict JSON #############################################################################################

run comma '{"create":['"$A"',
]}'
eq "a trailing comma: exit 2" "$RC" 2
check "... named, with its line and column" grep -Fq \
	"$T/comma.json:2:1 (offset 83): not JSON: a comma before the closing bracket (RFC 8259 JSON allows no trailing comma)" "$T/comma.err"
check "... the zone is untouched" untouched comma
run bom $'\xef\xbb\xbf{"create":['"$A"']}'
eq "a UTF-8 byte order mark: skipped, the plan applied (exit 0)" "$RC" 0
check "... the record is in the zone" grep -q '^new\.example\.com\.[[:space:]].*192\.0\.2\.7' "$T/bom.zone"

##### --plan given a directory ###############################################################################

cp "$ZONE0" "$T/dir.zone"
"$DNSBATCH" apply --plan "$T" --provider zonefile --zonefile "example.com=$T/dir.zone" >"$T/dir.out" 2>"$T/dir.err"
eq "--plan given a directory: exit 2" "$?" 2
check "... says the plan is one file" grep -Fq "$T: Is a directory: the plan is one file, external-dns's POST /records body as JSON" "$T/dir.err"

##### a plan that creates and deletes one RRset ##############################################################

run cd '{"create":['"$A"'],"delete":[{"dnsName":"new.example.com","targets":["192.0.2.7"],"recordType":"A"}]}'
eq "a create and a delete of one RRset: both dropped, exit 3" "$RC" 3
check "... invalid, naming both JSON paths" grep -Fq \
	'invalid ($.create[0] and $.delete[0] (new.example.com. A): the plan both creates and deletes this RRset, with the same records; neither is sent' "$T/cd.err"
check "... nothing sent" untouched cd

##### refusals that name their cause #########################################################################

run apex '{"create":[{"dnsName":"example.com","targets":["site.example.net"],"recordType":"CNAME"}]}' --drop-log "$T/apex.drops"
eq "a CNAME at the zone apex: dropped, exit 3" "$RC" 3
check "... says apex, and what to use" grep -Fq \
	"dropped create example.com. CNAME: cname at the zone apex (the apex holds SOA and NS, and a CNAME stands alone at its name: use A/AAAA records, or the provider's alias)" "$T/apex.err"
check "... and dnsbatch drops --explain says it too" grep -Fq \
	"dropped create example.com. CNAME: cname at the zone apex (the apex holds SOA and NS" <("$DNSBATCH" drops "$T/apex.drops" --explain)
run type '{"create":[{"dnsName":"t.example.com","targets":["x"],"recordType":"FOO"}]}'
eq "an unknown record type: dropped, exit 3" "$RC" 3
check "... says which types are known" grep -Fq \
	"unknown recordType 'FOO': known are A, AAAA, CAA, CNAME, DS, HTTPS, MX, NAPTR, NS, PTR, SRV, SSHFP, SVCB, TLSA, TXT" "$T/type.err"
check "... and no TYPE0" sh -c '! grep -q TYPE0 "$1"' _ "$T/type.err"

##### singular and plural ###################################################################################

run one '{"create":['"$A"']}'
eq "one change: exit 0" "$RC" 0
check "the summary says 1 change, 1 batch, 1 submission, 0 retries" grep -Fq \
	"dnsbatch: 1 change: 1 applied, 0 already applied, 0 dropped, 0 failed (1 batch, 1 submission, 0 reads, 0 bisections, 0 retries," "$T/one.err"
check "... and the zone's line 1 change" grep -Eq '^  example\.com\. +1 change: 1 applied' "$T/one.err"
run onedry '{"create":['"$A"']}' --dry-run
check "a dry run says 1 change, 1 batch" grep -Fq "dry run: 1 change, 1 batch, 0 dropped before sending" "$T/onedry.err"
check "... and its batch 1 change" grep -Fxq "batch 1 zone example.com.: 1 change" "$T/onedry.out"

run onedrop '{"create":[{"dnsName":"x.example.com","targets":["999.1.1.1"],"recordType":"A"}]}' --drop-log "$T/one.drops"
eq "dnsbatch drops of one dropped change: 1 change" "$("$DNSBATCH" drops "$T/one.drops" | tail -1)" "1 change in $T/one.drops"

##### --summary: the totals only ############################################################################

many=$(for i in $(seq 1 600); do printf '%s{"dnsName":"h%d.example.com","targets":["192.0.2.1"],"recordType":"A"}' \
	"$([ "$i" = 1 ] || echo ,)" "$i"; done)
run many '{"create":['"$many"']}' --dry-run
ge "a dry run of 600 changes lists them ($(wc -l <"$T/many.out") lines)" "$(wc -l <"$T/many.out")" 600
run sum '{"create":['"$many"']}' --dry-run --summary
eq "--dry-run --summary: exit 0" "$RC" 0
eq "... nothing on stdout" "$(wc -c <"$T/sum.out" | tr -d ' ')" 0
check "... the totals on stderr" grep -Fq "dry run: 600 changes, 1 batch, 0 dropped before sending; nothing sent" "$T/sum.err"
run sumjson '{"create":['"$many"']}' --dry-run --summary --output json
eq "--dry-run --summary --output json: the totals, no batches" \
	"$(jq -c '[.changes, .batches, has("dry_run_batches"), .exit_code]' "$T/sumjson.out")" "[600,1,false,0]"
le "... in a few hundred bytes ($(wc -c <"$T/sumjson.out") bytes)" "$(wc -c <"$T/sumjson.out")" 1000

##### the progress line is erased before a log line ##########################################################

if command -v script >/dev/null 2>&1; then
	for i in $(seq 0 39); do printf '%s{"dnsName":"h%d.example.test","targets":["10.0.0.%d"],"recordType":"A"}' \
		"$([ "$i" = 0 ] || echo ,)" "$i" "$i"; done | { printf '{"create":['; cat; printf ']}'; } >"$T/p40.json"
	# 40 submissions of 0.03 s: the line is drawn (every 0.2 s) before the drop's warning at the end. script(1) gives
	# the run a terminal.
	script -q -e -c "'$DNSBATCH' apply --plan '$T/p40.json' --provider memory --memory-zone example.test \
		--batch-size 1 --memory-faults '*:latency=0.03,20:conflict' >/dev/null" /dev/null >"$T/tty.out" 2>&1
	eq "on a terminal, a conflict dropped: exit 3" "$?" 3
	check "... the progress line was drawn" grep -Eq 'dnsbatch: [0-9]+ of 40 changes' "$T/tty.out"
	check "... and erased before the warning" grep -Fq "$(printf '\r\033[K')$(date -u +%Y)" "$T/tty.out"
	check "... no log line glued to it" sh -c '! grep -Eq "(left|unknown)[0-9]{4}-" "$1"' _ "$T/tty.out"
else
	not_ok "script(1) is installed (util-linux)"
fi

##### the metrics file says how the run ended ################################################################

metric() { sed -n "s/^$1 //p" "$2"; }
run mok '{"create":['"$A"']}' --metrics-file "$T/ok.prom"
eq "exit 0: dnsbatch_last_apply_success 1, dnsbatch_last_apply_exit_code 0" \
	"$(metric dnsbatch_last_apply_success "$T/ok.prom") $(metric dnsbatch_last_apply_exit_code "$T/ok.prom")" "1 0"
run mplan '{"Changes":[]}' --metrics-file "$T/plan.prom"
eq "a plan refused (exit 2): the file is written all the same, success 0, exit code 2" \
	"$RC $(metric dnsbatch_last_apply_success "$T/plan.prom") $(metric dnsbatch_last_apply_exit_code "$T/plan.prom")" "2 0 2"
check "... with the time of the run" grep -Eq '^dnsbatch_last_apply_timestamp_seconds [1-9][0-9]{9}$' "$T/plan.prom"
cp "$ZONE0" "$T/m4.zone"
"$DNSBATCH" apply --plan "$T/mok.json" --provider memory --memory-zone example.com --memory-faults '*:transient' \
	--max-retries 1 --backoff-base 0.01 --backoff-cap 0.01 --metrics-file "$T/m4.prom" >/dev/null 2>&1
eq "exit 4 (failed): success 0, exit code 4" \
	"$? $(metric dnsbatch_last_apply_success "$T/m4.prom") $(metric dnsbatch_last_apply_exit_code "$T/m4.prom")" "4 0 4"
if command -v promtool >/dev/null 2>&1; then
	check "promtool check metrics passes" sh -c 'promtool check metrics <"$1" && promtool check metrics <"$2"' _ "$T/ok.prom" "$T/plan.prom"
fi

##### the sidecar reads POST /records the same way ############################################################
# external-dns's Go encoder writes neither a trailing comma nor a byte order mark: the same strict reader costs it
# nothing, and another client's mistake is a 400 naming it.

api=$(dnsb_free_port) && mon=$(dnsb_free_port)
"$DNSBATCH" serve --provider memory --memory-zone example.com --listen "127.0.0.1:$api" --metrics-listen "127.0.0.1:$mon" \
	2>"$T/serve.err" &
spid=$!
DNSB_SERVERS_PIDS+=("$spid")
if dnsb_wait_healthz "$spid" "$mon"; then
	post() { # BODY: POST /records, the status code; the answer in $T/post.out
		printf '%s' "$1" >"$T/post.json"
		curl -s -o "$T/post.out" -w '%{http_code}' -H 'Content-Type: application/external.dns.webhook+json;version=1' \
			--data-binary "@$T/post.json" "http://127.0.0.1:$api/records"
	}
	eq "POST /records {}: 204 (external-dns's no changes)" "$(post '{}')" 204
	eq "POST /records with a trailing comma: 400" "$(post '{"create":['"$A"',]}')" 400
	check "... naming it" grep -Fq "POST /records:1:83 (offset 82): not JSON: a comma before the closing bracket" "$T/post.out"
	eq "POST /records with a Route53 change batch: 400" "$(post '{"Changes":[]}')" 400
	check "... saying what it looks like" grep -Fq "it looks like a Route53 change batch" "$T/post.out"
else
	not_ok "serve starts" "$(tail -3 "$T/serve.err")"
fi

[ "$failures" -eq 0 ]
