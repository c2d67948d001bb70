#!/bin/sh
# deps.sh [--package|--test] [PACKAGE...]: install the Debian packages that building needs (make
# deps); with --package also what makes the man pages, the .deb and the tarball (make man, deb,
# dist); with --test also what the tests start or call (make test-deps: the DNS servers, Redis,
# Prometheus, lintian...), plus any named as arguments (make fuzz adds clang). The image's build
# stage runs the first only. As root it runs apt-get; otherwise it prints the one command to run.
set -eu
# What `make` and `make install` need: the compiler and the libraries' headers.
BUILD_PKGS="build-essential pkg-config libcurl4-openssl-dev libjson-c-dev libssl-dev libldns-dev
libmicrohttpd-dev libre2-dev libidn2-dev libxml2-dev libhiredis-dev"
# The man page and completion generator (python3), dpkg-shlibdeps and dpkg-deb, git archive.
PACKAGE_PKGS="python3 dpkg-dev git"
# What the tests need on top: unit tests (cmocka), the servers they start on loopback, the fakes'
# Python, and the tools the scripts call (lintian and groff for the package and man page tests).
TEST_PKGS="libcmocka-dev redis-server bind9 bind9-utils bind9-dnsutils knot pdns-server pdns-backend-sqlite3
sqlite3 prometheus jq curl openssl python3-botocore python3-jsonschema python3-yaml python3-dnspython
ldnsutils bc universal-ctags lintian groff-base mmdebstrap $PACKAGE_PKGS"
PKGS=$BUILD_PKGS
case ${1:-} in
--package) PKGS="$BUILD_PKGS $PACKAGE_PKGS"; shift ;;
--test) PKGS="$BUILD_PKGS $TEST_PKGS"; shift ;;
esac
PKGS="$PKGS $*"
# DEPS_PRINT=1: print the packages, one a line, and install nothing (tests/integration/test_image.sh).
if [ "${DEPS_PRINT:-0}" = 1 ]; then
	printf '%s\n' $PKGS
	exit 0
fi
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
