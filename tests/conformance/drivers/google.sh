# google.sh - conformance driver: Cloud DNS, served by the project's fake (build/fake_clouddns, beside $DNSBATCH)
# over HTTPS on a free loopback port. Sourced by run.sh (tests/conformance/README.md: the driver interface).
#
# dnsbatch signs in with a service-account key made here (RS256 JWT to the fake's /token, never through the fault
# proxy); the driver's own client (cloudfake.py) uses the fake's --static-token, loads the zone with changes.create,
# reads the truth from GET /_fake/zone/example-com and writes out of band with changes.create.
# Faults: through faultproxy_http.py in front of /dns/v1/. expire-credential W: the W-th write is answered 401
# with Cloud DNS's authError body (bodies/google/401-expired.json), as when an access token expires mid-batch;
# dnsbatch is to fetch a new token and go on.
# shellcheck shell=bash

. "$(dirname "${BASH_SOURCE[0]}")/cloudfake.bash"
CFK_NAME=google

DRV_TOKEN=dnsb-conformance-static-token-G4
DRV_EMAIL=dnsbatch@test-project.iam.gserviceaccount.com

drv_caps() {
	echo http lost-reply oob refuse fail-reads delay expire-credential txt-long srv mx caa ns apex
}

drv_start() {
	local fake
	fake=${FAKE_CLOUDDNS:-$(dirname "$DNSBATCH")/fake_clouddns}
	[ -x "$fake" ] || { echo "google: $fake is not built (make tests)" >&2; return 1; }
	cfk_pki || return 1
	openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$T/google-sa.key" 2>/dev/null &&
		openssl pkey -in "$T/google-sa.key" -pubout -out "$T/google-sa.pub" 2>/dev/null || return 1
	cfk_start google "$fake" --port-file "$T/google.port" --cert "$T/server.pem" --key "$T/server.key" \
		--zone example-com=example.com --pubkey "$T/google-sa.pub" --client-email "$DRV_EMAIL" \
		--static-token "$DRV_TOKEN" --page-size 100 --log "$T/google.fake.log" || return 1
	DRV_PID=$CFK_PID
	DRV_URL=https://127.0.0.1:$CFK_PORT
	DRV_ENV=(CF_URL="$DRV_URL" CF_TOKEN="$DRV_TOKEN")
	jq -n --arg uri "$DRV_URL/token" --arg email "$DRV_EMAIL" --rawfile key "$T/google-sa.key" \
		'{type: "service_account", project_id: "test-project", private_key_id: "0123abcd", private_key: $key,
		  client_email: $email, client_id: "1234567890", token_uri: $uri}' >"$T/google-sa.json"
}


# cfk_args ENDPOINT: CFK_ARGS (dnsbatch's provider flags) and CFK_CREDS (its environment) for the fake at ENDPOINT
cfk_args() {
	CFK_CREDS=()
	CFK_ARGS=(--provider google --google-project test-project --google-api-endpoint "$1/dns/v1/"
		--google-ca-file "$T/ca.pem" --google-batch-change-interval 0 --google-zone example.com=example-com
		--google-credentials "$T/google-sa.json")
}
