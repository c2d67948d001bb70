# shellcheck shell=bash disable=SC2034 # variables run.sh and the sourcing driver read
# drivers/bind.sh - BIND 9 (named) through RFC 2136 with TSIG: drivers/dns_common.sh with named.
DNS_SERVER=named
. "$CONF/drivers/dns_common.sh"
