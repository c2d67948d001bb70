# route53.sh - conformance driver: Route53, served by the project's fake (tests/fakes/fake_route53.py, every request's
# SigV4 signature and body checked with botocore) over HTTPS on a free loopback port. Sourced by run.sh
# (tests/conformance/README.md: the driver interface).
#
# dnsbatch signs in with temporary credentials from STS (AssumeRoleWithWebIdentity at the fake, never through the
# fault proxy), as external-dns does on EKS; the driver's own client (cloudfake.py, through boto3) has a long-term key
# of its own: it loads the zone with ChangeResourceRecordSets, reads the truth with ListResourceRecordSets, and
# writes out of band with UPSERT. Routing and alias record sets appear in the truth as "... ; set-identifier=..
# aws/weight=.. alias=true alias-target=.. ..." (cloudfake.py).
# Faults: through faultproxy_http.py, which keeps the Host header dnsbatch signed. expire-credential W: the W-th
# write is answered 403 ExpiredToken (bodies/route53/403-expired-token.xml); dnsbatch is to fetch new credentials
# from STS and go on.
# shellcheck shell=bash

. "$(dirname "${BASH_SOURCE[0]}")/cloudfake.bash"
CFK_NAME=route53

DRV_KEY_ID=AKIDCONFORMANCEDRV1
DRV_SECRET=dnsb-conformance-driver-Kq2
DRV_WEB_TOKEN=dnsb-conformance-web-identity-V8
# the properties Route53 stores for a record set, under external-dns v0.22's names (judge.py --props)
DRV_PROPS="alias aws/evaluate-target-health aws/weight aws/region aws/failover aws/geolocation-continent-code"
DRV_PROPS+=" aws/geolocation-country-code aws/geolocation-subdivision-code aws/geoproximity-region aws/geoproximity-bias"
DRV_PROPS+=" aws/geoproximity-coordinates aws/geoproximity-local-zone-group aws/multi-value-answer aws/health-check-id"

drv_caps() {
	echo http lost-reply oob refuse fail-reads delay expire-credential txt-long srv mx caa ns apex alias routing
}

drv_start() {
	cfk_pki || return 1
	printf '%s\n' "$DRV_WEB_TOKEN" >"$T/route53.web-token"
	cfk_start route53 python3 "$CFK_CONF/../fakes/fake_route53.py" --port-file "$T/route53.port" \
		--cert "$T/server.pem" --key "$T/server.key" --zone ZEXAMPLE=example.com \
		--creds "$DRV_KEY_ID:$DRV_SECRET" --web-token "$DRV_WEB_TOKEN" --page-size 100 \
		--log "$T/route53.fake.log" || return 1
	DRV_PID=$CFK_PID
	DRV_URL=https://127.0.0.1:$CFK_PORT
	DRV_ENV=(CF_URL="$DRV_URL" CF_KEY_ID="$DRV_KEY_ID" CF_SECRET="$DRV_SECRET")
}


# cfk_args ENDPOINT: CFK_ARGS (dnsbatch's provider flags) and CFK_CREDS (its environment) for the fake at ENDPOINT
cfk_args() {
	CFK_CREDS=(AWS_ENDPOINT_URL_ROUTE_53="$1" AWS_ENDPOINT_URL_STS="$DRV_URL" AWS_CA_BUNDLE="$T/ca.pem"
		AWS_ROLE_ARN=arn:aws:iam::123456789012:role/dnsbatch AWS_WEB_IDENTITY_TOKEN_FILE="$T/route53.web-token")
	CFK_ARGS=(--provider aws --aws-zone-id ZEXAMPLE --aws-batch-change-interval 0)
}
