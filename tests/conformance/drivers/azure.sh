# azure.sh - conformance driver: Azure DNS, served by the project's fake (tests/fakes/fake_azure.py, every body and
# query checked against Azure's REST specification) over HTTPS on a free loopback port. Sourced by run.sh
# (tests/conformance/README.md: the driver interface).
#
# dnsbatch signs in with a client secret (the token endpoint at the fake, never through the fault proxy); the
# driver's own client (cloudfake.py) takes a token of its own the same way, loads the zone with record-set PUT and
# DELETE, reads the truth from the API's listing (a record set dnsbatch cannot represent, an alias with
# targetResource or an empty one, shows as "owner. TTL TYPE - ; ..."), and writes out of band with a conditional PUT
# (If-Match on the ETag it read: another client's record joins the record set).
# The listing page is 100 record sets (a nextLink names the fake's own port, which the fault proxy does not serve).
# Faults: through faultproxy_http.py. expire-credential W: the W-th write is answered 401 ExpiredAuthenticationToken
# (bodies/azure/401-expired.json); dnsbatch is to fetch a new token and send the refused requests again.
# shellcheck shell=bash

. "$(dirname "${BASH_SOURCE[0]}")/cloudfake.bash"
CFK_NAME=azure

DRV_SECRET=dnsb-conformance-az-secret-S5

drv_caps() {
	echo http lost-reply oob refuse fail-reads delay expire-credential txt-long srv mx caa ns apex
}

drv_start() {
	cfk_pki || return 1
	cfk_start azure python3 "$CFK_CONF/../fakes/fake_azure.py" --port-file "$T/azure.port" \
		--cert "$T/server.pem" --key "$T/server.key" --zone example.com --tenant tenant-0001 \
		--client-id client-0001 --client-secret "$DRV_SECRET" --page-size 100 \
		--log "$T/azure.fake.log" || return 1
	DRV_PID=$CFK_PID
	DRV_URL=https://127.0.0.1:$CFK_PORT
	DRV_ENV=(CF_URL="$DRV_URL" CF_SECRET="$DRV_SECRET")
}


# cfk_args ENDPOINT: CFK_ARGS (dnsbatch's provider flags) and CFK_CREDS (its environment) for the fake at ENDPOINT
cfk_args() {
	CFK_CREDS=(AZURE_TENANT_ID=tenant-0001 AZURE_CLIENT_ID=client-0001 AZURE_CLIENT_SECRET="$DRV_SECRET"
		AZURE_AUTHORITY_HOST="$DRV_URL")
	CFK_ARGS=(--provider azure --azure-subscription-id sub-0001 --azure-resource-group rg-dns
		--azure-api-endpoint "$1/" --azure-ca-file "$T/ca.pem")
}
