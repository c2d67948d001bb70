#!/bin/sh
# preview_wrap.sh - stands for dnsbatch when run.sh (CONF_PREVIEW=1) asks a driver's drv_apply for a preview:
# `dnsbatch apply ARGS` becomes `dnsbatch plan ARGS` (issue 33 §1), less the flags a preview has no use for
# (the drop log). The real binary is $CONF_REAL_DNSBATCH.
[ "$1" = apply ] || exec "$CONF_REAL_DNSBATCH" "$@"
shift
n=$#
i=0
while [ "$i" -lt "$n" ]; do
	a=$1
	shift
	i=$((i + 1))
	case $a in
	--drop-log | --drop-log-max-size) shift; i=$((i + 1)) ;;
	--drop-log=* | --drop-log-max-size=*) ;;
	*) set -- "$@" "$a" ;;
	esac
done
exec "$CONF_REAL_DNSBATCH" plan "$@"
