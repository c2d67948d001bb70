#!/usr/bin/env bash
# test_helm.sh - the deployment examples. examples/helm/values.yaml, for external-dns's own Helm chart:
# - merged over the chart's defaults as Helm merges them, it validates against the chart's
#   values.schema.json (a copy in tests/integration/helm, its source in helm/SOURCE), and values
#   that break the schema are refused (so the check can fail);
# - the webhook container's args run: `dnsbatch serve` with them (host, port, key file, drop log
#   and listen addresses pointed at the test's) starts against a real BIND with TSIG, and its
#   /healthz on the metrics port answers as the probes expect: 200 once BIND answered;
# - one TSIG setup in the values and the manifest: the key file from the Secret dnsbatch-tsig,
#   mounted read-only where --rfc2136-tsig-keyfile reads it, no secret in env or args;
# - the probes ask /healthz on the chart's webhook port, which is where --metrics-listen serves,
#   and the container runs as the Dockerfile's user.
# examples/kubernetes/external-dns-dnsbatch.yaml, the same pod as a plain manifest: its dnsbatch
# container's probes ask /healthz on the port --metrics-listen serves (named http-webhook, as the
# chart names it), it runs as the Dockerfile's user, it has the values' image, and every flag in its
# args is one `dnsbatch serve --help` lists.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/integration/servers.sh
. tests/integration/extdns_client.sh
dnsb_servers_init || { echo "not ok - servers.sh init"; exit 1; }
T=$DNSB_SERVERS_TMP
values=examples/helm/values.yaml
schema=tests/integration/helm/values.schema.json
defaults=tests/integration/helm/chart-values.yaml

# Debian's python3, where make deps installs the modules (a python3 earlier on PATH may be another).
py=/usr/bin/python3
[ -x "$py" ] || py=python3
if ! "$py" -c 'import jsonschema, yaml' 2>"$T/py.err"; then
	echo "not ok - python3 has jsonschema and yaml (apt-get install python3-jsonschema python3-yaml; make deps)"
	sed 's/^/#   /' "$T/py.err"
	exit 1
fi

# validate VALUES: VALUES merged over the chart's defaults (maps merged key by key, anything else
# replaced, a null removing the key, as Helm does), checked against the schema; errors on stdout
validate() {
	"$py" - "$schema" "$defaults" "$1" <<'PY'
import json, sys, yaml, jsonschema

def merge(base, over):
    out = dict(base)
    for k, v in over.items():
        if v is None:
            out.pop(k, None)
        elif isinstance(v, dict) and isinstance(out.get(k), dict):
            out[k] = merge(out[k], v)
        else:
            out[k] = v
    return out

schema = json.load(open(sys.argv[1]))
merged = merge(yaml.safe_load(open(sys.argv[2])), yaml.safe_load(open(sys.argv[3])) or {})
errors = sorted(jsonschema.Draft7Validator(schema).iter_errors(merged), key=lambda e: list(e.absolute_path))
for e in errors:
    print("%s: %s" % (".".join(str(p) for p in e.absolute_path) or "(top)", e.message))
sys.exit(1 if errors else 0)
PY
}
# get JQ: a value of $values (lists one item a line)
"$py" -c 'import json, sys, yaml; json.dump(yaml.safe_load(open(sys.argv[1])), sys.stdout)' "$values" >"$T/values.json"
get() { jq -r "$1 | if type == \"array\" then .[] else . end" "$T/values.json"; }

if validate "$values" >"$T/valid.out"; then
	echo "ok - $values validates against the chart's values.schema.json (commit $(sed -n 's/^  commit *\([0-9a-f]\{8\}\).*/\1/p' tests/integration/helm/SOURCE))"
else
	echo "not ok - $values validates against the chart's values.schema.json"
	sed 's/^/#   /' "$T/valid.out"
	EXTDNS_FAILED=$((EXTDNS_FAILED + 1))
fi
# Values that break the schema: args as one string, a policy the chart does not know, no policy.
sed 's/^    args:$/    args: "serve --provider=rfc2136"/; /^      - serve$/,/^      - --log-format=json$/d' "$values" >"$T/bad-args.yaml"
sed 's/^policy: sync$/policy: always/' "$values" >"$T/bad-policy.yaml"
sed '/^policy: /d' "$values" >"$T/no-policy.yaml"
for bad in bad-args bad-policy no-policy; do
	if cmp -s "$values" "$T/$bad.yaml"; then
		echo "not ok - $bad: the edit of $values did not apply"
		EXTDNS_FAILED=$((EXTDNS_FAILED + 1))
	elif validate "$T/$bad.yaml" >"$T/$bad.out"; then
		echo "not ok - values with $bad are refused by the schema"
		EXTDNS_FAILED=$((EXTDNS_FAILED + 1))
	else
		echo "ok - values with $bad are refused by the schema ($(head -n 1 "$T/$bad.out"))"
	fi
done

extdns_check "provider.name is webhook" [ "$(get .provider.name)" = webhook ]
version=$(sed -n 's/^#define DNSBATCH_VERSION "\(.*\)"$/\1/p' include/dnsbatch/version.h)
extdns_check "the image is the release's, ghcr.io/dnsbatch/dnsbatch:$version (include/dnsbatch/version.h)" \
	[ "$(get '.provider.webhook.image | "\(.repository):\(.tag)"')" = "ghcr.io/dnsbatch/dnsbatch:$version" ]
extdns_check "external-dns is v0.22.0 (image.tag)" [ "$(get .image.tag)" = v0.22.0 ]
extdns_check "the image's repository and tag are set (the chart fails without them)" \
	jq -e '.provider.webhook.image | (.repository | type == "string") and (.tag | type == "string")' "$T/values.json"
for probe in readinessProbe livenessProbe; do
	extdns_check "$probe asks /healthz on the chart's webhook port (http-webhook)" \
		[ "$(get ".provider.webhook.$probe.httpGet | \"\\(.path) \\(.port)\"")" = "/healthz http-webhook" ]
done
get .provider.webhook.args >"$T/args"
extdns_check "--metrics-listen serves on the chart's webhook port, 8080" grep -qx -- '--metrics-listen=0.0.0.0:8080' "$T/args"
extdns_check "--listen is external-dns's default webhook URL, localhost:8888" grep -qx -- '--listen=127.0.0.1:8888' "$T/args"
docker_user=$(sed -n 's/^USER[[:space:]]\{1,\}\([0-9]*:[0-9]*\).*/\1/p' Dockerfile | tail -n 1)
extdns_check "securityContext runs as the Dockerfile's user ($docker_user), non-root" \
	[ "$(get '.provider.webhook.securityContext | "\(.runAsUser):\(.runAsGroup) \(.runAsNonRoot)"')" = "$docker_user true" ]

# One TSIG setup in both: the key file tsig-keygen writes, from the Secret dnsbatch-tsig, mounted
# read-only where --rfc2136-tsig-keyfile reads it; no secret in env or args.
tsig_mount() { # JSON (the pod spec or the values): "SECRET MOUNTPATH" of the volume mounted for the key
	jq -r '. as $p | ($p.volumes // $p.extraVolumes)[] | select(.secret) | .name as $v | .secret.secretName as $s |
		($p.containers // [{volumeMounts: $p.provider.webhook.extraVolumeMounts}])[] | .volumeMounts[]? |
		select(.name == $v and .readOnly == true) | "\($s) \(.mountPath)"' "$1" | sort -u
}
keyfile=$(sed -n 's/^--rfc2136-tsig-keyfile=//p' "$T/args")
extdns_check "the values read the TSIG key from a file (--rfc2136-tsig-keyfile)" [ -n "$keyfile" ]
extdns_check "no secret in the webhook's env or args" \
	jq -e '([(.provider.webhook.env // [])[] | select(.valueFrom.secretKeyRef or (.name | test("SECRET|TOKEN|KEY")))] == [])
		and ([.provider.webhook.args[] | select(test("secret"))] == [])' "$T/values.json"
extdns_check "the key file is in the Secret dnsbatch-tsig, mounted read-only at its directory" \
	[ "$(tsig_mount "$T/values.json")" = "dnsbatch-tsig ${keyfile%/*}" ]

# The args, run. BIND serves example.com with a TSIG key of the name and algorithm of the example
# Secret (secret-tsig.example.yaml); the key file goes where the values' --rfc2136-tsig-keyfile says.
[ "$(head -n 1 "$T/args")" = serve ] || { echo "not ok - the args start with the command, serve"; exit 1; }
keyname=$(sed -n 's/^[[:space:]]*key "\([^"]*\)".*/\1/p' examples/kubernetes/secret-tsig.example.yaml)
alg=$(sed -n 's/^[[:space:]]*algorithm \([^;]*\);.*/\1/p' examples/kubernetes/secret-tsig.example.yaml)
if ! dnsb_tsig_keygen "$T/key.conf" "$keyname" "$alg" ||
	! dnsb_start_named example.com examples/zones/example.com.zone "$T/key.conf"; then
	echo "not ok - named starts"
	extdns_done
fi
# --events needs a Kubernetes API (test_webhook_events.sh tests it); here it is left out.
sed -e '1d' -e '/^--listen=/d' -e '/^--metrics-listen=/d' -e '/^--events$/d' \
	-e "s|^--rfc2136-host=.*|--rfc2136-host=127.0.0.1|" -e "s|^--rfc2136-port=.*|--rfc2136-port=$DNSB_SERVER_PORT|" \
	-e "s|^--rfc2136-tsig-keyfile=.*|--rfc2136-tsig-keyfile=$T/key.conf|" \
	-e "s|^--drop-log=.*|--drop-log=$T/drops.jsonl|" "$T/args" >"$T/test-args"
mapfile -t args <"$T/test-args"
if extdns_serve "$T/serve.log" "${args[@]}" 2>"$T/serve.start"; then
	echo "ok - dnsbatch serve starts with the values' args"
	extdns_check "its /healthz answers 200 once BIND answered" extdns_wait_ready 10
	extdns_get "$EXTDNS_API" /records >"$T/records.json"
	extdns_check "it lists the zone through the TSIG key file" \
		jq -e 'any(.[]; .dnsName == "www.example.com")' "$T/records.json"
	extdns_stop
	extdns_check "SIGTERM: exit status 0" [ "$EXTDNS_EXIT" = 0 ]
else
	echo "not ok - dnsbatch serve starts with the values' args"
	sed 's/^/#   /' "$T/serve.start"
	EXTDNS_FAILED=$((EXTDNS_FAILED + 1))
fi

# The plain manifest.
manifest=examples/kubernetes/external-dns-dnsbatch.yaml
"$py" -c 'import json, sys, yaml
for d in yaml.safe_load_all(open(sys.argv[1])):
    if d and d.get("kind") == "Deployment": json.dump(d["spec"]["template"]["spec"], sys.stdout)' "$manifest" >"$T/pod.json"
jq '.containers[] | select(.name == "dnsbatch")' "$T/pod.json" >"$T/k8s.json"
extdns_check "$manifest: a dnsbatch container with an image" jq -e '.image | type == "string"' "$T/k8s.json"
metrics_port=$(jq -r '.args[] | select(startswith("--metrics-listen=")) | sub(".*:"; "")' "$T/k8s.json")
extdns_check "$manifest: the port named http-webhook, as the chart names it, is --metrics-listen's ($metrics_port)" \
	jq -e --argjson p "${metrics_port:-0}" 'any(.ports[]; .name == "http-webhook" and .containerPort == $p)' "$T/k8s.json"
for probe in readinessProbe startupProbe livenessProbe; do
	extdns_check "$manifest: $probe asks /healthz on the http-webhook port" \
		jq -e ".$probe.httpGet | .path == \"/healthz\" and .port == \"http-webhook\"" "$T/k8s.json"
done
extdns_check "$manifest: the same TSIG key file as the Helm values (--rfc2136-tsig-keyfile=$keyfile)" \
	jq -e --arg k "$keyfile" 'any(.args[]; . == "--rfc2136-tsig-keyfile=" + $k) and
		([(.env // [])[] | select(.valueFrom.secretKeyRef)] == [])' "$T/k8s.json"
extdns_check "$manifest: the key file from the same Secret, mounted read-only at the same directory" \
	[ "$(tsig_mount "$T/pod.json")" = "dnsbatch-tsig ${keyfile%/*}" ]
extdns_check "$manifest: the same image as the Helm values" \
	[ "$(jq -r .image "$T/k8s.json")" = "$(get '.provider.webhook.image | "\(.repository):\(.tag)"')" ]
extdns_check "$manifest: the pod runs as the Dockerfile's user ($docker_user)" \
	[ "$(jq -r '.securityContext | "\(.runAsUser):\(.runAsGroup)"' "$T/pod.json")" = "$docker_user" ]
# The provider's flags are in `serve --provider NAME --help` (plain `serve --help` names the providers only).
provider=$(jq -r '.args[] | select(startswith("--provider=")) | sub("--provider="; "")' "$T/k8s.json")
"$DNSBATCH" serve --provider "$provider" --help >"$T/serve-help" 2>&1
jq -r '.args[] | select(startswith("--")) | sub("=.*"; "")' "$T/k8s.json" | while read -r flag; do
	grep -Eq -- "(^|[[:space:]])$flag([[:space:]]|$)" "$T/serve-help" || echo "$flag"
done >"$T/unknown-flags"
if [ -s "$T/serve-help" ] && [ ! -s "$T/unknown-flags" ]; then
	echo "ok - $manifest: every flag of the dnsbatch args is in dnsbatch serve --help"
else
	echo "not ok - $manifest: every flag of the dnsbatch args is in dnsbatch serve --help; not there:"
	sed 's/^/#   /' "$T/unknown-flags"
	EXTDNS_FAILED=$((EXTDNS_FAILED + 1))
fi
extdns_done
