# shellcheck shell=bash disable=SC2034 # variables run.sh and the sourcing driver read
# drivers/knot.sh - Knot DNS (knotd) through RFC 2136 with TSIG: drivers/dns_common.sh with knotd.
DNS_SERVER=knotd
. "$CONF/drivers/dns_common.sh"
