#!/bin/sh
# gen-prometheusrule.sh [OUT]: examples/prometheus/prometheusrule.yaml, the Prometheus Operator's PrometheusRule,
# made from examples/prometheus/alerts.yml (its spec is alerts.yml indented by two, comments and all), so that the
# two cannot drift: edit alerts.yml, then run this. OUT "-" prints it instead; tests/integration/
# test_prometheus_operator.sh fails when the committed file is not what this writes.
set -eu
cd "$(dirname "$0")/.."
out=${1:-examples/prometheus/prometheusrule.yaml}
rule() {
	cat <<'YAML'
# Prometheus Operator: the alerting rules of alerts.yml as a PrometheusRule,
# for the series podmonitor.yaml scrapes. Made by scripts/gen-prometheusrule.sh
# from alerts.yml: do not edit it, edit alerts.yml and run
#   sh scripts/gen-prometheusrule.sh
# (tests/integration/test_prometheus_operator.sh fails while the two differ,
# and checks that this validates against the operator's CRD schema).
# Your Prometheus must select it: kube-prometheus-stack's selects only rules
# labelled release=<its release name> unless
# ruleSelectorNilUsesHelmValues is false; change the label to yours.
apiVersion: monitoring.coreos.com/v1
kind: PrometheusRule
metadata:
  name: dnsbatch
  namespace: external-dns
  labels:
    app.kubernetes.io/name: dnsbatch
    release: kube-prometheus-stack
spec:
YAML
	sed 's/^./  &/' examples/prometheus/alerts.yml
}
if [ "$out" = - ]; then
	rule
else
	rule >"$out.tmp" && mv "$out.tmp" "$out"
fi
