#!/usr/bin/env bash
#
# test_pdns.sh - the pdns provider through the dnsbatch binary against a real
# PowerDNS Authoritative server (pdns_server 4.7, gsqlite3 backend, Debian's
# packages), started by tests/integration/servers.sh on free loopback ports
# in a temp dir with a random API key and stopped by PID at the end (also
# when a check fails). What the server holds is checked with dig on its DNS
# port and through its API; https through a small TLS proxy (python3) with a
# CA made here by openssl.
#
# Prints "ok - NAME" or "not ok - NAME" per check; exits 1 if any failed.
# Env: DNSBATCH (default build/dnsbatch), DNSB_KEEP_TMP=1 to keep the temp dir.
. "$(dirname "$0")/checks.sh"
test_begin
. tests/integration/servers.sh
dnsb_test_pdns example.test pdns_server sqlite3 dig jq curl openssl python3
ok "pdns_server starts with the gsqlite3 backend on free ports"
PDIR=$DNSB_SERVER_DIR
DNSPORT=$DNSB_SERVER_PORT
URL=$DNSB_PDNS_URL
KEYFILE=$DNSB_PDNS_KEYFILE
API=$URL/api/v1/servers/localhost/zones/example.test.

# api METHOD [BODY]: the zone through the API with the real key
api() { curl -s -H "X-API-Key: $(cat "$KEYFILE")" -H 'Content-Type: application/json' -X "$1" ${2:+-d "$2"} "$API"; }
# seed "NAME TYPE TTL CONTENT" ...: REPLACE each RRset (one record) through the API, behind dnsbatch's back
seed() {
	local line rrsets='[]' n t ttl c
	for line in "$@"; do
		read -r n t ttl c <<<"$line"
		rrsets=$(jq -c --arg n "$n" --arg t "$t" --argjson ttl "$ttl" --arg c "$c" \
			'. + [{name: $n, type: $t, ttl: $ttl, changetype: "REPLACE", records: [{content: $c, disabled: false}]}]' <<<"$rrsets")
	done
	api PATCH "{\"rrsets\": $rrsets}"
}
# zone: every RRset but SOA and NS, "name ttl type content,content", sorted
zone() { api GET | jq -r '.rrsets[] | select(.type != "SOA" and .type != "NS") |
	"\(.name) \(.ttl) \(.type) \([.records[].content] | sort | join(","))"' | sort; }
# q NAME TYPE: what the server answers on its DNS port
q() { dig +short +norec +tries=1 +time=2 -p "$DNSPORT" @127.0.0.1 "$1" "$2" | sort | paste -sd, -; }

# apply NAME PLAN [flags...]: dnsbatch apply; sets RC; leaves $T/NAME.json, .err, .drops
apply() {
	local name=$1 planfile=$2
	shift 2
	rm -f "$T/$name.drops"
	"$DNSBATCH" apply --plan "$planfile" --provider pdns --pdns-server "$URL" --pdns-api-key-file "$KEYFILE" \
		--backoff-base 0.01 --backoff-cap 0.05 "$@" \
		--drop-log "$T/$name.drops" --output json >"$T/$name.json" 2>"$T/$name.err"
	RC=$?
	touch "$T/$name.drops"
}
key_absent() {
	local hits
	hits=$(grep -cF "$(cat "$KEYFILE")" "$T/$1.err" "$T/$1.json" "$T/$1.drops" | awk -F: '{s += $NF} END {print s + 0}')
	eq "$1: the API key is in no output and no drop log" "$hits" 0
}

##### create, update, delete: visible by dig ########################################################

seed "old.example.test. A 300 192.0.2.50" "gone.example.test. TXT 300 \"bye\"" >/dev/null
plan "$T/basic.plan" \
	create="$(list "$(ep www.example.test A 300 192.0.2.1 192.0.2.2)" "$(ep alias.example.test CNAME 600 www.example.test)" \
		"$(ep txt.example.test TXT 300 'hello world')" "$(ep mx.example.test MX 300 '10 mail.example.test')")" \
	updateOld="$(list "$(ep old.example.test A 300 192.0.2.50)")" updateNew="$(list "$(ep old.example.test A 120 192.0.2.51)")" \
	delete="$(list "$(ep gone.example.test TXT 300 '"bye"')")"
apply basic "$T/basic.plan"
eq "basic: exit 0" "$RC" 0
eq "basic: 6 changes applied" "$(counts basic)" "6 6 0 0 0"
eq "basic: 1 submission, 0 reads" "$(rep basic '"\(.submissions) \(.reads)"')" "1 0"
eq "basic: dig sees the A RRset" "$(q www.example.test A)" "192.0.2.1,192.0.2.2"
eq "basic: dig sees the CNAME" "$(q alias.example.test CNAME)" "www.example.test."
eq "basic: dig sees the TXT" "$(q txt.example.test TXT)" '"hello world"'
eq "basic: dig sees the MX" "$(q mx.example.test MX)" "10 mail.example.test."
eq "basic: dig sees the update" "$(q old.example.test A)" "192.0.2.51"
eq "basic: the update's TTL" "$(zone | grep '^old\.' | cut -d' ' -f2)" 120
eq "basic: dig sees the delete" "$(q gone.example.test TXT)" ""
key_absent basic

# The same plan again: every change is in effect already (verify before drop), nothing written.
serial=$(api GET | jq .serial)
apply again "$T/basic.plan"
eq "again: exit 0, 6 already applied" "$RC $(counts again)" "0 6 0 6 0 0"
eq "again: the zone's serial did not move" "$(api GET | jq .serial)" "$serial"

# dnsbatch records lists the zone through GET of the zone; zones found by GET .../zones.
"$DNSBATCH" records --provider pdns --pdns-server "$URL" --pdns-api-key-file "$KEYFILE" >"$T/records.out" 2>"$T/records.err"
eq "records: exit 0" "$?" 0
check "records: lists the CNAME" grep -q "^alias.example.test.	600	IN	CNAME	www.example.test.$" "$T/records.out"
eq "records: every RRset the server holds" "$(cut -f1,4 "$T/records.out" | sort -u | wc -l | tr -d ' ')" \
	"$(api GET | jq '.rrsets | length')"

# The key from the environment works as well as from the file.
plan "$T/env.plan" create="$(list "$(ep env.example.test A 300 192.0.2.9)")"
DNSBATCH_PDNS_API_KEY=$(cat "$KEYFILE") "$DNSBATCH" apply --plan "$T/env.plan" --provider pdns --pdns-server "$URL" \
	--pdns-zone example.test --output json >"$T/env.json" 2>"$T/env.err"
eq "key from \$DNSBATCH_PDNS_API_KEY: exit 0" "$?" 0
eq "key from \$DNSBATCH_PDNS_API_KEY: applied" "$(q env.example.test A)" 192.0.2.9

##### old records without a TTL (external-dns's registry sends recordTTL 0): any TTL held matches #####

seed "a-reg.example.test. TXT 600 \"heritage=external-dns,external-dns/owner=default\"" "reg.example.test. A 600 192.0.2.80" >/dev/null
plan "$T/unset.plan" \
	updateOld="$(list "$(ep reg.example.test A 0 192.0.2.80)")" updateNew="$(list "$(ep reg.example.test A 300 192.0.2.81)")" \
	delete="$(list "$(ep a-reg.example.test TXT 0 'heritage=external-dns,external-dns/owner=default')")"
apply unset "$T/unset.plan"
eq "old RRsets without a TTL: exit 0, both applied" "$RC $(counts unset)" "0 2 2 0 0 0"
eq "old RRsets without a TTL: the update is served" "$(q reg.example.test A)" 192.0.2.81
eq "old RRsets without a TTL: the ownership record is gone" "$(q a-reg.example.test TXT)" ""

##### a CNAME replaced by an A record in one PATCH: the DELETE goes first ###########################

seed "flip.example.test. CNAME 300 www.example.test." >/dev/null
plan "$T/flip.plan" create="$(list "$(ep flip.example.test A 300 192.0.2.77)")" \
	delete="$(list "$(ep flip.example.test CNAME 300 www.example.test)")"
apply flip "$T/flip.plan"
eq "CNAME to A in one PATCH: exit 0, both applied" "$RC $(counts flip)" "0 2 2 0 0 0"
eq "CNAME to A in one PATCH: one submission" "$(rep flip .submissions)" 1
eq "CNAME to A in one PATCH: dig sees the A" "$(q flip.example.test A)" 192.0.2.77
eq "CNAME to A in one PATCH: the CNAME is gone" "$(q flip.example.test CNAME)" ""

##### every conflict kind, isolated with everything else applied ###################################
# Pre-check mismatches (create over an existing RRset, update and delete of old data that differs or
# is missing), a server-side CNAME conflict (PowerDNS 422 "Conflicts with pre-existing RRset"), and
# invalid content (PowerDNS 422 on records ldns accepts) among 40 good creations, in one batch.

seed "taken.example.test. A 300 192.0.2.60" "differs.example.test. A 300 192.0.2.61" \
	"busy.example.test. A 300 192.0.2.62" >/dev/null
creates "$T/good.plan" 40 good example.test 10.1
jq --argjson c "$(list "$(ep taken.example.test A 300 192.0.2.99)" "$(ep busy.example.test CNAME 300 www.example.test)" \
	"$(ep example.test DS 300 '12345 8 2 49FD46E6C4B45C55D4AC69CBD3CD34AC1AFE51DE')" \
	"$(ep svcb.example.test SVCB 300 '0 . alpn=h2')")" \
	--argjson o "$(list "$(ep differs.example.test A 300 192.0.2.1)")" \
	--argjson n "$(list "$(ep differs.example.test A 300 192.0.2.2)")" \
	--argjson d "$(list "$(ep missing.example.test A 300 192.0.2.3)")" \
	'.create = (.create[:20] + $c + .create[20:]) | .updateOld = $o | .updateNew = $n | .delete = $d' \
	"$T/good.plan" >"$T/conf.plan"
apply conf "$T/conf.plan"
eq "conflicts: exit 3" "$RC" 3
# The delete of a missing RRset is refused by the pre-check, and the read then finds its desired state
# (absent) in effect: already_applied.
eq "conflicts: changes applied already_applied dropped failed" "$(counts conf)" "46 40 1 5 0"
eq "conflicts: every good record is served" "$(zone | grep -c '^good')" 40
eq "conflicts: drop log reasons" "$(jq -rs 'group_by(.reason) | map("\(.[0].reason)=\(length)") | join(" ")' "$T/conf.drops")" \
	"conflict=3 invalid=2"
eq "conflicts: create over an existing RRset: pre-check, cause exists" "$(drop conf taken.example.test cause)" \
	"dropped conflict 0 precheck exists"
eq "conflicts: update of other data: pre-check, cause differs" "$(drop conf differs.example.test cause)" \
	"dropped conflict 0 precheck differs"
eq "conflicts: the pre-check's three drops each say what it found of their own change" \
	"$(jq -rs '[.[] | select(.code == "precheck") | ([.change[][]?][0].dnsName) as $n |
		.message | test("^(create|update|delete) " + $n + "\\. [A-Z]+: ")] | length == 3 and all' "$T/conf.drops")" true
eq "conflicts: delete of a missing RRset: refused by the pre-check, already in effect" "$(drop conf missing.example.test cause)" ""
# RFC 1034's CNAME rule, which PowerDNS enforces (422), is found by the pre-check before the PATCH (issue 31).
eq "conflicts: CNAME beside an A record: pre-check, cause cname" "$(drop conf busy.example.test cause)" \
	"dropped conflict 0 precheck cname"
check "conflicts: the CNAME drop says what the pre-check found" \
	grep -q 'create busy.example.test. CNAME: a CNAME and other data at one name' "$T/conf.drops"
eq "conflicts: DS at the apex: invalid, 422" "$(drop conf example.test | cut -d' ' -f1-3)" "dropped invalid 422"
eq "conflicts: SVCB content PowerDNS cannot parse: invalid, 422" "$(drop conf svcb.example.test | cut -d' ' -f1-3)" \
	"dropped invalid 422"
eq "conflicts: taken kept its data" "$(q taken.example.test A)" 192.0.2.60
eq "conflicts: busy kept its A record" "$(q busy.example.test A)" 192.0.2.62
# The pre-check names all three mismatches in one reply: they cost no bisection of their own.
le "conflicts: submissions (one pre-check names all 3 mismatches; bisection for the 3 server refusals)" \
	"$(rep conf .submissions)" 16
le "conflicts: engine reads" "$(rep conf .reads)" 8

# k pre-check conflicts alone: one refused submission names all of them, one read settles them,
# one PATCH sends the rest.
seed "pre1.example.test. A 300 192.0.2.71" "pre2.example.test. A 300 192.0.2.72" "pre3.example.test. A 300 192.0.2.73" >/dev/null
creates "$T/pre.plan" 30 fresh example.test 10.1
jq --argjson c "$(list "$(ep pre1.example.test A 300 192.0.2.1)" "$(ep pre2.example.test A 300 192.0.2.1)" \
	"$(ep pre3.example.test A 300 192.0.2.1)")" '.create = (.create[:10] + $c + .create[10:])' "$T/pre.plan" >"$T/pre3.plan"
apply pre "$T/pre3.plan"
eq "3 pre-check conflicts: exit 3, 30 applied, 3 dropped" "$RC $(counts pre)" "3 33 30 0 3 0"
eq "3 pre-check conflicts: 2 submissions (one PATCH), 1 read" "$(rep pre '"\(.submissions) \(.reads)"')" "2 1"
eq "3 pre-check conflicts: one split, by the culprit list (no halving)" "$(rep pre .bisections)" 1

##### a wrong key: found at start (GET .../servers/ID), exit 2 naming the 401, nothing sent ############

wrong=$T/wrong.key
(umask 077 && echo "not-the-key" >"$wrong")
creates "$T/wrong.plan" 5 wrongkey example.test 10.1
"$DNSBATCH" apply --plan "$T/wrong.plan" --provider pdns --pdns-server "$URL" --pdns-api-key-file "$wrong" \
	--pdns-zone example.test --drop-log "$T/wrong.drops" --output json >"$T/wrong.json" 2>"$T/wrong.err"
RC=$?
eq "wrong key: exit 2 (a setup fault, nothing sent)" "$RC" 2
check "wrong key: stderr names the 401, the key's source and the fix" \
	grep -q 'refused the API key from --pdns-api-key-file (HTTP 401): it must equal api-key in pdns.conf' "$T/wrong.err"
eq "wrong key: nothing applied" "$(zone | grep -c '^wrongkey')" 0
"$DNSBATCH" records --provider pdns --pdns-server "$URL" --pdns-api-key-file "$wrong" >/dev/null 2>"$T/wrong-records.err"
eq "wrong key, zones from GET .../zones: refused at start, exit 2" "$?" 2
check "wrong key, zones from GET .../zones: the message names the 401" grep -q 'HTTP 401' "$T/wrong-records.err"
eq "wrong key: the key file's text is in no output" \
	"$(grep -cF "not-the-key" "$T/wrong.err" "$T/wrong.json" | awk -F: '{s += $NF} END {print s + 0}')" 0

##### the server stopped mid-run: transient -> failed; a second run finishes the plan ##############

creates "$T/big.plan" 500 run example.test 10.1
"$DNSBATCH" apply --plan "$T/big.plan" --provider pdns --pdns-server "$URL" --pdns-api-key-file "$KEYFILE" \
	--pdns-zone example.test --pdns-batch-change-size 1 --max-retries 2 --backoff-base 0.01 --backoff-cap 0.02 \
	--drop-log "$T/mid.drops" --output json >"$T/mid.json" 2>"$T/mid.err" &
run_pid=$!
for ((i = 0; i < 400; i++)); do
	[ "$(zone | grep -c '^run')" -ge 40 ] && break
	sleep 0.02
done
dnsb_stop_pid "$DNSB_SERVER_PID"
wait "$run_pid"
RC=$?
read -r changes applied already dropped failed <<<"$(counts mid)"
eq "server stopped mid-run: exit 4" "$RC" 4
check "server stopped mid-run: some applied before, some failed after ($applied applied, $failed failed)" \
	test "$applied" -gt 0 -a "$failed" -gt 0
eq "server stopped mid-run: every change has one outcome" "$((applied + already + dropped + failed))" 500
eq "server stopped mid-run: none dropped" "$dropped" 0
eq "server stopped mid-run: failed with reason transient" "$(jq -rs 'map(.reason) | unique | join(",")' "$T/mid.drops")" transient
if ! dnsb_restart_pdns "$PDIR" 2>"$T/restart.err"; then
	not_ok "pdns_server starts again on its database" "$(cat "$T/restart.err")"
	exit 1
fi
apply mid2 "$T/big.plan" --pdns-batch-change-size 50
eq "after the restart: exit 0" "$RC" 0
read -r changes applied2 already2 dropped2 failed2 <<<"$(counts mid2)"
# A change whose PATCH committed as the server went down failed (its read-back could not be made): the
# second run finds it in effect. So at most the failed ones are written, and none twice.
eq "after the restart: every change applied or in effect, none dropped or failed" \
	"$((applied2 + already2)) $dropped2 $failed2" "500 0 0"
le "after the restart: at most the $failed failed ones written ($applied2)" "$applied2" "$failed"
eq "after the restart: 500 records, each once" "$(zone | grep -c '^run')" 500
eq "after the restart: no record with two addresses" "$(zone | grep '^run' | grep -c ',')" 0
eq "after the restart: dig sees the last one" "$(q run499.example.test A)" 10.1.1.243

##### https with --pdns-ca-file: a TLS proxy in front of the API, its CA made here #################
# pdns_server 4.7 serves its API over plain HTTP; deployments put TLS in front. The proxy forwards
# each request as is (python3's http.server and ssl).

tls_setup() {
	openssl req -x509 -newkey rsa:2048 -nodes -keyout "$T/ca.key" -out "$T/ca.pem" -days 2 -subj /CN=dnsbatch-pdns-ca &&
	openssl req -newkey rsa:2048 -nodes -keyout "$T/server.key" -out "$T/server.csr" -subj /CN=127.0.0.1 &&
	printf 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n' >"$T/ext.cnf" &&
	openssl x509 -req -in "$T/server.csr" -CA "$T/ca.pem" -CAkey "$T/ca.key" -CAcreateserial -out "$T/server.pem" \
		-days 2 -extfile "$T/ext.cnf"
}
cat >"$T/tlsproxy.py" <<'PY'
import http.client, http.server, ssl, sys
upstream, cert, key, portfile = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
class Forward(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *args):
        pass
    def relay(self):
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        conn = http.client.HTTPConnection(upstream, timeout=10)
        headers = {k: v for k, v in self.headers.items() if k.lower() in ("x-api-key", "content-type", "accept")}
        conn.request(self.command, self.path, body=body or None, headers=headers)
        r = conn.getresponse()
        data = r.read()
        self.send_response(r.status)
        if r.getheader("Content-Type"):
            self.send_header("Content-Type", r.getheader("Content-Type"))
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
    do_GET = do_PATCH = do_POST = do_PUT = do_DELETE = relay
server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Forward)
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
ctx.load_cert_chain(cert, key)
server.socket = ctx.wrap_socket(server.socket, server_side=True)
open(portfile, "w").write(str(server.server_address[1]))
server.serve_forever()
PY
if ! tls_setup >"$T/pki.log" 2>&1; then
	not_ok "openssl makes the test CA and certificate" "$(tail -3 "$T/pki.log")"
else
	python3 "$T/tlsproxy.py" "${URL#http://}" "$T/server.pem" "$T/server.key" "$T/proxy.port" 2>"$T/proxy.err" &
	dnsb_track_pid $!
	for ((i = 0; i < 100; i++)); do
		[ -s "$T/proxy.port" ] && break
		sleep 0.05
	done
	HTTPS=https://127.0.0.1:$(cat "$T/proxy.port" 2>/dev/null)
	plan "$T/tls.plan" create="$(list "$(ep tls.example.test A 300 192.0.2.90)")"
	"$DNSBATCH" apply --plan "$T/tls.plan" --provider pdns --pdns-server "$HTTPS" --pdns-api-key-file "$KEYFILE" \
		--pdns-ca-file "$T/ca.pem" --output json >"$T/tls.json" 2>"$T/tls.err"
	eq "https with --pdns-ca-file: exit 0, applied" "$? $(counts tls)" "0 1 1 0 0 0"
	eq "https with --pdns-ca-file: dig sees it" "$(q tls.example.test A)" 192.0.2.90
	plan "$T/tls2.plan" create="$(list "$(ep tls2.example.test A 300 192.0.2.91)")"
	"$DNSBATCH" apply --plan "$T/tls2.plan" --provider pdns --pdns-server "$HTTPS" --pdns-api-key-file "$KEYFILE" \
		--pdns-zone example.test --drop-log "$T/tls2.drops" --output json >"$T/tls2.json" 2>"$T/tls2.err"
	eq "https without the CA: exit 4, failed fatal (the certificate does not verify)" \
		"$? $(jq -rs 'map(.reason) | unique | join(",")' "$T/tls2.drops")" "4 fatal"
	check "https without the CA: the message says why" grep -qi 'certificate' "$T/tls2.err"
	eq "https without the CA: nothing sent past TLS" "$(q tls2.example.test A)" ""
fi

##### disabled records and comments: carried, shown, in the way ##################################
# rrset NAME TYPE RECORDS-JSON [COMMENTS-JSON]: REPLACE one RRset through the API as another client would
rrset() {
	api PATCH "$(jq -cn --arg n "$1" --arg t "$2" --argjson r "$3" --argjson c "${4:-[]}" \
		'{rrsets: [{name: $n, type: $t, ttl: 300, changetype: "REPLACE", records: $r, comments: $c}]}')" >/dev/null
}
# full NAME TYPE: "content/disabled,..." (sorted) and the comments, of one RRset as PowerDNS holds it
full() { api GET | jq -r --arg n "$1" --arg t "$2" '.rrsets[] | select(.name == $n and .type == $t) |
	"\([.records[] | "\(.content)/\(.disabled)"] | sort | join(",")) comments=\([.comments[].content] | join("|"))"'; }
COMMENT='[{"content": "kept for the failover drill", "account": "ops"}]'
rrset mix.example.test. A '[{"content": "192.0.2.1", "disabled": false}, {"content": "192.0.2.99", "disabled": true}]' "$COMMENT"
plan "$T/mix.plan" updateOld="$(list "$(ep mix.example.test A 300 192.0.2.1)")" \
	updateNew="$(list "$(ep mix.example.test A 300 192.0.2.2)")"
apply mix "$T/mix.plan"
eq "disabled: an update of the enabled record applies" "$RC $(counts mix)" "0 1 1 0 0 0"
eq "disabled: the PATCH carries the disabled record and the comment" "$(full mix.example.test. A)" \
	"192.0.2.2/false,192.0.2.99/true comments=kept for the failover drill"
eq "disabled: dig serves only the enabled record" "$(q mix.example.test A)" 192.0.2.2
plan "$T/mixdel.plan" delete="$(list "$(ep mix.example.test A 300 192.0.2.2)")"
apply mixdel "$T/mixdel.plan"
eq "disabled: a delete of the enabled records applies" "$RC $(counts mixdel)" "0 1 1 0 0 0"
eq "disabled: the disabled record and the comment stay" "$(full mix.example.test. A)" \
	"192.0.2.99/true comments=kept for the failover drill"
"$DNSBATCH" records --provider pdns --pdns-server "$URL" --pdns-api-key-file "$KEYFILE" >"$T/records.out" 2>"$T/records.err"
check "disabled: records names the disabled record, marked" grep -q 'disabled record.*mix.example.test. 300 IN A 192.0.2.99' "$T/records.err"
check "disabled: records does not list it as served" bash -c "! grep -q '192.0.2.99' '$T/records.out'"
rrset off.example.test. A '[{"content": "192.0.2.98", "disabled": true}]' "$COMMENT"
plan "$T/off.plan" create="$(list "$(ep off.example.test A 300 192.0.2.3)")"
apply off "$T/off.plan"
eq "disabled: a create where disabled records are held is dropped (exit 3)" "$RC $(counts off)" "3 1 0 0 1 0"
eq "disabled: a conflict, cause exists" "$(drop off off.example.test cause)" "dropped conflict 0 precheck exists"
check "disabled: the drop names the disabled record" grep -q '192.0.2.98' "$T/off.drops"
eq "disabled: the disabled record and its comment are untouched" "$(full off.example.test. A)" \
	"192.0.2.98/true comments=kept for the failover drill"

##### another client writes in the window: the read-back after the PATCH sees it ##################
# A proxy in front of the API: it forwards every request; after forwarding dnsbatch's PATCH, and
# before answering it, it sends another client's PATCH (the file named by $T/other.json) itself.
cat >"$T/raceproxy.py" <<'PY'
import http.client, http.server, os, sys
upstream, other, portfile = sys.argv[1], sys.argv[2], sys.argv[3]
class Proxy(http.server.BaseHTTPRequestHandler):
    def relay(self):
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        conn = http.client.HTTPConnection(upstream)
        conn.request(self.command, self.path, body, {k: v for k, v in self.headers.items() if k.lower() != "host"})
        resp = conn.getresponse()
        data = resp.read()
        if self.command == "PATCH" and os.path.exists(other):
            with open(other, "rb") as f:
                late = f.read()
            os.unlink(other)
            c2 = http.client.HTTPConnection(upstream)
            c2.request("PATCH", self.path, late, {"X-API-Key": self.headers["X-API-Key"], "Content-Type": "application/json"})
            c2.getresponse().read()
        self.send_response(resp.status)
        for k, v in resp.getheaders():
            if k.lower() not in ("transfer-encoding", "connection", "content-length"):
                self.send_header(k, v)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
    do_GET = do_PATCH = do_POST = do_PUT = do_DELETE = relay
    def log_message(self, *a):
        pass
server = http.server.HTTPServer(("127.0.0.1", 0), Proxy)
open(portfile, "w").write(str(server.server_address[1]))
server.serve_forever()
PY
python3 "$T/raceproxy.py" "${URL#http://}" "$T/other.json" "$T/raceproxy.port" 2>"$T/raceproxy.err" &
dnsb_track_pid $!
for ((i = 0; i < 100; i++)); do
	[ -s "$T/raceproxy.port" ] && break
	sleep 0.05
done
PROXY=http://127.0.0.1:$(cat "$T/raceproxy.port" 2>/dev/null)
# race NAME: dnsbatch apply through the proxy; $T/NAME.json, .err, .prom
race() {
	"$DNSBATCH" apply --plan "$T/$1.plan" --provider pdns --pdns-server "$PROXY" --pdns-api-key-file "$KEYFILE" \
		--pdns-zone example.test --metrics-file "$T/$1.prom" --output json >"$T/$1.json" 2>"$T/$1.err"
	RC=$?
}
other() { jq -cn --arg n "$1" --arg c "$2" '{rrsets: [{name: $n, type: "A", ttl: 300, changetype: "REPLACE",
	records: [{content: $c, disabled: false}]}]}' >"$T/other.json"; }
overwrites() { awk '$1 == "dnsbatch_overwrites_detected_total{zone=\"example.test.\"}" { print $2 }' "$T/$1.prom"; }

plan "$T/calm.plan" create="$(list "$(ep calm.example.test A 300 192.0.2.60)")"
rm -f "$T/other.json"
race calm
eq "race: with no other writer: applied (exit 0)" "$RC $(counts calm)" "0 1 1 0 0 0"
eq "race: with no other writer: no overwrite counted" "$(overwrites calm)" ""
check "race: with no other writer: no race warning" bash -c "! grep -q 'race:' '$T/calm.err'"

plan "$T/win.plan" create="$(list "$(ep win.example.test A 300 192.0.2.61)")"
other win.example.test. 198.51.100.66
race win
eq "race: another client's write in the window: the batch is still applied (exit 0)" "$RC $(counts win)" "0 1 1 0 0 0"
check "race: a race warning names the RRset and both values" \
	grep -q 'race: zone example.test.: win.example.test. A holds 198.51.100.66 (TTL 300) after this PATCH wrote 192.0.2.61' "$T/win.err"
eq "race: counted in dnsbatch_overwrites_detected_total" "$(overwrites win)" 1
eq "race: the zone holds the other client's value (nothing hidden)" "$(q win.example.test A)" 198.51.100.66

plan "$T/side.plan" create="$(list "$(ep side.example.test A 300 192.0.2.62)")"
other elsewhere.example.test. 198.51.100.67
race side
eq "race: another client's write to another RRset is no race" "$(overwrites side) $(grep -c 'race:' "$T/side.err")" " 0"

if [ "$failures" -gt 0 ]; then
	echo "# $failures checks failed; server log: $PDIR/pdns.log"
	exit 1
fi
exit 0
