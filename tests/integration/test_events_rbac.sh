#!/usr/bin/env bash
# test_events_rbac.sh - the RBAC the sidecar's Kubernetes Events need, in the deployment examples.
# dnsbatch posts an events.k8s.io/v1 Event on the object that asked for a record (the Endpoint's
# labels.resource) and reads that object for its uid, so the pod's service account must be able to:
# - create and patch events in the group events.k8s.io (patch: a recurring event's series count);
# - get each kind external-dns's sources read: those the example enables (--source=, sources:) and
#   always services, ingresses and Gateway API HTTPRoutes.
# examples/kubernetes/external-dns-dnsbatch.yaml: the rules of the ClusterRoles and Roles bound to the
# Deployment's service account. examples/helm/values.yaml: the chart's rbac.create and
# rbac.additionalPermissions (appended to its ClusterRole, a Role when namespaced). A rule counts
# for a verb on a kind only without resourceNames. The check is run on copies with a verb or a kind
# taken out too, which it must refuse (so it can fail).
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/integration/extdns_client.sh

py=/usr/bin/python3
[ -x "$py" ] || py=python3
tmp=$(mktemp -d "${TMPDIR:-/tmp}/dnsbatch-rbac.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
"$py" -c 'import yaml' 2>/dev/null || { echo "not ok - python3 has yaml (apt-get install python3-yaml)"; exit 1; }
manifest=examples/kubernetes/external-dns-dnsbatch.yaml
values=examples/helm/values.yaml

# missing FILE: what the RBAC of FILE (the manifest or the Helm values) lacks, one line each
missing() {
	"$py" - "$1" <<'PY'
import sys, yaml

# external-dns's source -> (API group, resource) of the object its labels.resource names
KINDS = {
    "service": ("", "services"), "pod": ("", "pods"), "node": ("", "nodes"),
    "ingress": ("networking.k8s.io", "ingresses"),
    "gateway-httproute": ("gateway.networking.k8s.io", "httproutes"),
    "gateway-grpcroute": ("gateway.networking.k8s.io", "grpcroutes"),
    "gateway-tlsroute": ("gateway.networking.k8s.io", "tlsroutes"),
    "gateway-tcproute": ("gateway.networking.k8s.io", "tcproutes"),
    "gateway-udproute": ("gateway.networking.k8s.io", "udproutes"),
    "crd": ("externaldns.k8s.io", "dnsendpoints"),
    "istio-gateway": ("networking.istio.io", "gateways"),
    "istio-virtualservice": ("networking.istio.io", "virtualservices"),
}

def manifest(docs):
    deploy = [d for d in docs if d.get("kind") == "Deployment"][0]
    sa = deploy["spec"]["template"]["spec"].get("serviceAccountName", "default")
    ns = deploy["metadata"]["namespace"]
    roles = {(d["kind"], d["metadata"]["name"]): d for d in docs if d.get("kind") in ("ClusterRole", "Role")}
    rules = []
    for b in docs:
        if b.get("kind") not in ("ClusterRoleBinding", "RoleBinding"):
            continue
        if not any(s.get("kind") == "ServiceAccount" and s.get("name") == sa and s.get("namespace", ns) == ns
                   for s in b.get("subjects", [])):
            continue
        role = roles.get((b["roleRef"]["kind"], b["roleRef"]["name"]))
        rules += role.get("rules", []) if role else []
    sources = [a.split("=", 1)[1] for c in deploy["spec"]["template"]["spec"]["containers"]
               if c["name"] == "external-dns" for a in c.get("args", []) if a.startswith("--source=")]
    return rules, sources

def helm(values):
    rbac = values.get("rbac") or {}
    rules = rbac.get("additionalPermissions") or [] if rbac.get("create", True) else []
    return rules, values.get("sources") or ["service", "ingress"]

def allows(rules, group, resource, verb):
    return any(not r.get("resourceNames") and
               (group in r.get("apiGroups", []) or "*" in r.get("apiGroups", [])) and
               (resource in r.get("resources", []) or "*" in r.get("resources", [])) and
               (verb in r.get("verbs", []) or "*" in r.get("verbs", []))
               for r in rules)

docs = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d]
rules, sources = manifest(docs) if any(d.get("kind") == "Deployment" for d in docs) else helm(docs[0])
out = []
for verb in ("create", "patch"):
    if not allows(rules, "events.k8s.io", "events", verb):
        out.append("%s events.k8s.io/events" % verb)
for src in sorted(set(sources) | {"service", "ingress", "gateway-httproute"}):
    if src not in KINDS:
        out.append("source %s: a kind this test does not know (add it to KINDS)" % src)
    elif not allows(rules, *KINDS[src], "get"):
        out.append("get %s/%s (source %s)" % (KINDS[src][0] or "core", KINDS[src][1], src))
if out:
    print("\n".join(out))
PY
}

check_rbac() { # FILE
	missing "$1" >"$tmp/missing" 2>&1
	if [ ! -s "$tmp/missing" ]; then
		echo "ok - $1: events create/patch and get on the source kinds ($(grep -o -- '--source=[a-z-]*\|^  - [a-z-]*$' "$1" | sed 's/.*[= ]//' | sort -u | tr '\n' ' '| sed 's/ $//'))"
	else
		echo "not ok - $1: the Events RBAC lacks:"
		sed 's/^/#   /' "$tmp/missing"
		EXTDNS_FAILED=$((EXTDNS_FAILED + 1))
	fi
}
check_refused() { # NAME FILE ORIGINAL
	if cmp -s "$2" "$3"; then
		echo "not ok - $1: the edit did not apply"
		EXTDNS_FAILED=$((EXTDNS_FAILED + 1))
	elif missing "$2" >"$tmp/missing" 2>&1 && [ -s "$tmp/missing" ]; then
		echo "ok - $1 is found lacking ($(head -n 1 "$tmp/missing"))"
	else
		echo "not ok - $1 is found lacking"
		EXTDNS_FAILED=$((EXTDNS_FAILED + 1))
	fi
}

check_rbac "$manifest"
check_rbac "$values"
sed 's/verbs: \["create", "patch"\]/verbs: ["create"]/' "$manifest" >"$tmp/no-patch.yaml"
check_refused "the manifest without patch on events" "$tmp/no-patch.yaml" "$manifest"
sed '/^  name: dnsbatch-events$/,/^---$/{/^    namespace: external-dns$/s/external-dns/default/}' "$manifest" >"$tmp/other-sa.yaml"
check_refused "the manifest with dnsbatch-events bound to another namespace's account" "$tmp/other-sa.yaml" "$manifest"
sed 's/resources: \["httproutes", /resources: [/' "$values" >"$tmp/no-httproutes.yaml"
check_refused "the Helm values without get on httproutes" "$tmp/no-httproutes.yaml" "$values"
sed 's/^  - ingress$/  - ingress\n  - istio-gateway/' "$values" >"$tmp/istio.yaml"
check_refused "the Helm values with an istio-gateway source and no get on its kind" "$tmp/istio.yaml" "$values"
sed 's/^  create: true$/  create: false/' "$values" >"$tmp/no-rbac.yaml"
check_refused "the Helm values with rbac.create false" "$tmp/no-rbac.yaml" "$values"
extdns_done
