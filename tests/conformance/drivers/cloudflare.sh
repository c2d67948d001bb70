# cloudflare.sh - conformance driver: Cloudflare, served by the project's fake (tests/fakes/fake_cloudflare.py, every
# batch body checked against Cloudflare's published schema) over HTTPS on a free loopback port. Sourced by run.sh
# (tests/conformance/README.md: the driver interface).
#
# dnsbatch uses an API token reaching example.com; the driver's own client (cloudfake.py) has a token of its own
# (its requests do not spend dnsbatch's rate limit): it loads the zone with the batch endpoint, reads the truth from
# GET /_fake/zone/ID (a proxied record or one with a comment shows " ; proxied=true comment=..."), and writes out of
# band with a batch post (another client's record joins the RRset, as on Cloudflare). The fake's rate limit is set
# far above what a conformance run spends (the suite does not test the rate limit).
# Faults: through faultproxy_http.py. expire-credential W: an API token is not renewed, so every request from the
# W-th write on is answered Cloudflare's authentication error (bodies/cloudflare/403-auth.json, code 10000).
# shellcheck shell=bash

. "$(dirname "${BASH_SOURCE[0]}")/cloudfake.bash"
CFK_NAME=cloudflare

DRV_API_TOKEN=dnsb-conformance-cf-token-T3
DRV_OWN_TOKEN=dnsb-conformance-cf-driver-D6
DRV_ZONE=0123456789abcdef0123456789abcdef
# the properties Cloudflare stores per record, under external-dns's names (judge.py --props), and the TTL a
# proxied record has (automatic: judge.py --ttl-loose)
DRV_PROPS="external-dns.alpha.kubernetes.io/cloudflare-proxied external-dns.alpha.kubernetes.io/cloudflare-record-comment"
DRV_TTL_LOOSE="external-dns.alpha.kubernetes.io/cloudflare-proxied=true"

drv_caps() {
	echo http lost-reply oob refuse fail-reads delay expire-credential txt-long srv mx caa ns apex proxied
}

drv_start() {
	cfk_pki || return 1
	cfk_start cloudflare python3 "$CFK_CONF/../fakes/fake_cloudflare.py" --port-file "$T/cloudflare.port" \
		--cert "$T/server.pem" --key "$T/server.key" --zone "$DRV_ZONE=example.com" \
		--token "$DRV_API_TOKEN=$DRV_ZONE" --token "$DRV_OWN_TOKEN=*" --rate 1000000 --page-size 100 \
		--log "$T/cloudflare.fake.log" || return 1
	DRV_PID=$CFK_PID
	DRV_URL=https://127.0.0.1:$CFK_PORT
	DRV_ENV=(CF_URL="$DRV_URL" CF_TOKEN="$DRV_OWN_TOKEN")
}


# cfk_args ENDPOINT: CFK_ARGS (dnsbatch's provider flags) and CFK_CREDS (its environment) for the fake at ENDPOINT
cfk_args() {
	CFK_CREDS=(CF_API_TOKEN="$DRV_API_TOKEN")
	CFK_ARGS=(--provider cloudflare --cloudflare-zone-id "$DRV_ZONE" --cloudflare-api-endpoint "$1/client/v4"
		--cloudflare-ca-file "$T/ca.pem")
}
