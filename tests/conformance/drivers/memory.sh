# shellcheck shell=bash disable=SC2034 # RC is run.sh's
# drivers/memory.sh - the memory provider, in process: tests/conformance/memory_driver.c loads the zone into it,
# meets the faults in a provider wrapped around it (lost reply, another writer before a submission, refusals,
# failing reads, delay, an expired credential), runs the engine and writes the zone back. Truth: that zone file,
# as ldns reads it. The other writer is in the process (oob-before), so drv_oob is never called from outside.
drv_caps() { echo "mem lost-reply oob refuse fail-reads delay expire-credential"; }
drv_start() {
	DRV_MZ=$T/memory.zone
	DRV_BIN=$BUILD/tests/conformance/memory_driver
	[ -x "$DRV_BIN" ] || { echo "$DRV_BIN is not built (make tests)" >&2; return 1; }
}
drv_load() { conf_zone_file "$1" "$DRV_MZ"; }
drv_apply() {
	local plan=$1 drops=$2 summary=$3 faults=$4
	shift 4
	# run.sh's preview (CONF_PREVIEWING): the engine as `dnsbatch plan` runs it
	"$DRV_BIN" "$DRV_MZ" "$plan" "$drops" "$summary" "$faults" "$@" ${CONF_PREVIEWING:+--preview}
	RC=$?
}
drv_truth() { conf_zone_truth "$DRV_MZ"; }
drv_oob() { echo "memory: the other writer is in the process" >&2; return 1; }
drv_stop() { :; }
