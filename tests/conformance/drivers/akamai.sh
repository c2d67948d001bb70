# akamai.sh - conformance driver: Akamai Edge DNS, served by the project's fake (tests/fakes/fake_akamai.py: every
# request checked against Akamai's published OpenAPI document, every EdgeGrid signature by npm akamai-edgegrid)
# over HTTPS on a free loopback port. Sourced by run.sh (tests/conformance/README.md: the driver interface).
#
# dnsbatch signs as an API client whose host is akab-dnsb-conformance.luna.akamaiapis.net (the fake checks the
# signatures against it, so they hold through the fault proxy). The driver's own client (akamaifake.py) uses the
# fake's hooks: it loads the zone, reads the truth, and writes out of band as another client's submit would (the
# zone's version moves: a change list created before it is stale).
# Writes, as the fault proxy counts them: the add-change and submit POSTs of a change list; its create (POST
# /changelists?zone=) and its DELETE are bookkeeping, forwarded uncounted (--ignore).
# Faults: through faultproxy_http.py. expire-credential W: EdgeGrid credentials are not renewed, so every request
# from the W-th write on is answered Akamai's authentication error (bodies/akamai/401-auth.json, 401).
# shellcheck shell=bash

. "$(dirname "${BASH_SOURCE[0]}")/cloudfake.bash"
CFK_NAME=akamai
DRV_TOOL=akamaifake.py # the fake's own client (cloudfake.bash's cfk_tool)

DRV_CT=akab-conformance-client-dnsb-K2
DRV_AT=akab-conformance-access-dnsb-V7
DRV_SECRET=dnsb-conformance-ak-secret-Zq4=
DRV_HOST=akab-dnsb-conformance.luna.akamaiapis.net
DRV_IGNORE='changelists\?zone=|/changelists/[^/?]+$'

drv_caps() {
	echo http lost-reply oob refuse fail-reads delay expire-credential txt-long srv mx caa ns apex
}

drv_start() {
	cfk_pki || return 1
	(cd "$CFK_CONF/../.." && . tests/integration/akamai_fake.sh && T=$T akamai_edgegrid_lib) ||
		{ echo "akamai: npm cannot install akamai-edgegrid (the fake checks every signature with it)"; return 1; }
	printf '%s\n' "$DRV_SECRET" >"$T/akamai.secret"
	cfk_start akamai python3 "$CFK_CONF/../fakes/fake_akamai.py" --port-file "$T/akamai.port" \
		--cert "$T/server.pem" --key "$T/server.key" --zone example.com \
		--client "$DRV_CT:$DRV_AT:$T/akamai.secret:$DRV_HOST" --edgegrid-node "$(command -v node)" \
		--page-size 100 --log "$T/akamai.fake.log" || return 1
	DRV_PID=$CFK_PID
	DRV_URL=https://127.0.0.1:$CFK_PORT
	DRV_ENV=(CF_URL="$DRV_URL")
}

# cfk_args ENDPOINT: CFK_ARGS (dnsbatch's provider flags) and CFK_CREDS (its environment) for the fake at ENDPOINT
cfk_args() {
	CFK_CREDS=(AKAMAI_HOST="$DRV_HOST" AKAMAI_CLIENT_TOKEN="$DRV_CT" AKAMAI_ACCESS_TOKEN="$DRV_AT"
		AKAMAI_CLIENT_SECRET="$DRV_SECRET")
	CFK_ARGS=(--provider akamai --akamai-zone example.com --akamai-api-endpoint "$1" --akamai-ca-file "$T/ca.pem")
}

drv_apply() {
	local plan=$1 drops=$2 summary=$3 faults=$4
	shift 4
	cfk_endpoint akamai "$faults" "$DRV_URL" "$DRV_IGNORE" || { RC=99; return; }
	cfk_args "$CFK_EP"
	cfk_run "$plan" "$drops" "$summary" CFK_CREDS "${CFK_ARGS[@]}" "$@"
	cfk_proxy_stop
}
