#!/bin/sh
# debian-rootfs.sh TARBALL: a clean Debian 12 root filesystem with dpkg and apt (Essential packages and
# apt, nothing else), as a tarball, made once and kept (delete it to make it anew). The package test
# (tests/integration/test_deb.sh) unpacks it and installs the .deb into it with apt-get.
#
# `make image-rootfs` (scripts/image-rootfs.sh) unpacks only the image's runtime packages and has no
# dpkg database, so apt-get cannot install into it; mmdebstrap makes the same kind of tree the way
# debootstrap does (packages unpacked, then configured by dpkg inside it), also without a container
# daemon, from Debian's archive (deb.debian.org, about 50 MB, 2 minutes).
set -eu
[ $# -eq 1 ] || { echo "usage: $0 TARBALL" >&2; exit 2; }
out=$1
[ -s "$out" ] && exit 0
command -v mmdebstrap >/dev/null || sh "$(dirname "$0")/deps.sh" mmdebstrap
mkdir -p "$(dirname "$out")"
echo "debian-rootfs: making $out with mmdebstrap (once)" >&2
mmdebstrap --quiet --variant=apt --mode=root --format=tar bookworm "$out.tmp" \
	"deb http://deb.debian.org/debian bookworm main" \
	"deb http://deb.debian.org/debian bookworm-updates main" \
	"deb http://deb.debian.org/debian-security bookworm-security main" >&2
mv "$out.tmp" "$out"
