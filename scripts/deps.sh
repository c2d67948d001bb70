#!/bin/sh
# Install the Debian packages that the build, the tests and the benchmarks need,
# plus any named as arguments (make fuzz adds clang). As root it runs apt-get;
# otherwise it prints the one command to run.
set -eu
PKGS="build-essential pkg-config libcurl4-openssl-dev libjson-c-dev libssl-dev libldns-dev libcmocka-dev
libmicrohttpd-dev libre2-dev libidn2-dev libxml2-dev libhiredis-dev redis-server bind9 bind9-utils bind9-dnsutils knot pdns-server pdns-backend-sqlite3 sqlite3
prometheus jq curl openssl python3 python3-botocore python3-jsonschema python3-yaml python3-dnspython ldnsutils bc universal-ctags $*"
missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
	echo "missing Debian packages; run as root:" >&2
	echo "  apt-get update && apt-get install -y$missing" >&2
	exit 1
fi
echo "installing:$missing" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
