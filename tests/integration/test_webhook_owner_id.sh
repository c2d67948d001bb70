#!/usr/bin/env bash
# test_webhook_owner_id.sh - `serve --txt-owner-id` (external-dns's flag, issue 33 §3): a quarantined group held by
# a record of the sidecar's own owner is not counted in dnsbatch_conflicting_owner_groups{foreign_owner=...}; a
# foreign owner's still is. Without the flag every owner counts, as before. Through `dnsbatch serve` on zone files.
. "$(dirname "$0")/checks.sh"
test_begin
. tests/integration/servers.sh
. tests/integration/extdns_client.sh
dnsb_servers_init
tmp=$(mktemp -d "$DNSB_SERVERS_TMP/owner.XXXXXX")
{ zone_head example.test; cat; } >"$tmp/zone" <<EOF
taken      IN A   198.51.100.77
a-taken    IN TXT $(registry_txt other ingress/default/legacy)
moved      IN A   192.0.2.82
a-moved    IN TXT $(registry_txt blue ingress/default/moved)
EOF
ep() { printf '{"dnsName":"%s","targets":["%s"],"recordType":"A","recordTTL":300,"labels":{"owner":"blue"}}' "$1" "$2"; }
printf '{"create":[%s],"updateOld":[%s],"updateNew":[%s]}' "$(ep taken.example.test 192.0.2.1)" \
	"$(ep moved.example.test 192.0.2.9)" "$(ep moved.example.test 192.0.2.10)" >"$tmp/plan.json"

run() { # LABEL SERVE-ARGS...: post the plan (two conflicts: owner other, owner blue); the owner gauge's series
	local label=$1
	shift
	cp "$tmp/zone" "$tmp/$label.zone"
	extdns_serve "$tmp/$label.log" --provider zonefile --zonefile "example.test=$tmp/$label.zone" \
		--quarantine-backoff 3600 --quarantine-max 3600 "$@" ||
		{ echo "not ok - $label: serve starts"; EXTDNS_FAILED=$((EXTDNS_FAILED + 1)); return; }
	extdns_wait_ready 10
	extdns_post "$EXTDNS_API" /records "$tmp/plan.json" >/dev/null
	extdns_check "$label: POST answers 204" [ "$EXTDNS_STATUS" = 204 ]
	extdns_check "$label: both groups quarantined" [ "$(extdns_metric dnsbatch_quarantined_groups)" = 2 ]
	curl -s "$EXTDNS_MON/metrics" | grep '^dnsbatch_conflicting_owner_groups{' >"$tmp/$label.owners"
	extdns_stop
}
owners() { sed 's/.*foreign_owner="\([^"]*\)".* \(.*\)/\1=\2/' "$tmp/$1.owners" | sort | tr '\n' ' '; }
run without
extdns_check "without --txt-owner-id: every owner counted (blue, other): $(owners without)" \
	[ "$(owners without)" = "blue=1 other=1 " ]
run with --txt-owner-id blue
extdns_check "with --txt-owner-id blue: only the foreign owner counted: $(owners with)" [ "$(owners with)" = "other=1 " ]
extdns_check "serve --help lists --txt-owner-id" sh -c '"$1" serve --help | grep -q -- "--txt-owner-id ID"' _ "$DNSBATCH"
extdns_done
