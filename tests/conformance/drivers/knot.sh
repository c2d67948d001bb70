# shellcheck shell=bash
# drivers/knot.sh - Knot DNS (knotd) through RFC 2136 with TSIG: drivers/dns_common.sh with knotd.
DNS_SERVER=knotd
. "$CONF/drivers/dns_common.sh"
