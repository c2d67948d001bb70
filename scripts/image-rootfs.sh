#!/bin/sh
# image-rootfs.sh PROGRAM DIR: the root filesystem the Dockerfile's runtime stage describes, made
# without a container daemon (make image-rootfs): the packages of scripts/runtime-packages.txt and
# the packages they depend on, fetched with `apt-get download` into DIR/debs (kept: a rerun fetches
# only what changed) and unpacked into DIR/rootfs (made anew each time), with
# PROGRAM (the installed dnsbatch) at /usr/local/bin/dnsbatch, where the Dockerfile copies it.
#
# Dependencies are Depends and Pre-Depends, followed to the end; of alternatives ("a | b") only the
# first is taken, as apt does when none is installed, and a virtual package gives its first provider.
# Unpacking is `dpkg-deb -x` but for one thing: the archive goes through tar --keep-directory-symlink,
# since plain extraction replaces the merged-/usr link /lib -> usr/lib by a directory (Debian 12 ships
# files under both spellings). No maintainer script runs, so what one would make is made here: the
# merged-/usr links debootstrap creates, and the CA bundle update-ca-certificates writes.
set -eu
[ $# -eq 2 ] || { echo "usage: $0 PROGRAM DIR" >&2; exit 2; }
program=$1 dir=$2
list=$(dirname "$0")/runtime-packages.txt
[ -x "$program" ] || { echo "$0: $program: not an executable" >&2; exit 2; }
packages=$(grep -v '^#' "$list")

# closure PACKAGE...: PACKAGE... and everything they depend on, one a line
closure() {
	todo=$* seen=" "
	while [ -n "$todo" ]; do
		for p in $todo; do seen="$seen$p "; done
		# shellcheck disable=SC2086
		deps=$(apt-cache depends --important $todo | awk '
			/^[^ ]/ { alt = 0; provider = 0; next }
			/^    / { if (provider) { print $1; provider = 0 } next }
			{
				first = !alt; alt = ($1 ~ /^\|/)
				if (!first) next
				if ($2 ~ /^</) provider = 1; else print $2
			}')
		todo=""
		for d in $deps; do
			case "$seen$todo " in *" $d "*) ;; *) todo="$todo $d " ;; esac
		done
		todo=$(echo $todo)
	done
	printf '%s\n' $seen | sort -u
}

mkdir -p "$dir/debs"
# The .deb file names of the closure's candidate versions, worked out again only when the list or
# apt's package lists (apt-get update) changed since: apt-cache takes seconds per level.
names=$dir/debs/files.txt
if [ ! -s "$names" ] || [ -n "$(find /var/lib/apt/lists "$list" -newer "$names" -print -quit)" ]; then
	# shellcheck disable=SC2086
	all=$(closure $packages)
	# shellcheck disable=SC2086
	if ! uris=$(apt-get download --print-uris $all 2>"$dir/debs/apt.err"); then
		# No package lists (an image that removed them after installing): fetch them once.
		echo "image-rootfs: apt-get download --print-uris failed ($(head -n 1 "$dir/debs/apt.err")); apt-get update and again" >&2
		apt-get update -qq >&2 || exit 1
		all=$(closure $packages)
		uris=$(apt-get download --print-uris $all) || { echo "$0: apt-get download --print-uris failed" >&2; exit 1; }
	fi
	printf '%s\n' "$uris" | awk '{ print $2 }' >"$names.tmp"
	mv "$names.tmp" "$names"
fi
files=$(cat "$names")
missing=""
for f in $files; do
	[ -s "$dir/debs/$f" ] || missing="$missing ${f%%_*}"
done
if [ -n "$missing" ]; then
	echo "image-rootfs: downloading$missing" >&2
	# As root, apt's _apt sandbox user may not write DIR/debs; the download is checked by apt's hashes.
	# shellcheck disable=SC2086
	(cd "$dir/debs" && apt-get download -q -o APT::Sandbox::User=root $missing >/dev/null)
fi

root=$dir/rootfs
rm -rf "$root"
mkdir -p "$root/usr/bin" "$root/usr/sbin" "$root/usr/lib" "$root/usr/lib64" "$root/tmp" "$root/etc/ssl/certs"
for d in bin sbin lib lib64; do ln -s "usr/$d" "$root/$d"; done
chmod 1777 "$root/tmp"
for f in $files; do
	dpkg-deb --fsys-tarfile "$dir/debs/$f" | tar -x --keep-directory-symlink -C "$root"
done
cat "$root"/usr/share/ca-certificates/mozilla/*.crt >"$root/etc/ssl/certs/ca-certificates.crt"
mkdir -p "$root/usr/local/bin"
cp "$program" "$root/usr/local/bin/dnsbatch"
echo "image-rootfs: $root: $(echo $files | wc -w) packages, $(du -sh "$root" | cut -f1)" >&2
