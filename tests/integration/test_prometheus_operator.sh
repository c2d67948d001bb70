#!/usr/bin/env bash
# test_prometheus_operator.sh - the Prometheus Operator objects of examples/prometheus:
# - podmonitor.yaml and prometheusrule.yaml validate against the operator's CRD schemas (copies in
#   tests/integration/prometheus-operator, their source in its SOURCE), unknown fields refused as
#   `kubectl apply --validate=strict` refuses them; objects that break the schemas are refused (so
#   the check can fail);
# - the PrometheusRule is what scripts/gen-prometheusrule.sh writes from alerts.yml, it carries alerts.yml's
#   groups, unchanged, and promtool accepts them;
# - one scrape story: the PodMonitor selects the pod of examples/kubernetes and the pods external-dns's
#   Helm chart makes with examples/helm/values.yaml (label app.kubernetes.io/name=external-dns, the
#   chart's selector label), on the port both name http-webhook, which is where --metrics-listen
#   serves; kubernetes-scrape-config.yml keeps the same port name.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/integration/extdns_client.sh

py=/usr/bin/python3
[ -x "$py" ] || py=python3
tmp=$(mktemp -d "${TMPDIR:-/tmp}/dnsbatch-promop.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
if ! "$py" -c 'import jsonschema, yaml' 2>"$tmp/py.err"; then
	echo "not ok - python3 has jsonschema and yaml (apt-get install python3-jsonschema python3-yaml; make deps)"
	exit 1
fi
crds=tests/integration/prometheus-operator
ex=examples/prometheus

# validate CRD OBJECT: OBJECT against the CRD's v1 openAPIV3Schema, strict; errors on stdout
validate() {
	"$py" - "$1" "$2" <<'PY'
import sys, yaml, jsonschema

def strict(s):
    """Refuse fields the schema does not name, as kubectl's strict field validation does."""
    if isinstance(s, dict):
        if "properties" in s and "additionalProperties" not in s \
                and not s.get("x-kubernetes-preserve-unknown-fields"):
            s["additionalProperties"] = False
        for v in s.values():
            strict(v)
    elif isinstance(s, list):
        for v in s:
            strict(v)
    return s

crd = yaml.safe_load(open(sys.argv[1]))
obj = yaml.safe_load(open(sys.argv[2]))
version = [v for v in crd["spec"]["versions"] if v["name"] == "v1" and v["served"]][0]
schema = strict(version["schema"]["openAPIV3Schema"])
schema["properties"]["metadata"] = {"type": "object"}   # ObjectMeta: the API server's, not the CRD's
errors = []
if obj.get("apiVersion") != crd["spec"]["group"] + "/v1" or obj.get("kind") != crd["spec"]["names"]["kind"]:
    errors.append("(top): apiVersion/kind %s/%s is not the CRD's" % (obj.get("apiVersion"), obj.get("kind")))
errors += ["%s: %s" % (".".join(str(p) for p in e.absolute_path) or "(top)", e.message)
           for e in jsonschema.Draft7Validator(schema).iter_errors(obj)]
print("\n".join(errors))
sys.exit(1 if errors else 0)
PY
}

check_valid() { # NAME CRD OBJECT
	if validate "$2" "$3" >"$tmp/out"; then
		echo "ok - $1 validates against $(basename "$2") (prometheus-operator $(sed -n 's/^  tag *\([^,]*\),.*/\1/p' $crds/SOURCE))"
	else
		echo "not ok - $1 validates against $(basename "$2")"
		sed 's/^/#   /' "$tmp/out"
		EXTDNS_FAILED=$((EXTDNS_FAILED + 1))
	fi
}
check_refused() { # NAME CRD OBJECT ORIGINAL
	if cmp -s "$3" "$4"; then
		echo "not ok - $1: the edit did not apply"
		EXTDNS_FAILED=$((EXTDNS_FAILED + 1))
	elif validate "$2" "$3" >"$tmp/out"; then
		echo "not ok - $1 is refused by the schema"
		EXTDNS_FAILED=$((EXTDNS_FAILED + 1))
	else
		echo "ok - $1 is refused by the schema ($(head -n 1 "$tmp/out"))"
	fi
}

pm_crd=$crds/monitoring.coreos.com_podmonitors.yaml
pr_crd=$crds/monitoring.coreos.com_prometheusrules.yaml
check_valid "$ex/podmonitor.yaml" "$pm_crd" "$ex/podmonitor.yaml"
check_valid "$ex/prometheusrule.yaml" "$pr_crd" "$ex/prometheusrule.yaml"
sed 's/podMetricsEndpoints:/podMetricEndpoints:/' "$ex/podmonitor.yaml" >"$tmp/pm-typo.yaml"
check_refused "a PodMonitor with a misspelt field (podMetricEndpoints)" "$pm_crd" "$tmp/pm-typo.yaml" "$ex/podmonitor.yaml"
sed 's/interval: 30s/interval: 30 seconds/' "$ex/podmonitor.yaml" >"$tmp/pm-interval.yaml"
check_refused "a PodMonitor with an interval not a duration" "$pm_crd" "$tmp/pm-interval.yaml" "$ex/podmonitor.yaml"
sed '0,/for: 15m/s//for: 15 minutes/' "$ex/prometheusrule.yaml" >"$tmp/pr-for.yaml"
check_refused "a PrometheusRule with a for: not a duration" "$pr_crd" "$tmp/pr-for.yaml" "$ex/prometheusrule.yaml"
sed '0,/^      rules:/s//      rule:/' "$ex/prometheusrule.yaml" >"$tmp/pr-rules.yaml"
check_refused "a PrometheusRule group without rules (rule:)" "$pr_crd" "$tmp/pr-rules.yaml" "$ex/prometheusrule.yaml"

# The PrometheusRule is alerts.yml: made from it by scripts/gen-prometheusrule.sh, not by hand.
if sh scripts/gen-prometheusrule.sh - >"$tmp/generated.yaml" && diff -u "$ex/prometheusrule.yaml" "$tmp/generated.yaml" \
	>"$tmp/gen.diff"; then
	echo "ok - prometheusrule.yaml is what scripts/gen-prometheusrule.sh writes from alerts.yml"
else
	echo "not ok - prometheusrule.yaml is what scripts/gen-prometheusrule.sh writes from alerts.yml (run it)"
	head -n 40 "$tmp/gen.diff" | sed 's/^/#   /'
	EXTDNS_FAILED=$((EXTDNS_FAILED + 1))
fi
"$py" - "$ex/prometheusrule.yaml" "$tmp/groups.yml" <<'PY'
import sys, yaml
yaml.safe_dump({"groups": yaml.safe_load(open(sys.argv[1]))["spec"]["groups"]}, open(sys.argv[2], "w"))
PY
extdns_check "prometheusrule.yaml holds alerts.yml's groups, unchanged" "$py" -c '
import sys, yaml
sys.exit(yaml.safe_load(open(sys.argv[1])) != yaml.safe_load(open(sys.argv[2])))' "$tmp/groups.yml" "$ex/alerts.yml"
extdns_check "promtool check rules accepts the PrometheusRule's groups" promtool check rules "$tmp/groups.yml"

# One scrape story: the PodMonitor finds both installs' sidecar port.
to_json() { "$py" -c 'import json, sys, yaml; json.dump([d for d in yaml.safe_load_all(open(sys.argv[1])) if d], sys.stdout)' "$1"; }
to_json "$ex/podmonitor.yaml" | jq '.[0]' >"$tmp/pm.json"
to_json examples/kubernetes/external-dns-dnsbatch.yaml | jq '.[] | select(.kind == "Deployment")' >"$tmp/deploy.json"
"$py" -c 'import json, sys, yaml; json.dump(yaml.safe_load(open(sys.argv[1])), sys.stdout)' examples/helm/values.yaml >"$tmp/values.json"
port=$(jq -r '.spec.podMetricsEndpoints[0].port' "$tmp/pm.json")
extdns_check "the PodMonitor selects the manifest's pod (its labels, its namespace)" \
	jq -e --slurpfile pm "$tmp/pm.json" '.spec.template.metadata.labels as $l | .metadata.namespace as $ns |
		($pm[0].spec.selector.matchLabels | to_entries | all(.value == $l[.key])) and
		($pm[0].spec.namespaceSelector.matchNames | index($ns) != null)' "$tmp/deploy.json"
extdns_check "the PodMonitor's port ($port) is the manifest's dnsbatch port that --metrics-listen serves" \
	jq -e --arg p "$port" '.spec.template.spec.containers[] | select(.name == "dnsbatch") |
		(.args[] | select(startswith("--metrics-listen=")) | sub(".*:"; "") | tonumber) as $n |
		any(.ports[]; .name == $p and .containerPort == $n)' "$tmp/deploy.json"
# The chart's pods: selector label app.kubernetes.io/name=external-dns (its name, unless nameOverride),
# the webhook container's port http-webhook, 8080 (helm/SOURCE).
extdns_check "the PodMonitor selects the chart's pods (app.kubernetes.io/name=external-dns, no nameOverride)" \
	jq -e --slurpfile pm "$tmp/pm.json" '($pm[0].spec.selector.matchLabels == {"app.kubernetes.io/name": "external-dns"})
		and (.nameOverride == null)' "$tmp/values.json"
extdns_check "the chart's http-webhook port (8080) is where the values' --metrics-listen serves" \
	jq -e --arg p "$port" '$p == "http-webhook" and any(.provider.webhook.args[]; . == "--metrics-listen=0.0.0.0:8080")' \
	"$tmp/values.json"
extdns_check "the values leave the chart's ServiceMonitor off (no double scrape)" \
	jq -e '.serviceMonitor.enabled == false' "$tmp/values.json"
extdns_check "kubernetes-scrape-config.yml keeps the same port name ($port)" \
	"$py" -c 'import sys, yaml
c = yaml.safe_load(open(sys.argv[1]))["scrape_configs"][0]["relabel_configs"]
sys.exit(not any(r.get("action") == "keep" and r["source_labels"] == ["__meta_kubernetes_pod_container_port_name"]
                 and r["regex"] == sys.argv[2] for r in c))' "$ex/kubernetes-scrape-config.yml" "$port"
extdns_done
