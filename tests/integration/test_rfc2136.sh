#!/usr/bin/env bash
#
# test_rfc2136.sh - the rfc2136 provider against real BIND (named) and Knot
# (knotd), through the dnsbatch binary. Each server is started on a free
# loopback port in a temp dir (tests/integration/servers.sh) and stopped by
# PID at the end, also when a check fails.
#
# Prints "ok - NAME" or "not ok - NAME" per check; exits 1 if any failed.
# Env: DNSBATCH (default build/dnsbatch), SERVERS (default "named knotd"),
# DNSB_KEEP_TMP=1 to keep the temp dir.
. "$(dirname "$0")/checks.sh"
test_begin
. tests/integration/servers.sh

SERVERS=${SERVERS:-named knotd}
# expect_file NAME ACTUAL_FILE EXPECTED_FILE
expect_file() {
	if diff -u "$3" "$2" >"$T/diff" 2>&1; then ok "$1"; else not_ok "$1" "$(cat "$T/diff")"; fi
}

for tool in named knotd tsig-keygen nsupdate dig jq; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		not_ok "tool $tool is installed (apt-get install bind9 bind9-utils bind9-dnsutils knot jq)"
		exit 1
	fi
done
if [ ! -x "$DNSBATCH" ]; then
	not_ok "dnsbatch binary at $DNSBATCH (run make)"
	exit 1
fi

dnsb_servers_init
T=$DNSB_SERVERS_TMP
KEY=$T/key.conf
dnsb_tsig_keygen "$KEY" dnsbatch-key hmac-sha256 || exit 1
SECRET=$(dnsb_keyfile_secret "$KEY")
printf '%s\n' "$SECRET" >"$T/secret"
# A well-formed secret the servers do not know.
dnsb_tsig_keygen "$T/other.conf" dnsbatch-key hmac-sha256 || exit 1
WRONG_SECRET=$(dnsb_keyfile_secret "$T/other.conf")
printf '%s\n' "$WRONG_SECRET" >"$T/wrong-secret"

cat >"$T/zone.db" <<'EOF'
$ORIGIN example.test.
$TTL 300
@         SOA   ns1 hostmaster 1 3600 600 86400 300
@         NS    ns1
ns1       A     192.0.2.53
www       A     192.0.2.1
alias     CNAME www
host      A     192.0.2.5
upd       A     192.0.2.10
stale     A     192.0.2.20
del       TXT   "bye"
delstale  TXT   "keep"
oob2      A     192.0.2.42
oob3      A     192.0.2.44
sw        A     192.0.2.60
sw2       CNAME www
EOF

# The ownership TXT record of the external-dns registry for NAME.
owner_ep() {
	jq -cn --arg n "a-$1" --arg o "$1" '{dnsName: $n, recordType: "TXT", recordTTL: 300,
		targets: ["\"heritage=external-dns,external-dns/owner=default\""], labels: {ownedRecord: $o}}'
}

# apply NAME PLAN [flags...]: run dnsbatch apply with the server's flags;
# sets RC, leaves $T/NAME.json (stdout), $T/NAME.err, $T/NAME.drops.
apply() {
	local name=$1 planfile=$2
	shift 2
	rm -f "$T/$name.drops"
	"$DNSBATCH" apply --plan "$planfile" --provider rfc2136 --rfc2136-host 127.0.0.1 \
		--rfc2136-port "$PORT" --rfc2136-zone example.test "$@" \
		--drop-log "$T/$name.drops" --output json --backoff-base 0.01 --backoff-cap 0.05 \
		>"$T/$name.json" 2>"$T/$name.err"
	RC=$?
	printf -v "RC_${name//[^a-zA-Z0-9_]/_}" '%s' "$RC"
	touch "$T/$name.drops"
}
# drop_codes NAME: "dnsName outcome reason code" per drop log line, sorted
drop_codes() {
	jq -r '(.change | [.create[]?, .updateNew[]?, .delete[]?][0].dnsName) + " " + .outcome + " " + .reason + " " + (.code // "")' \
		"$T/$1.drops" | sort
}
axfr() { dnsb_axfr "$PORT" example.test "$KEY"; }

# The zone after the "mixed" plan, as dnsb_axfr prints it.
expected_after_mixed() {
	cat <<'EOF' | sort
alias.example.test.	300	CNAME	www.example.test.
delstale.example.test.	300	TXT	"keep"
host.example.test.	300	A	192.0.2.5
new1.example.test.	300	A	192.0.2.101
new2.example.test.	300	AAAA	2001:db8::2
new3.example.test.	120	TXT	"hello world"
newc.example.test.	300	CNAME	www.example.test.
ns1.example.test.	300	A	192.0.2.53
oob2.example.test.	300	A	192.0.2.42
oob3.example.test.	300	A	192.0.2.44
stale.example.test.	300	A	192.0.2.20
sw.example.test.	300	A	192.0.2.60
sw2.example.test.	300	CNAME	www.example.test.
upd.example.test.	600	A	192.0.2.11
www.example.test.	300	A	192.0.2.1
EOF
}

write_plans() {
	# Every conflict kind beside changes that must land.
	plan "$T/plan-mixed.json" \
		create="$(list "$(ep new1.example.test A 300 192.0.2.101)" \
			"$(ep new2.example.test AAAA 300 2001:db8::2)" \
			"$(ep new3.example.test TXT 120 'hello world')" \
			"$(ep newc.example.test CNAME 300 www.example.test)" \
			"$(ep www.example.test A 300 192.0.2.99)" \
			"$(owner_ep www.example.test)" \
			"$(ep alias.example.test A 300 192.0.2.7)" \
			"$(ep host.example.test CNAME 300 www.example.test)")" \
		updateOld="$(list "$(ep upd.example.test A 300 192.0.2.10)" "$(ep stale.example.test A 300 192.0.2.99)")" \
		updateNew="$(list "$(ep upd.example.test A 600 192.0.2.11)" "$(ep stale.example.test A 300 192.0.2.21)")" \
		delete="$(list "$(ep del.example.test TXT 300 bye)" "$(ep delstale.example.test TXT 300 other)" \
			"$(ep gone.example.test A 300 192.0.2.30)")"
	# Changes someone else already made with nsupdate.
	plan "$T/plan-oob.json" \
		create="$(list "$(ep oob1.example.test A 300 192.0.2.41)")" \
		updateOld="$(list "$(ep oob2.example.test A 300 192.0.2.42)")" \
		updateNew="$(list "$(ep oob2.example.test A 300 192.0.2.43)")" \
		delete="$(list "$(ep oob3.example.test A 300 192.0.2.44)")"
	# An A turned into a CNAME and back, each in one group (same name).
	plan "$T/plan-switch.json" \
		create="$(list "$(ep sw.example.test CNAME 300 www.example.test)" "$(ep sw2.example.test A 300 192.0.2.61)")" \
		delete="$(list "$(ep sw.example.test A 300 192.0.2.60)" "$(ep sw2.example.test CNAME 300 www.example.test)")"
	plan "$T/plan-one.json" create="$(list "$(ep bad1.example.test A 300 192.0.2.77)" "$(ep bad2.example.test A 300 192.0.2.78)")"
	plan "$T/plan-env.json" create="$(list "$(ep env1.example.test A 300 192.0.2.79)")"
	# 400 TXT RRsets of ~250 bytes: about 110 KiB, more than one DNS message holds.
	jq -n '{create: [range(400) | {dnsName: "big\(.).example.test", recordType: "TXT", recordTTL: 300,
		labels: {}, targets: ["v" + ("0" * (249 - (tostring | length))) + tostring]}],
		updateOld: [], updateNew: [], delete: []}' >"$T/plan-big.json"
}

run_server() {
	local server=$1 s before
	if ! "dnsb_start_$server" example.test "$T/zone.db" "$KEY"; then
		not_ok "$server: starts"
		return
	fi
	ok "$server: starts on 127.0.0.1#$DNSB_SERVER_PORT"
	PORT=$DNSB_SERVER_PORT
	local pid=$DNSB_SERVER_PID
	s="$server:"

	# --- every conflict kind, isolated; the rest applied
	apply mixed "$T/plan-mixed.json" --rfc2136-tsig-keyfile "$KEY"
	eq "$s mixed plan exits 3 (some dropped)" "$RC" 3
	eq "$s mixed plan: changes applied already dropped failed" "$(counts mixed)" "13 6 1 6 0"
	axfr >"$T/mixed.zone"
	expected_after_mixed >"$T/mixed.expected"
	expect_file "$s mixed plan: zone holds exactly the applied changes (AXFR)" "$T/mixed.zone" "$T/mixed.expected"
	drop_codes mixed >"$T/mixed.codes"
	sort >"$T/mixed.codes.expected" <<'EOF'
a-www.example.test dropped conflict YXRRSET
alias.example.test dropped conflict YXRRSET
delstale.example.test dropped conflict NXRRSET
host.example.test dropped conflict YXDOMAIN
stale.example.test dropped conflict NXRRSET
www.example.test dropped conflict YXRRSET
EOF
	# The delete of delstale names the endpoint in .delete; the update in .updateNew.
	expect_file "$s drop log names each conflicting change with its rcode" "$T/mixed.codes" "$T/mixed.codes.expected"
	eq "$s drop log has one line per dropped change" "$(wc -l <"$T/mixed.drops" | tr -d " ")" 6
	if grep -qF "$SECRET" "$T/mixed.json" "$T/mixed.err" "$T/mixed.drops"; then
		not_ok "$s the TSIG secret appears nowhere in the output"
	else
		ok "$s the TSIG secret appears nowhere in the output"
	fi

	# --- the same plan again: what landed is already in effect, conflicts still dropped
	apply again "$T/plan-mixed.json" --rfc2136-tsig-keyfile "$KEY"
	eq "$s mixed plan again exits 3" "$RC" 3
	eq "$s mixed plan again: changes applied already dropped failed" "$(counts again)" "13 0 7 6 0"
	axfr >"$T/again.zone"
	expect_file "$s mixed plan again leaves the zone as it was" "$T/again.zone" "$T/mixed.expected"

	# --- changes already made out of band end as already_applied
	dnsb_nsupdate "$PORT" "$KEY" <<'EOF'
zone example.test
update add oob1.example.test. 300 A 192.0.2.41
update delete oob2.example.test. A
update add oob2.example.test. 300 A 192.0.2.43
update delete oob3.example.test. A
send
EOF
	eq "$s nsupdate out of band succeeds" "$?" 0
	apply oob "$T/plan-oob.json" --rfc2136-tsig-keyfile "$KEY"
	eq "$s out-of-band changes: exit 0" "$RC" 0
	eq "$s out-of-band changes: changes applied already dropped failed" "$(counts oob)" "3 0 3 0 0"

	# --- A to CNAME and CNAME to A in one UPDATE each
	apply switch "$T/plan-switch.json" --rfc2136-tsig-keyfile "$KEY"
	eq "$s A->CNAME and CNAME->A switches: exit 0" "$RC" 0
	eq "$s switches: changes applied already dropped failed" "$(counts switch)" "4 4 0 0 0"
	eq "$s switches landed (AXFR)" "$(axfr | grep -E '^sw2?\.' | tr '\t' ' ')" \
		"$(printf '%s\n' 'sw.example.test. 300 CNAME www.example.test.' 'sw2.example.test. 300 A 192.0.2.61')"

	# --- a batch larger than one DNS message is split, not dropped
	apply big "$T/plan-big.json" --rfc2136-tsig-keyfile "$KEY" --rfc2136-batch-change-size 1000
	eq "$s 110 KiB of TXT in one plan: exit 0" "$RC" 0
	eq "$s 110 KiB of TXT: changes applied already dropped failed" "$(counts big)" "400 400 0 0 0"
	eq "$s 110 KiB of TXT: all 400 in the zone" "$(axfr | grep -c '^big[0-9]*\.example\.test\.	300	TXT	"v0')" 400

	# --- the secret from a file and from the environment, key name and algorithm as flags
	DNSBATCH_RFC2136_TSIG_SECRET=$SECRET apply env "$T/plan-env.json" --rfc2136-tsig-keyname dnsbatch-key \
		--rfc2136-tsig-secret-alg hmac-sha256
	eq "$s secret from \$DNSBATCH_RFC2136_TSIG_SECRET: exit 0" "$RC" 0
	before=$(axfr)
	plan "$T/plan-file.json" create="$(list "$(ep file1.example.test A 300 192.0.2.80)")"
	apply file "$T/plan-file.json" --rfc2136-tsig-keyname dnsbatch-key --rfc2136-tsig-secret-file "$T/secret"
	eq "$s secret from --rfc2136-tsig-secret-file: exit 0" "$RC" 0
	eq "$s secret from a file: the record landed" "$(axfr | grep -c '^file1\.example\.test\.')" 1

	# --- wrong secret: fatal, named BADSIG, nothing applied
	before=$(axfr)
	apply wrong "$T/plan-one.json" --rfc2136-tsig-keyname dnsbatch-key --rfc2136-tsig-secret-file "$T/wrong-secret"
	eq "$s wrong secret: a setup fault, exit 2" "$RC" 2
	check "$s wrong secret: said so, with the fix" grep -Fq \
		"setup fault: provider rfc2136 refused the key or the zone (BADSIG) before anything was applied: fix the key" \
		"$T/wrong.err"
	eq "$s wrong secret: changes applied already dropped failed" "$(counts wrong)" "2 0 0 0 2"
	if grep -q BADSIG "$T/wrong.err"; then ok "$s wrong secret: the error names BADSIG"; else
		not_ok "$s wrong secret: the error names BADSIG" "$(head -c 600 "$T/wrong.err")"; fi
	eq "$s wrong secret: drop log says fatal BADSIG" "$(jq -r '.reason + " " + .code' "$T/wrong.drops" | sort -u)" "fatal BADSIG"
	eq "$s wrong secret: nothing applied (AXFR unchanged)" "$(axfr)" "$before"
	if grep -qF -e "$WRONG_SECRET" -e "$SECRET" "$T/wrong.json" "$T/wrong.err" "$T/wrong.drops"; then
		not_ok "$s wrong secret: no secret in the output"
	else
		ok "$s wrong secret: no secret in the output"
	fi

	# --- unsigned update to a server that requires a key: fatal
	apply insecure "$T/plan-one.json" --rfc2136-insecure
	eq "$s unsigned update: a setup fault, exit 2" "$RC" 2
	eq "$s unsigned update: refused ($server)" "$(jq -r '.code' "$T/insecure.drops" | sort -u)" \
		"$([ "$server" = named ] && echo REFUSED || echo NOTAUTH)"

	# --- a zone the server does not serve stops (NOTAUTH); the other zone goes on
	plan "$T/plan-notserved.json" create="$(list "$(ep a.notserved.test A 300 192.0.2.1)" \
		"$(ep served.example.test A 300 192.0.2.2)")"
	apply notserved "$T/plan-notserved.json" --rfc2136-zone notserved.test --rfc2136-tsig-keyfile "$KEY"
	eq "$s zone not served: exit 4" "$RC" 4
	eq "$s zone not served: changes applied already dropped failed" "$(counts notserved)" "2 1 0 0 1"
	eq "$s zone not served: drop log says fatal NOTAUTH for it" \
		"$(jq -r '.zone + " " + .outcome + " " + .reason + " " + .code' "$T/notserved.drops")" \
		"notserved.test. failed fatal NOTAUTH"

	# --- records lists the zone by AXFR
	"$DNSBATCH" records --provider rfc2136 --rfc2136-host 127.0.0.1 --rfc2136-port "$PORT" \
		--rfc2136-zone example.test --rfc2136-tsig-keyfile "$KEY" >"$T/records.out" 2>"$T/records.err"
	eq "$s records exits 0" "$?" 0
	eq "$s records lists new1 A" "$(grep -c '^new1\.example\.test\..*A.*192\.0\.2\.101' "$T/records.out")" 1

	# --- server gone: transient, retried, then failed
	dnsb_stop_pid "$pid"
	apply down "$T/plan-one.json" --rfc2136-tsig-keyfile "$KEY" --max-retries 2
	eq "$s server down: exit 4" "$RC" 4
	eq "$s server down: changes applied already dropped failed" "$(counts down)" "2 0 0 0 2"
	eq "$s server down: 1 submission + 2 retries" "$(jq -r '"\(.submissions) \(.retries)"' "$T/down.json")" "3 2"
	eq "$s server down: drop log says failed transient" "$(jq -r '.outcome + " " + .reason' "$T/down.drops" | sort -u)" \
		"failed transient"
}

# A TCP proxy in front of a server, for reads over a connection that misbehaves. Mode "one": each connection
# carries one message and its reply, then is closed (a server that does not pipeline); mode "reverse": the
# replies that come together are passed on in reverse order (RFC 7766 §7: out of order). Only the 2-byte
# length framing of RFC 1035 §4.2.2 is read, never a message.
cat >"$T/pipe_proxy.py" <<'EOF'
import select, socket, sys, threading
mode, listen_port, target_port = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
srv = socket.socket()
srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
srv.bind(("127.0.0.1", listen_port))
srv.listen(64)

def frames(buf):
    out = []
    while len(buf) >= 2 and len(buf) >= 2 + int.from_bytes(buf[:2], "big"):
        n = 2 + int.from_bytes(buf[:2], "big")
        out.append(buf[:n])
        buf = buf[n:]
    return out, buf

def close(*socks):
    for s in socks:
        try:
            s.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        s.close()

def one(client, up):
    buf, got = b"", []
    while not got:
        data = client.recv(65536)
        if not data:
            return close(client, up)
        got, buf = frames(buf + data)
    up.sendall(got[0])
    buf, got = b"", []
    while not got:
        data = up.recv(65536)
        if not data:
            break
        got, buf = frames(buf + data)
    if got:
        client.sendall(got[0])
    close(client, up)

def reverse(client, up):
    def forward():
        try:
            while True:
                data = client.recv(65536)
                if not data:
                    break
                up.sendall(data)
        except OSError:
            pass
        close(up)
    threading.Thread(target=forward, daemon=True).start()
    buf, held = b"", []
    try:
        while True:
            ready, _, _ = select.select([up], [], [], 0.02)
            if not ready:
                for f in reversed(held):
                    client.sendall(f)
                held = []
                continue
            data = up.recv(65536)
            if not data:
                break
            got, buf = frames(buf + data)
            held += got
    except OSError:
        pass
    close(client)

while True:
    client, _ = srv.accept()
    upstream = socket.create_connection(("127.0.0.1", target_port))
    threading.Thread(target=one if mode == "one" else reverse, args=(client, upstream), daemon=True).start()
EOF

# Refused groups read together, and reads of many names pipelined over one connection (issue 21): 200
# creations in batches of 100 with 10 conflicts in each (the RRsets exist), then 300 no-op updates of held
# RRsets (proved by one read per batch, 2 queries and more per group, well over the 32 in flight).
run_reads() {
	local server=$1 s="$1 reads:" i
	{
		cat "$T/zone.db"
		for ((i = 5; i < 200; i += 10)); do echo "r$i A 198.51.100.$((i / 10))"; done
		for ((i = 0; i < 300; i++)); do echo "n$i A 10.9.$((i / 256)).$((i % 256))"; done
	} >"$T/zone-reads.db"
	if ! "dnsb_start_$server" example.test "$T/zone-reads.db" "$KEY"; then
		not_ok "$s starts"
		return
	fi
	PORT=$DNSB_SERVER_PORT
	creates "$T/plan-reads.json" 200 r example.test 10.8
	# Without a snapshot (--rfc2136-snapshot-max 0), and with a zone too large to keep as one (more than 100
	# records): probes name one culprit per refused UPDATE.
	local snap
	for snap in 0 100 default; do
		if [ "$snap" = default ]; then
			apply reads "$T/plan-reads.json" --rfc2136-tsig-keyfile "$KEY" --rfc2136-batch-change-size 100
		else
			apply reads "$T/plan-reads.json" --rfc2136-tsig-keyfile "$KEY" --rfc2136-batch-change-size 100 \
				--rfc2136-snapshot-max "$snap"
		fi
		eq "$s snapshot $snap: 20 conflicts in 200 creations: exit 3" "$RC" 3
		eq "$s snapshot $snap: changes applied already dropped failed" "$(counts reads)" "200 180 0 20 0"
		if [ "$snap" = default ]; then
			# The first refusal transfers the zone (330 records), which names the batch's 10 culprits; the
			# second batch's 10 are named before it is sent (a read confirms them): 3 UPDATEs sent (1
			# refused, 2 land) and 1 submission held back; each batch's named groups read once.
			eq "$s snapshot: 4 submissions (3 UPDATEs)" "$(rep reads .submissions)" 4
			eq "$s snapshot: one read per batch" "$(rep reads .reads)" 2
		else
			# One refusal per culprit: 2 batches + 20 refusals.
			eq "$s snapshot $snap: 22 UPDATEs" "$(rep reads .submissions)" 22
			# Read at once while the lists are unproven (names 1, 3, 6 of the first batch), then the named
			# groups wait for the batch's end: 6 reads for 20 dropped groups (one per refusal before: 20).
			le "$s snapshot $snap: at most 6 reads for 20 conflicts" "$(rep reads .reads)" 6
		fi
		eq "$s snapshot $snap: each dropped group shows what is held (the pipelined replies matched to their queries)" \
			"$(jq -r '[.change[][]?.dnsName, .cause, .code, (.current[0].targets[0] // "")] | join(" ")' \
				"$T/reads.drops" | sort -V | tr '\n' ,)" \
			"$(for ((i = 5; i < 200; i += 10)); do
				printf 'r%s.example.test exists YXRRSET 198.51.100.%s,' "$i" "$((i / 10))"
			done)"
		eq "$s snapshot $snap: the zone holds one record at each of the 200 names (AXFR)" \
			"$(axfr | awk '$1 ~ /^r[0-9]+\./ {print $1}' | sort -u | wc -l | tr -d ' ') $(axfr | grep -c '^r[0-9]*\.')" "200 200"
		eq "$s snapshot $snap: 180 of them created" "$(axfr | grep -c '^r[0-9]*\.example\.test\..*10\.8\.')" 180
		eq "$s snapshot $snap: 20 of them unchanged" "$(axfr | grep -c '^r[0-9]*\.example\.test\..*198\.51\.100\.')" 20
		# Back to the zone before the plan for the next round: the 180 creations deleted by nsupdate.
		for ((i = 0; i < 200; i++)); do
			[ $((i % 10)) = 5 ] || echo "update delete r$i.example.test. A"
		done | { echo "zone example.test"; cat; echo send; } | dnsb_nsupdate "$PORT" "$KEY" ||
			not_ok "$s snapshot $snap: the creations deleted again"
	done

	jq -n '[range(300) | {dnsName: "n\(.).example.test", recordType: "A", recordTTL: 300, labels: {},
		targets: ["10.9.\(. / 256 | floor).\(. % 256)"]}] as $e | {create: [], updateOld: $e, updateNew: $e, delete: []}' \
		>"$T/plan-noops.json"
	apply noops "$T/plan-noops.json" --rfc2136-tsig-keyfile "$KEY" --rfc2136-batch-change-size 100
	eq "$s 300 no-op updates of held RRsets: exit 0" "$RC" 0
	eq "$s all already_applied, proved by reading" "$(counts noops)" "300 0 300 0 0"
	eq "$s no UPDATE, one read per batch" "$(rep noops '"\(.submissions) \(.reads)"')" "0 3"

	# The same reads through a proxy that answers out of order, and one that closes after each reply.
	local mode proxy_port proxy_pid
	for mode in reverse one; do
		proxy_port=$(dnsb_free_port)
		python3 "$T/pipe_proxy.py" "$mode" "$proxy_port" "$DNSB_SERVER_PORT" 2>"$T/proxy-$mode.err" &
		proxy_pid=$!
		dnsb_track_pid "$proxy_pid"
		dnsb_wait_port "$proxy_port"
		PORT=$proxy_port
		apply "noops-$mode" "$T/plan-noops.json" --rfc2136-tsig-keyfile "$KEY" --rfc2136-batch-change-size 100
		PORT=$DNSB_SERVER_PORT
		eq "$s replies $mode: all 300 already_applied, by one read per batch" \
			"$RC $(counts "noops-$mode") $(rep "noops-$mode" '"\(.submissions) \(.reads)"')" "0 300 0 300 0 0 0 3"
		dnsb_stop_pid "$proxy_pid"
	done
	dnsb_stop_pid "$DNSB_SERVER_PID"
}

# The example plans (examples/plans/README.md) against the example zone: the same outcomes as the
# zonefile provider, but every conflict found by the server's prerequisites.
run_examples() {
	local server=$1 s="$1: examples:" zone=examples/zones/example.com.zone

	for plan in clean conflicts; do
		if ! "dnsb_start_$server" example.com "$zone" "$KEY"; then
			not_ok "$s $server starts with $zone"
			return
		fi
		PORT=$DNSB_SERVER_PORT
		apply "ex-$plan" "examples/plans/$plan.json" --rfc2136-zone example.com --rfc2136-tsig-keyfile "$KEY"
		apply "ex-$plan-again" "examples/plans/$plan.json" --rfc2136-zone example.com --rfc2136-tsig-keyfile "$KEY"
		dnsb_stop_pid "$DNSB_SERVER_PID"
	done
	eq "$s clean.json: exit 0" "${RC_ex_clean:-unset}" 0
	eq "$s clean.json: changes applied already dropped failed" "$(counts ex-clean)" "30 30 0 0 0"
	# Again: every group is in effect. cart's update differs from the zone only by TTL (60 -> 120, now 120),
	# and value-dependent prerequisites ignore TTLs (RFC 2136 §3.2.5), so it is re-applied (with its TXT).
	eq "$s clean.json again: changes applied already dropped failed" "$(counts ex-clean-again)" "30 2 28 0 0"
	eq "$s conflicts.json: changes applied already dropped failed" "$(counts ex-conflicts)" "40 26 2 12 0"
	eq "$s conflicts.json: exit 3" "$(jq -r .exit_code "$T/ex-conflicts.json")" 3
	eq "$s conflicts.json: the server's rcode per conflicting record" \
		"$(jq -r 'select(.reason == "conflict") | (.change | [.create[]?, .updateNew[]?, .delete[]?][0].dnsName) + " " + .code' \
			"$T/ex-conflicts.drops" | grep -v '^a-\|^cname-' | sort | tr '\n' ' ')" \
		"grpc.search.example.com NXRRSET legacy.example.com YXRRSET shop.example.com NXRRSET status.example.com YXDOMAIN "
	eq "$s conflicts.json again: changes applied already dropped failed" "$(counts ex-conflicts-again)" "40 0 28 12 0"
}

# Two zones on one server (--rfc2136-zone twice), and a name in neither.
run_two_zones() {
	local server=$1 s="$1: two zones:"
	cat >"$T/other.db" <<'EOF'
$ORIGIN other.test.
$TTL 300
@     SOA  ns1 hostmaster 1 3600 600 86400 300
@     NS   ns1
ns1   A    192.0.2.153
taken A    192.0.2.154
EOF
	if ! "dnsb_start_$server" example.test "$T/zone.db" "$KEY" other.test "$T/other.db"; then
		not_ok "$s $server starts with example.test and other.test"
		return
	fi
	PORT=$DNSB_SERVER_PORT
	plan "$T/plan-two.json" create="$(list "$(ep two1.example.test A 300 192.0.2.201)" \
		"$(ep two2.other.test A 300 192.0.2.202)" "$(ep taken.other.test A 300 192.0.2.203)" \
		"$(ep x.nowhere.test A 300 192.0.2.204)")"
	apply two "$T/plan-two.json" --rfc2136-zone other.test --rfc2136-tsig-keyfile "$KEY"
	eq "$s exit 3" "$RC" 3
	eq "$s per zone: zone changes applied already dropped failed" \
		"$(jq -r '.zones[] | "\(.zone) \(.changes) \(.applied) \(.already_applied) \(.dropped) \(.failed)"' "$T/two.json" | sort | tr '\n' ';')" \
		" 1 0 0 1 0;example.test. 1 1 0 0 0;other.test. 2 1 0 1 0;"
	eq "$s drop reasons" "$(jq -r '.reason + " " + (.code // "-")' "$T/two.drops" | sort | tr '\n' ';')" \
		"conflict YXRRSET;no_zone -;"
	eq "$s other.test holds two2 (AXFR)" "$(dnsb_axfr "$PORT" other.test "$KEY" | grep -c '^two2\.other\.test\.')" 1
	eq "$s example.test holds two1 (AXFR)" "$(axfr | grep -c '^two1\.example\.test\.')" 1
	dnsb_stop_pid "$DNSB_SERVER_PID"
}

# A TCP relay to the server that loses the reply on its first connection: the
# server commits the UPDATE, the client never hears of it (a lost success reply).
cat >"$T/lossy_proxy.py" <<'EOF'
import socket, sys, threading
listen_port, target_port = int(sys.argv[1]), int(sys.argv[2])
srv = socket.socket()
srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
srv.bind(("127.0.0.1", listen_port))
srv.listen(16)

def pump(src, dst, lose):
    try:
        while True:
            data = src.recv(65536)
            if not data or lose:
                break
            dst.sendall(data)
    except OSError:
        pass
    for s in (src, dst):
        try:
            s.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

first = True
while True:
    client, _ = srv.accept()
    upstream = socket.create_connection(("127.0.0.1", target_port))
    threading.Thread(target=pump, args=(client, upstream, False), daemon=True).start()
    threading.Thread(target=pump, args=(upstream, client, first), daemon=True).start()
    first = False
EOF

# The reply to a committed UPDATE is lost: transient, resubmitted, the
# prerequisites now fail, and reading back finds every change in effect.
run_lost_reply() {
	local server=$1 s="$1: lost reply:" proxy_port proxy_pid i
	if ! "dnsb_start_$server" example.test "$T/zone.db" "$KEY"; then
		not_ok "$s $server starts"
		return
	fi
	proxy_port=$(dnsb_free_port)
	python3 "$T/lossy_proxy.py" "$proxy_port" "$DNSB_SERVER_PORT" 2>"$T/proxy.err" &
	proxy_pid=$!
	dnsb_track_pid "$proxy_pid"
	dnsb_wait_port "$proxy_port"
	plan "$T/plan-lost.json" create="$(list "$(ep lost1.example.test A 300 192.0.2.91)" \
		"$(ep lost2.example.test TXT 300 lost)")" \
		updateOld="$(list "$(ep upd.example.test A 300 192.0.2.10)")" \
		updateNew="$(list "$(ep upd.example.test A 300 192.0.2.12)")"
	PORT=$proxy_port
	# --force: no threshold listing, so that the first connection the proxy spoils is the UPDATE (a lost listing
	# fails the zone's counted changes, retryable: test_thresholds.sh)
	apply lost "$T/plan-lost.json" --rfc2136-tsig-keyfile "$KEY" --rfc2136-timeout 2 --force
	PORT=$DNSB_SERVER_PORT
	eq "$s exit 0" "$RC" 0
	eq "$s changes applied already dropped failed" "$(counts lost)" "3 0 3 0 0"
	eq "$s one retry" "$(jq -r .retries "$T/lost.json")" 1
	eq "$s the zone holds the changes once (AXFR)" "$(axfr | grep -E '^(lost[12]|upd)\.' | tr '\t' ' ')" \
		"$(printf '%s\n' 'lost1.example.test. 300 A 192.0.2.91' 'lost2.example.test. 300 TXT "lost"' 'upd.example.test. 300 A 192.0.2.12')"
	dnsb_stop_pid "$proxy_pid"
	dnsb_stop_pid "$DNSB_SERVER_PID"
}

write_plans
for server in $SERVERS; do
	run_lost_reply "$server"
	run_server "$server"
	run_examples "$server"
	run_two_zones "$server"
	run_reads "$server"
done

# Configuration errors are usage errors, before anything is sent.
PORT=9
plan "$T/plan-cfg.json" create="$(list "$(ep x.example.test A 300 192.0.2.1)")"
DNSBATCH_RFC2136_TSIG_SECRET='' apply nokey "$T/plan-cfg.json"
eq "no TSIG secret and no --rfc2136-insecure: exit 2" "$RC" 2
if grep -q 'rfc2136-tsig' "$T/nokey.err"; then ok "no TSIG secret: the message names the flags"; else
	not_ok "no TSIG secret: the message names the flags" "$(cat "$T/nokey.err")"; fi
dnsb_tsig_keygen "$T/sha384.conf" k384 hmac-sha384
apply sha384 "$T/plan-cfg.json" --rfc2136-tsig-keyfile "$T/sha384.conf"
eq "hmac-sha384 key file (broken in ldns 1.8.3): exit 2" "$RC" 2
if grep -q 'hmac-sha384' "$T/sha384.err" && ! grep -qF "$(dnsb_keyfile_secret "$T/sha384.conf")" "$T/sha384.err"; then
	ok "hmac-sha384: the message names the algorithm, not the secret"
else
	not_ok "hmac-sha384: the message names the algorithm, not the secret" "$(cat "$T/sha384.err")"
fi

[ "$failures" -eq 0 ]
