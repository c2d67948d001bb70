#!/bin/sh
# build-stage-size.sh GIT-REF ROOTFS-TAR DIR: the Dockerfile's build stage, measured without a container
# daemon: the clean Debian 12 root filesystem of scripts/debian-rootfs.sh (Essential packages and apt, as
# debian:bookworm-slim), the source of GIT-REF (git archive) in /src, and in a chroot the stage's
# commands: apt-get install make ca-certificates, then make clean, make deps, make -j, make install.
# Prints the time of those commands and the stage's size (du of the root filesystem, apt lists removed
# as the Dockerfile removes them). To compare before and after a change of make deps:
#   sh scripts/build-stage-size.sh main build/deb-test/bookworm.tar /tmp/stage-before
set -eu
[ $# -eq 3 ] || { echo "usage: $0 GIT-REF ROOTFS-TAR DIR" >&2; exit 2; }
ref=$1 tarball=$2 dir=$3
rm -rf "$dir"
mkdir -p "$dir/root/src"
tar -xf "$tarball" -C "$dir/root"
cp /etc/resolv.conf "$dir/root/etc/resolv.conf"
git archive "$ref" | tar -x -C "$dir/root/src"
start=$(date +%s)
unshare --mount --fork /bin/sh -c 'mount -t proc proc "$1/proc" && exec chroot "$1" /bin/sh -c "$2"' _ "$dir/root" '
	set -e
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq && apt-get install -y -qq --no-install-recommends make ca-certificates >/dev/null
	rm -rf /var/lib/apt/lists/*
	cd /src && make clean >/dev/null && make deps >/dev/null && make -s -j"$(nproc)" >/dev/null &&
	make -s install PREFIX=/usr/local DESTDIR=/out >/dev/null' >"$dir/log" 2>&1 || { tail -n 20 "$dir/log" >&2; exit 1; }
end=$(date +%s)
rm -rf "$dir/root/var/lib/apt/lists"/* "$dir/root/var/cache/apt"/*.bin
echo "$ref: build stage $((end - start)) s, $(du -sxm "$dir/root" | cut -f1) MB ($(chroot "$dir/root" dpkg-query -W | wc -l) packages)"
