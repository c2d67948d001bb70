#!/usr/bin/env bash
#
# test_dashboard.sh - the Grafana dashboard of examples/grafana/dnsbatch.json, every panel's query
# evaluated by a real Prometheus (the Debian package) scraping a real sidecar that has applied plans
# with drops and failures:
# - the sidecar: `dnsbatch serve --provider aws` against tests/fakes/fake_route53.py, with a rate
#   budget in a real redis-server (--rate-budget, so its waits and throttles are counted); the fake
#   answers 500 to the first change (failed, --max-retries 0: 503) and Throttling to the next two
#   (waited out), and holds a record that a plan's create conflicts with (dropped, quarantined, then
#   dropped as quarantined on the next loop);
# - Prometheus scrapes it with examples/prometheus/prometheus.yml (target, interval and the
#   namespace/pod labels of the Kubernetes scrape changed for the test);
# - the dashboard has the panels the monitoring kit promises; each query (Grafana's variables
#   replaced as Grafana would: $namespace and $pod by the "All" value .*, $__rate_interval and
#   $__range by 5m) parses (Prometheus answers success), names only metrics `dnsbatch serve`
#   exports (its /metrics' # TYPE lines, histograms with their _bucket/_sum/_count), and returns
#   data. The template variables' label_values queries return the scrape's namespace and pod.
# - PENDING lists a metric another change adds (dnsbatch_held_changes{zone,kind}, issue 33's held
#   changes): while the sidecar does not export it, the queries naming it are reported pending
#   (ok ... # SKIP), not passed; once it is exported they are checked as every other.
#
# Prints "ok - NAME" or "not ok - NAME" per check; exits 1 if any failed.
. "$(dirname "$0")/checks.sh"
test_begin
. tests/integration/extdns_client.sh
. tests/integration/aws_fake.sh
. tests/integration/redis.sh
. tests/integration/servers.sh   # for dnsb_free_port only

PENDING=(dnsbatch_held_changes)
DASH=examples/grafana/dnsbatch.json
fake_begin botocore.auth python3-botocore openssl jq curl python3 prometheus redis-server redis-cli

jqq() { jq "$@" >/dev/null; }
# The dashboard: JSON, the panels the kit promises, each with a query.
check "$DASH is JSON with panels, each with a Prometheus query" \
	jqq -e '(.panels | length > 0) and all(.panels[]; (.targets | length > 0) and all(.targets[]; .expr | length > 0))' "$DASH"
for want in "Changes by outcome" "Drops by reason and cause" "Quarantined groups" "Held changes" \
	"Provider requests by class" "Request latency" "Rate budget: waits and throttles"; do
	check "a panel \"$want\"" jqq -e --arg t "$want" 'any(.panels[]; .title == $t)' "$DASH"
done

# The sidecar and what it applied.
printf 'ZEXAMPLE taken.example.com. 300 A 198.51.100.7\n' >"$T/seed"
start_fake dash --seed "$T/seed" --page-size 50 --fault 500 --fault throttle --fault throttle || exit 1
start_redis "$T/redis" || { not_ok "redis-server starts"; exit 1; }
export HOME=$T/home AWS_ENDPOINT_URL_ROUTE_53=$URL AWS_CA_BUNDLE=$T/ca.pem AWS_ACCESS_KEY_ID=$KEY_ID \
	AWS_SECRET_ACCESS_KEY=$SECRET
extdns_serve "$T/serve.log" --provider aws --aws-batch-change-interval 0 --max-retries 0 \
	--rate-budget "redis://127.0.0.1:$REDIS_PORT" --rate-budget-rate 4 --rate-budget-burst 1 \
	--drop-log "$T/drops.jsonl" || { not_ok "dnsbatch serve starts" "$(tail -5 "$T/serve.log")"; exit 1; }
check "the sidecar is ready" extdns_wait_ready 10
plan "$T/p1.json" create="$(list "$(ep fresh1.example.com A 300 192.0.2.1)")"
plan "$T/p2.json" create="$(list "$(ep taken.example.com A 300 192.0.2.2)" "$(ep fresh2.example.com A 300 192.0.2.3)")"
extdns_post "$EXTDNS_API" /records "$T/p1.json" >/dev/null
eq "a plan whose change the provider fails (500, no retry): 503" "$EXTDNS_STATUS" 503
extdns_post "$EXTDNS_API" /records "$T/p2.json" >/dev/null
eq "a plan with a conflict, throttled twice: 204" "$EXTDNS_STATUS" 204
extdns_post "$EXTDNS_API" /records "$T/p2.json" >/dev/null
eq "the same plan on the next loop (the conflict quarantined): 204" "$EXTDNS_STATUS" 204
extdns_get "$EXTDNS_API" /records >/dev/null
curl -s "$EXTDNS_MON/metrics" >"$T/metrics"
eq "the sidecar counted a failed, a dropped and an applied change" \
	"$(grep -c '^dnsbatch_changes_total{.*outcome="\(failed\|dropped\|applied\)"}' "$T/metrics")" 3
# The families it exports, histograms with their series' suffixes.
awk '$1 == "#" && $2 == "TYPE" && $3 ~ /^dnsbatch_/ { print $3; if ($4 == "histogram") print $3 "_bucket\n" $3 "_sum\n" $3 "_count" }' \
	"$T/metrics" | sort -u >"$T/exported"

# Prometheus, scraping it every second.
mon=${EXTDNS_MON#http://}
sed -e "s/127\.0\.0\.1:8080\"\]/$mon\"]\n        labels: {namespace: external-dns, pod: external-dns-0}/" \
	-e 's/^\(  scrape_interval:\).*/\1 1s/' -e 's/^\(  evaluation_interval:\).*/\1 1s/' -e '/^rule_files:/,/^$/d' \
	examples/prometheus/prometheus.yml >"$T/prometheus.yml"
check "the test's Prometheus configuration passes promtool" bash -c 'promtool check config "$1" >/dev/null 2>&1' _ \
	"$T/prometheus.yml"
started=
for attempt in 1 2 3 4 5; do
	port=$(dnsb_free_port) || break
	prometheus --config.file="$T/prometheus.yml" --storage.tsdb.path="$T/data.$attempt" \
		--web.listen-address="127.0.0.1:$port" >"$T/prometheus.log" 2>&1 &
	prom_pid=$!
	PIDS+=("$prom_pid")
	for i in $(seq 1 100); do
		[ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/-/ready")" = 200 ] && { started=1; break; }
		kill -0 "$prom_pid" 2>/dev/null || break
		sleep 0.1
	done
	[ -n "$started" ] && break
	kill "$prom_pid" 2>/dev/null && wait "$prom_pid" 2>/dev/null
done
[ -n "$started" ] || { not_ok "prometheus starts" "$(tail -n 5 "$T/prometheus.log")"; exit 1; }
ok "prometheus starts on 127.0.0.1:$port"
PROM=http://127.0.0.1:$port/api/v1
# query PROMQL: Prometheus's answer (JSON)
query() { curl -s -G "$PROM/query" --data-urlencode "query=$1"; }
# Five scrapes at least, so that rate() has samples in its window.
for i in $(seq 1 200); do
	[ "$(query 'count_over_time(dnsbatch_webhook_ready[5m])' | jq -r '.data.result[0].value[1] // 0')" -ge 5 ] && break
	sleep 0.1
done
eq "Prometheus scraped the sidecar 5 times" \
	"$(query 'count_over_time(dnsbatch_webhook_ready[5m]) >= 5' | jq -r '.data.result | length')" 1

# The template variables.
eq "variable namespace: label_values(dnsbatch_webhook_ready, namespace)" \
	"$(curl -s -G "$PROM/label/namespace/values" --data-urlencode 'match[]=dnsbatch_webhook_ready' | jq -r '.data | join(",")')" \
	external-dns
eq "variable pod: label_values(dnsbatch_webhook_ready{namespace=~\"external-dns\"}, pod)" \
	"$(curl -s -G "$PROM/label/pod/values" --data-urlencode 'match[]=dnsbatch_webhook_ready{namespace=~"external-dns"}' |
		jq -r '.data | join(",")')" external-dns-0

# metric_names: the metric names a PromQL expression on stdin selects, one a line: what is left once
# strings, label matchers, ranges and grouping labels are taken out, that is not a function, an
# aggregation, a keyword or a number.
metric_names() {
	python3 -c '
import re, sys
e = sys.stdin.read()
e = re.sub(r"\"(\\.|[^\"\\])*\"", "", e)
e = re.sub(r"\{[^}]*\}|\[[^\]]*\]", " ", e)
e = re.sub(r"\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)", " ", e)
for m in re.finditer(r"(?<![\w.:])([a-zA-Z_:][\w:]*)(?![\w:])(?!\s*\()", e):
    if m.group(1) not in ("and", "or", "unless", "offset", "bool", "by", "without", "group_left", "group_right",
                          "Inf", "NaN", "inf", "nan"):
        print(m.group(1))' | sort -u
}

# Every panel's every query.
jq -r '.panels[] | .title as $t | .targets[] | [$t, .refId, .expr] | @tsv' "$DASH" >"$T/queries"
pending_seen=()
while IFS=$'\t' read -r title ref expr; do
	q=$(printf '%s' "$expr" | sed -e 's/\$namespace/.*/g' -e 's/\$pod/.*/g' -e 's/\$__rate_interval/5m/g' -e 's/\$__range/5m/g')
	name="panel \"$title\" $ref"
	printf '%s' "$q" | metric_names >"$T/names"
	unknown=$(comm -23 "$T/names" "$T/exported")
	pending=$(printf '%s\n' "${PENDING[@]}" | sort -u | comm -12 - <(printf '%s\n' "$unknown"))
	if [ -z "$(printf '%s' "$unknown")" ]; then
		:
	elif [ "$pending" = "$unknown" ]; then
		ok "$name: pending, $pending not exported yet # SKIP"
		pending_seen+=("$pending")
		continue
	else
		not_ok "$name: names only metrics the sidecar exports" "not exported: $(echo $unknown)" "query: $q"
		continue
	fi
	query "$q" >"$T/answer"
	if ! jq -e '.status == "success"' "$T/answer" >/dev/null; then
		not_ok "$name: parses" "$(jq -r '.error // .' "$T/answer")" "query: $q"
	elif ! jq -e '.data.result | length > 0' "$T/answer" >/dev/null; then
		not_ok "$name: returns data" "query: $q"
	else
		ok "$name: parses, names only exported metrics ($(echo $(cat "$T/names"))), returns $(jq '.data.result | length' "$T/answer") series"
	fi
done <"$T/queries"
[ ${#pending_seen[@]} -eq 0 ] || echo "# pending: $(printf '%s\n' "${pending_seen[@]}" | sort -u | paste -sd' ') (the queries naming it are checked once the sidecar exports it)"

# The checks can fail: a query that does not parse, one naming a metric the sidecar does not export.
eq "a query that does not parse is refused" "$(query 'sum by (zone (dnsbatch_changes_total)' | jq -r .status)" error
printf '%s' 'sum by (zone) (rate(dnsbatch_change_total{namespace=~".*"}[5m])) / on (zone) group_left up' | metric_names >"$T/names"
eq "a query naming metrics not exported is caught" "$(comm -23 "$T/names" "$T/exported" | paste -sd' ')" "dnsbatch_change_total up"

extdns_stop
eq "the sidecar: SIGTERM, exit status 0" "$EXTDNS_EXIT" 0
exit $((failures > 0))
