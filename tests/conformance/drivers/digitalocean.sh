# digitalocean.sh - conformance driver: DigitalOcean DNS (domains and domain records, API v2), served by the project's
# fake (tests/fakes/fake_digitalocean.py: every request checked against DigitalOcean's published OpenAPI description)
# over HTTPS on a free loopback port. Sourced by run.sh (tests/conformance/README.md: the driver interface).
#
# dnsbatch reads its token from a file (--digitalocean-token-file; $DO_TOKEN is the other way); the driver's own
# client (dofake.py) has a token of its own, so its requests spend no rate budget of dnsbatch's. It loads the zone
# through the fake's load hook, reads the truth from the fake's state (failing when the fake saw a request or reply
# off the description), and writes out of band with a record POST of the API (another client's record joins the
# RRset, at its TTL). The fake's rate limits are set far above what a run spends (the suite does not test them;
# tests/integration/test_fake_digitalocean.sh does).
# Writes, as the fault proxy counts them: POST, PUT, PATCH and DELETE of records, each one record.
# Faults: through faultproxy_http.py. expire-credential W: a DigitalOcean token is not renewed, so every request from
# the W-th write on is answered DigitalOcean's 401 (bodies/digitalocean/401-auth.json).
# shellcheck shell=bash

. "$(dirname "${BASH_SOURCE[0]}")/cloudfake.bash"
CFK_NAME=digitalocean
DRV_TOOL=dofake.py # the fake's own client (cloudfake.bash's cfk_tool)

DRV_API_TOKEN=dop_v1_dnsbconformance0123456789abcdef0123456789abcdef0123456789abcdef01
DRV_OWN_TOKEN=dop_v1_dnsbdriver0fedcba9876543210fedcba9876543210fedcba9876543210fedc

drv_caps() {
	echo http lost-reply oob refuse fail-reads delay expire-credential txt-long srv mx caa ns apex
}

drv_start() {
	cfk_pki || return 1
	(umask 077 && printf '%s\n' "$DRV_API_TOKEN" >"$T/digitalocean.token") || return 1
	cfk_start digitalocean python3 "$CFK_CONF/../fakes/fake_digitalocean.py" --port-file "$T/digitalocean.port" \
		--cert "$T/server.pem" --key "$T/server.key" --domain example.com --token "$DRV_API_TOKEN" \
		--token "$DRV_OWN_TOKEN" --rate-minute 1000000 --rate-hour 1000000 \
		--log "$T/digitalocean.fake.log" || return 1
	DRV_PID=$CFK_PID
	DRV_URL=https://127.0.0.1:$CFK_PORT
	DRV_ENV=(CF_URL="$DRV_URL" CF_TOKEN="$DRV_OWN_TOKEN")
}

# cfk_args ENDPOINT: CFK_ARGS (dnsbatch's provider flags) and CFK_CREDS (its environment: none, the token is a file)
cfk_args() {
	CFK_CREDS=()
	CFK_ARGS=(--provider digitalocean --digitalocean-api-endpoint "$1" --digitalocean-ca-file "$T/ca.pem"
		--digitalocean-token-file "$T/digitalocean.token")
}
