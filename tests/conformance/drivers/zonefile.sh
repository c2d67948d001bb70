# shellcheck shell=bash disable=SC2034 # RC is run.sh's
# drivers/zonefile.sh - the zone-file provider: dnsbatch rewrites a zone file; no network, so no fault at a
# provider boundary (no lost reply, no other writer in the window). Truth: the file as ldns reads it.
drv_caps() { echo "file"; }
drv_start() { DRV_ZF=$T/example.com.zone; }
drv_load() { conf_zone_file "$1" "$DRV_ZF"; }
drv_apply() {
	local plan=$1 drops=$2 summary=$3
	shift 4
	"$DNSBATCH" apply --plan "$plan" --provider zonefile --zonefile "example.com=$DRV_ZF" --drop-log "$drops" \
		--output json --backoff-base 0.01 --backoff-cap 0.05 "$@" >"$summary"
	RC=$?
}
drv_truth() { conf_zone_truth "$DRV_ZF"; }
drv_oob() { echo "zonefile: no other writer" >&2; return 1; }
drv_stop() { :; }
