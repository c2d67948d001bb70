# shellcheck shell=bash disable=SC2034 # variables run.sh and the sourcing driver read
# drivers/dns_common.sh - what the bind and knot drivers share (sourced by bind.sh and knot.sh, which set
# DNS_SERVER to named or knotd): one real server per run (tests/integration/servers.sh) with a TSIG key, the zone
# reset between scenarios by one UPDATE (nsupdate), dnsbatch's rfc2136 provider sent through faultproxy_dns.py,
# the truth by AXFR (dig) as ldns reads it, the other writer by nsupdate.
. "$ROOT/tests/integration/servers.sh"

drv_caps() { echo "dns lost-reply oob refuse rcode fail-reads delay"; }

drv_start() {
	conf_servers
	DRV_KEY=$T/key.conf
	dnsb_tsig_keygen "$DRV_KEY" || return 1
	conf_zone_file /dev/null "$T/start.zone" || return 1
	"dnsb_start_$DNS_SERVER" example.com "$T/start.zone" "$DRV_KEY" || return 1
	DRV_PORT=$DNSB_SERVER_PORT
	DRV_PID=$DNSB_SERVER_PID
}

# drv_axfr: the zone by AXFR, signed, as dig prints it (class kept, TSIG left out)
drv_axfr() {
	dig +nocmd +nostats +nocomments +tries=1 +time=5 -k "$DRV_KEY" -p "$DRV_PORT" @127.0.0.1 example.com AXFR |
		awk '$0 !~ /^;/ && NF && $4 != "TSIG"'
}

drv_truth() {
	drv_axfr >"$T/axfr.zone" || return 1
	# dig's status is lost in the pipe: a transfer that failed has no SOA
	awk '$4 == "SOA" { soa = 1 } END { exit !soa }' "$T/axfr.zone" || { echo "AXFR of example.com. failed" >&2; return 1; }
	conf_zone_truth "$T/axfr.zone"
}

# drv_load ZONE: one UPDATE that turns what the server holds into the scenario's zone: every RRset that differs
# deleted and added again (the apex NS record by record: its last record cannot be deleted); run.sh checks the
# truth it reads next against the scenario's zone
drv_load() {
	conf_zone_file "$1" "$T/want.zone" || return 1
	conf_zone_truth "$T/want.zone" >"$T/want.truth" || return 1
	# what the server holds: the last scenario's truth after its run (run.sh keeps it), else read now
	[ -s "$T/last.truth" ] && cp "$T/last.truth" "$T/have.truth" || drv_truth >"$T/have.truth" || return 1
	python3 - "$T/have.truth" "$T/want.truth" >"$T/reset.nsupdate" <<'PY' || return 1
import sys
def load(p):
    sets = {}
    for line in open(p):
        o, ttl, t, rd = line.rstrip("\n").split(" ", 3)
        sets.setdefault((o, t), set()).add((ttl, rd))
    return sets
have, want = load(sys.argv[1]), load(sys.argv[2])
out = []
for key in sorted(set(have) | set(want)):
    h, w = have.get(key, set()), want.get(key, set())
    if h == w:
        continue
    o, t = key
    if (o, t) == ("example.com.", "NS"):
        out += ["update add %s %s %s %s" % (o, ttl, t, rd) for ttl, rd in sorted(w)]
        out += ["update delete %s %s %s" % (o, t, rd) for ttl, rd in sorted(h) if rd not in {r for _, r in w}]
        continue
    if h:
        out.append("update delete %s %s" % (o, t))
    out += ["update add %s %s %s %s" % (o, ttl, t, rd) for ttl, rd in sorted(w)]
if out:
    print("zone example.com.")
    print("\n".join(out))
    print("send")
PY
	[ -s "$T/reset.nsupdate" ] || return 0
	dnsb_nsupdate "$DRV_PORT" "$DRV_KEY" <"$T/reset.nsupdate"
}

drv_apply() {
	local plan=$1 drops=$2 summary=$3 faults=$4 port=$DRV_PORT
	shift 4
	PROXY_PID=
	if [ -s "$faults" ]; then
		conf_dns_proxy "$DRV_PORT" "$faults" "$DRV_KEY" || { RC=99; return; }
		port=$PROXY_PORT
	fi
	"$DNSBATCH" apply --plan "$plan" --provider rfc2136 --rfc2136-host 127.0.0.1 --rfc2136-port "$port" \
		--rfc2136-zone example.com --rfc2136-tsig-keyfile "$DRV_KEY" --rfc2136-timeout 2 \
		--backoff-base 0.01 --backoff-cap 0.05 --drop-log "$drops" --output json "$@" >"$summary"
	RC=$?
	conf_stop_proxy
}

# drv_oob RECORD: another client adds RECORD (owner relative to example.com.) by nsupdate
drv_oob() {
	local owner=${1%% *} rest=${1#* }
	case $owner in
	@) owner=example.com. ;;
	*.) ;;
	*) owner=$owner.example.com. ;;
	esac
	printf 'zone example.com.\nupdate add %s %s\nsend\n' "$owner" "$rest" | dnsb_nsupdate "$DRV_PORT" "$DRV_KEY"
}

drv_stop() { dnsb_servers_cleanup; }
