#!/usr/bin/env bash
# test_webhook_prometheus.sh - a real Prometheus (the Debian package) scrapes
# `dnsbatch serve`'s /metrics with the configuration in examples/prometheus
# (its target and interval changed for the test), and a dnsbatch series is
# read back from Prometheus's HTTP API.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/integration/extdns_client.sh
. tests/integration/servers.sh   # for dnsb_free_port only

command -v prometheus >/dev/null || { echo "not ok - prometheus is installed (apt-get install prometheus)"; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/dnsbatch-webhook-prom.XXXXXX")
prom_pid=
trap '[ -n "$prom_pid" ] && kill "$prom_pid" 2>/dev/null && wait "$prom_pid" 2>/dev/null; rm -rf "$tmp"' EXIT

extdns_check "example config passes promtool check config" promtool check config examples/prometheus/prometheus.yml
extdns_check "example alerting rules pass promtool check rules" promtool check rules examples/prometheus/alerts.yml

# The third submission fails (503, no retry): a failed change for the series too.
extdns_serve "$tmp/serve.log" --provider memory --memory-zone example.com --memory-faults '3:transient' \
	--max-retries 0 || { echo "not ok - serve starts"; exit 1; }
extdns_check "serve ready" extdns_wait_ready 10

# One record applied, then a conflicting create of the same name: dropped.
printf '{"create":[{"dnsName":"app.example.com","targets":["192.0.2.1"],"recordType":"A"}]}' >"$tmp/p1.json"
printf '{"create":[{"dnsName":"app.example.com","targets":["192.0.2.2"],"recordType":"A"}]}' >"$tmp/p2.json"
extdns_post "$EXTDNS_API" /records "$tmp/p1.json" >/dev/null
extdns_check "first POST answers 204" [ "$EXTDNS_STATUS" = 204 ]
extdns_post "$EXTDNS_API" /records "$tmp/p2.json" >/dev/null
extdns_check "conflicting POST answers 204" [ "$EXTDNS_STATUS" = 204 ]
printf '{"create":[{"dnsName":"web.example.com","targets":["192.0.2.3"],"recordType":"A"}]}' >"$tmp/p3.json"
extdns_post "$EXTDNS_API" /records "$tmp/p3.json" >/dev/null
extdns_check "transient provider failure (--memory-faults) answers 503" [ "$EXTDNS_STATUS" = 503 ]

mon=${EXTDNS_MON#http://}
sed -e "s/127\.0\.0\.1:8080/$mon/" -e 's/^\(  scrape_interval:\).*/\1 1s/' -e 's/^\(  evaluation_interval:\).*/\1 1s/' \
	examples/prometheus/prometheus.yml >"$tmp/prometheus.yml"
cp examples/prometheus/alerts.yml "$tmp/"
extdns_check "test config points at the sidecar" grep -q "\"$mon\"" "$tmp/prometheus.yml"

started=
for attempt in 1 2 3 4 5; do
	port=$(dnsb_free_port) || break
	prometheus --config.file="$tmp/prometheus.yml" --storage.tsdb.path="$tmp/data.$attempt" \
		--web.listen-address="127.0.0.1:$port" >"$tmp/prometheus.log" 2>&1 &
	prom_pid=$!
	for i in $(seq 1 100); do
		if [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/-/ready")" = 200 ]; then
			started=1
			break
		fi
		kill -0 "$prom_pid" 2>/dev/null || break
		sleep 0.1
	done
	[ -n "$started" ] && break
	kill "$prom_pid" 2>/dev/null && wait "$prom_pid" 2>/dev/null
	prom_pid=
done
if [ -z "$started" ]; then
	echo "not ok - prometheus starts"
	tail -n 20 "$tmp/prometheus.log"
	exit 1
fi
echo "ok - prometheus starts on 127.0.0.1:$port"

query() { # PROMQL: the first result's value, or nothing
	curl -s -G "http://127.0.0.1:$port/api/v1/query" --data-urlencode "query=$1" |
		jq -r 'select(.status == "success") | .data.result[0].value[1] // empty'
}
value=
for i in $(seq 1 150); do
	value=$(query 'dnsbatch_dropped_changes_total{job="dnsbatch",zone="example.com.",record_type="A",reason="conflict"}')
	[ -n "$value" ] && break
	sleep 0.1
done
extdns_check "Prometheus holds the dropped-changes series" [ "$value" = 1 ]
extdns_check "Prometheus holds the applied-changes series" \
	[ "$(query 'dnsbatch_changes_total{zone="example.com.",outcome="applied"}')" = 1 ]
extdns_check "Prometheus holds the failed-changes series" \
	[ "$(query 'dnsbatch_failed_changes_total{zone="example.com.",record_type="A",reason="transient"}')" = 1 ]
extdns_check "Prometheus holds the sidecar's own series" \
	[ "$(query 'dnsbatch_webhook_requests_total{route="/records",method="POST",code="204"}')" = 2 ]
curl -s "http://127.0.0.1:$port/api/v1/targets" >"$tmp/targets.json"
extdns_check "scrape target healthy" jq -e '.data.activeTargets | length == 1 and .[0].health == "up"' "$tmp/targets.json"
curl -s "http://127.0.0.1:$port/api/v1/rules" >"$tmp/rules.json"
extdns_check "alerting rules loaded (as many as alerts.yml has)" jq -e --argjson n "$(grep -c -- '- alert:' examples/prometheus/alerts.yml)" \
	'[.data.groups[].rules[]] | length == $n' "$tmp/rules.json"

extdns_stop
extdns_check "SIGTERM: exit status 0" [ "$EXTDNS_EXIT" = 0 ]
extdns_done
