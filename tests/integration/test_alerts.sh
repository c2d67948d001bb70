#!/usr/bin/env bash
# test_alerts.sh - the alerting rules of examples/prometheus: promtool check rules, and their unit
# tests (examples/prometheus/alerts_test.yml: failing from the start, failing after successes,
# drops rising, quarantine growing, the sidecar not ready); every metric name the rules use is one
# that `dnsbatch serve` exports, or a one-shot apply's --metrics-file (read from them, not from a list kept here).
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/integration/extdns_client.sh

command -v promtool >/dev/null || { echo "not ok - promtool is installed (apt-get install prometheus)"; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/dnsbatch-alerts.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# check_out NAME CMD...: CMD succeeds; its output shown when it does not
check_out() {
	local name=$1
	shift
	if "$@" >"$tmp/out" 2>&1; then
		echo "ok - $name"
	else
		echo "not ok - $name"
		sed 's/^/#   /' "$tmp/out"
		EXTDNS_FAILED=$((EXTDNS_FAILED + 1))
	fi
}

check_out "promtool check rules examples/prometheus/alerts.yml" promtool check rules examples/prometheus/alerts.yml
check_out "promtool test rules examples/prometheus/alerts_test.yml" \
	bash -c 'cd examples/prometheus && promtool test rules alerts_test.yml'
# Every alert has a unit test.
grep -o 'alert: [A-Za-z]*' examples/prometheus/alerts.yml | sed 's/alert: //' | sort -u >"$tmp/alerts"
grep -o 'alertname: [A-Za-z]*' examples/prometheus/alerts_test.yml | sed 's/alertname: //' | sort -u >"$tmp/tested"
check_out "every alert in alerts.yml has a unit test" diff "$tmp/alerts" "$tmp/tested"
extdns_check "the rules point to no document outside the repository" \
	bash -c '! grep -n "DESIGN" examples/prometheus/*.yml'

# The metric names the rules use are exported by the program: its families' # TYPE lines on /metrics
# (the sidecar's families appear once it has counted a request, so /healthz is asked first).
grep -o 'dnsbatch_[a-z_]*' examples/prometheus/alerts.yml | sort -u >"$tmp/used"
if extdns_serve "$tmp/serve.log" --provider memory --memory-zone example.com; then
	extdns_wait_ready 10
	curl -s "$EXTDNS_MON/metrics" | sed -n 's/^# TYPE \(dnsbatch_[a-z_]*\) .*/\1/p' >"$tmp/exported"
	extdns_stop
	# and a one-shot apply's --metrics-file (its exit code, for a cron job's alert)
	"$DNSBATCH" apply --plan examples/plans/clean.json --provider memory --memory-zone example.com \
		--metrics-file "$tmp/oneshot.prom" >/dev/null 2>&1
	sed -n 's/^# TYPE \(dnsbatch_[a-z_]*\) .*/\1/p' "$tmp/oneshot.prom" >>"$tmp/exported"
	sort -u -o "$tmp/exported" "$tmp/exported"
	comm -23 "$tmp/used" "$tmp/exported" >"$tmp/unknown"
	if [ -s "$tmp/exported" ] && [ ! -s "$tmp/unknown" ]; then
		echo "ok - the rules use only metrics dnsbatch exports ($(tr '\n' ' ' <"$tmp/used"))"
	else
		echo "not ok - the rules use only metrics dnsbatch serve exports; not exported:"
		sed 's/^/#   /' "$tmp/unknown"
		EXTDNS_FAILED=$((EXTDNS_FAILED + 1))
	fi
else
	echo "not ok - dnsbatch serve starts"
	EXTDNS_FAILED=$((EXTDNS_FAILED + 1))
fi
extdns_done
