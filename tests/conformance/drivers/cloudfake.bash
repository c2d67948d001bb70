# cloudfake.bash - what the four cloud drivers (google.sh, route53.sh, cloudflare.sh, azure.sh) share: sourced by
# each of them. The fake runs once per provider per run on a free loopback port over HTTPS (a test CA and a server
# certificate made here with the openssl CLI unless $T/ca.pem is there already); the zone is loaded, read and written
# out of band by cloudfake.py, straight against the fake with a credential of its own (never through dnsbatch);
# dnsbatch runs through run.sh's fault proxy (faultproxy_http.py) when the scenario has faults.
#
# Needs (from run.sh): T (temp dir), PIDS (array of PIDs to kill), DNSBATCH, conf_http_proxy and conf_stop_proxy
# (only when a scenario has faults). Gives: cfk_pki, cfk_wait_port, cfk_start NAME CMD... (sets CFK_PORT, CFK_PID),
# cfk_endpoint PROVIDER FAULTFILE UPSTREAM [IGNORE] (sets CFK_EP, the URL dnsbatch is to use: the fake's, or a
# fault proxy's in front of it), cfk_proxy_stop, cfk_tool PROVIDER VERB [ARG] (cloudfake.py with DRV_ENV),
# cfk_run, cfk_stop, and drv_load, drv_truth, drv_oob, drv_apply and drv_stop for the driver named CFK_NAME. The
# drivers keep their state in DRV_* variables (run.sh saves them for its --oob entry).
# shellcheck shell=bash

CFK_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
CFK_CONF=$(dirname "$CFK_DIR")

# cfk_pki: $T/ca.pem, $T/server.pem and $T/server.key (127.0.0.1), once per run
cfk_pki() {
	[ -s "$T/ca.pem" ] && [ -s "$T/server.pem" ] && return 0
	{
		openssl req -x509 -newkey rsa:2048 -nodes -keyout "$T/ca.key" -out "$T/ca.pem" -days 2 \
			-subj /CN=dnsbatch-conformance-ca &&
		openssl req -newkey rsa:2048 -nodes -keyout "$T/server.key" -out "$T/server.csr" -subj /CN=127.0.0.1 &&
		printf 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\nbasicConstraints=CA:FALSE\n' \
			>"$T/cfk-ext.cnf" &&
		openssl x509 -req -in "$T/server.csr" -CA "$T/ca.pem" -CAkey "$T/ca.key" -CAcreateserial \
			-out "$T/server.pem" -days 2 -extfile "$T/cfk-ext.cnf"
	} >"$T/cfk-pki.log" 2>&1
}

# cfk_wait_port FILE PID: until FILE holds a port (10 s at most, or until PID dies); prints it
cfk_wait_port() {
	local i
	for ((i = 0; i < 200; i++)); do
		[ -s "$1" ] && break
		kill -0 "$2" 2>/dev/null || break
		sleep 0.05
	done
	[ -s "$1" ] && head -n1 "$1"
}

# cfk_start NAME CMD...: start a fake writing its port to $T/NAME.port; CFK_PORT, CFK_PID
cfk_start() {
	local name=$1
	shift
	rm -f "$T/$name.port"
	"$@" 2>"$T/$name.fake.err" &
	CFK_PID=$!
	PIDS+=("$CFK_PID")
	CFK_PORT=$(cfk_wait_port "$T/$name.port" "$CFK_PID") && return 0
	echo "cloudfake: $name did not start: $(tail -3 "$T/$name.fake.err")" >&2
	return 1
}

# cfk_tool PROVIDER VERB [ARG]: cloudfake.py with that provider's environment (the driver's DRV_ENV array, kept
# with the other DRV_* state for run.sh's --oob entry); a driver whose fake has a client of its own names it in
# DRV_TOOL (akamaifake.py, dofake.py), which takes VERB [ARG] alone
cfk_tool() {
	local tool=cloudfake.py
	if [ -n "${DRV_TOOL:-}" ]; then
		tool=$DRV_TOOL
		shift
	fi
	env "${DRV_ENV[@]}" CF_CA="$T/ca.pem" DNSBATCH="$DNSBATCH" python3 "$CFK_DIR/$tool" "$@"
}

# cfk_faults PROVIDER FAULTFILE OUT: the fault lines the proxy is to meet, the driver's hooks applied:
# expire-credential W, for a provider whose credential is renewed on the refusal (Cloud DNS and Azure access tokens,
# Route53 temporary credentials from STS), becomes a refusal of the W-th write with that provider's documented expiry
# answer (the renewed credential works); for Cloudflare, whose API token cannot be renewed, every request from W on
# is answered Cloudflare's authentication error, and for Akamai (EdgeGrid) and DigitalOcean (a token), neither
# renewed either, their 401. Every other line as it is (the proxy finds a body's extension).
cfk_faults() {
	local prov=$1 in=$2 out=$3 line verb w
	while IFS= read -r line; do
		read -r verb w _ <<<"$line"
		case $verb in
		expire-credential)
			case $prov in
			google | azure) echo "refuse $w 401 401-expired.json" ;;
			route53) echo "refuse $w 403 403-expired-token.xml" ;;
			cloudflare) echo "expire-credential $w 403-auth.json" ;;
			akamai | digitalocean) echo "expire-credential $w 401-auth.json 401" ;;
			esac ;;
		*) printf '%s\n' "$line" ;;
		esac
	done <"$in" >"$out"
}

# cfk_has_faults FILE: FILE names at least one fault line
cfk_has_faults() { [ -n "$1" ] && [ -s "$1" ] && grep -qvE '^[[:space:]]*(#|$)' "$1"; }

# cfk_endpoint PROVIDER FAULTFILE UPSTREAM [IGNORE-REGEX]: CFK_EP = UPSTREAM (the fake's base URL) when no fault,
# else the URL of run.sh's fault proxy (conf_http_proxy: TLS with the test certificate) in front of it, meeting
# the faults as cfk_faults rewrites them
cfk_endpoint() {
	local prov=$1 faults=$2 up=$3 ignore=${4:-}
	CFK_EP=$up
	cfk_has_faults "$faults" || return 0
	cfk_faults "$prov" "$faults" "$T/$prov.faults"
	conf_http_proxy "$up" "$T/$prov.faults" --cert "$T/server.pem" --key "$T/server.key" \
		--upstream-ca "$T/ca.pem" ${ignore:+--ignore "$ignore"} || return 1
	CFK_EP=https://127.0.0.1:$PROXY_PORT
}

cfk_proxy_stop() { conf_stop_proxy; }

# cfk_run PLAN DROPLOG SUMMARY ENV-ARRAY-NAME ARGS...: dnsbatch apply in a clean environment (PATH, HOME, the
# sanitizers' options and the named credential variables only), its stderr the caller's; RC
cfk_run() {
	local plan=$1 drops=$2 summary=$3
	local -n _cfk_creds=$4
	shift 4
	env -i PATH="$PATH" HOME="$T" LC_ALL=C ${ASAN_OPTIONS:+ASAN_OPTIONS=$ASAN_OPTIONS} \
		${UBSAN_OPTIONS:+UBSAN_OPTIONS=$UBSAN_OPTIONS} "${_cfk_creds[@]}" \
		"$DNSBATCH" apply --plan "$plan" --output json --drop-log "$drops" \
		--backoff-base 0.01 --backoff-cap 0.05 "$@" >"$summary"
	RC=$?
}

# cfk_stop PID: the fake, by its PID
cfk_stop() { [ -n "${1:-}" ] && kill "$1" 2>/dev/null && wait "$1" 2>/dev/null; return 0; }

##### the driver interface (tests/conformance/README.md), the same for the four ###############################
# Each driver sets CFK_NAME (its cloudfake.py name) and gives drv_caps, drv_start (sets DRV_PID, DRV_URL, DRV_ENV)
# and cfk_args ENDPOINT (sets CFK_ARGS, dnsbatch's provider flags, and CFK_CREDS, its environment).
drv_load() { cfk_tool "$CFK_NAME" load "$1"; }
drv_truth() { cfk_tool "$CFK_NAME" truth; }
drv_oob() { cfk_tool "$CFK_NAME" oob "$1"; }

# drv_apply PLAN DROPLOG SUMMARY FAULTFILE [FLAGS...]: dnsbatch apply through a fault proxy when FAULTFILE has
# faults; RC (99: the proxy did not start)
drv_apply() {
	local plan=$1 drops=$2 summary=$3 faults=$4
	shift 4
	cfk_endpoint "$CFK_NAME" "$faults" "$DRV_URL" || { RC=99; return; }
	cfk_args "$CFK_EP"
	cfk_run "$plan" "$drops" "$summary" CFK_CREDS "${CFK_ARGS[@]}" "$@"
	cfk_proxy_stop
}

drv_stop() { cfk_proxy_stop; cfk_stop "${DRV_PID:-}"; DRV_PID=; }
