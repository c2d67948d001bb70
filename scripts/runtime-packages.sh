#!/bin/sh
# runtime-packages.sh PROGRAM: the Debian packages the container image must install for PROGRAM
# (build/dnsbatch) to run, one a line, sorted, after a comment header. This output is
# scripts/runtime-packages.txt, which the Dockerfile's runtime stage installs and `make image-rootfs`
# unpacks; the Dockerfile's build stage and tests/integration/test_image.sh check that the file still
# equals this output, so a library newly linked cannot be left out of the image. To refresh it:
#   sh scripts/runtime-packages.sh build/dnsbatch > scripts/runtime-packages.txt
#
# Each library PROGRAM names (its DT_NEEDED entries, not what they pull in: apt brings those as the
# packages' own dependencies) is found as the loader finds it (ldd) and traced to the package that
# installed it (dpkg-query -S). Debian 12 has merged /usr: a file dpkg registered under /lib is loaded
# from /usr/lib and the other way round, so both spellings are asked.
#
# Packages PROGRAM needs but does not link are named in DATA_PACKAGES below.
set -eu
# ca-certificates: the trust anchors libcurl reads for the HTTPS providers (Route53, Cloud DNS, PowerDNS).
DATA_PACKAGES="ca-certificates"

[ $# -eq 1 ] || { echo "usage: $0 PROGRAM" >&2; exit 2; }
program=$1
[ -x "$program" ] || { echo "$0: $program: not an executable (run make first)" >&2; exit 2; }
command -v readelf >/dev/null || { echo "$0: readelf not found (apt-get install binutils)" >&2; exit 2; }

needed=$(readelf -d "$program" | sed -n 's/.*(NEEDED).*Shared library: \[\(.*\)\]$/\1/p')
[ -n "$needed" ] || { echo "$0: $program names no shared library (static build?)" >&2; exit 1; }
loaded=$(ldd "$program")
# candidates PATH: the spellings of PATH dpkg may have registered
candidates() {
	real=$(readlink -f "$1")
	printf '%s\n' "$1" "$real" "${real#/usr}" "/usr${1#/usr}"
}
paths=""
for lib in $needed; do
	path=$(printf '%s\n' "$loaded" | awk -v l="$lib" '$1 == l && $2 == "=>" { print $3 }')
	case $path in
	/*) paths="$paths $path" ;;
	*) echo "$0: $program needs $lib, which the loader does not find here" >&2; exit 1 ;;
	esac
done
# One dpkg-query for every spelling of every path (it reads the whole database each time):
# "package:arch: /path" lines, those not found left out.
owners=$(for p in $paths; do candidates "$p"; done | sort -u | xargs dpkg-query -S 2>/dev/null || true)
packages=$DATA_PACKAGES
for path in $paths; do
	pkg=$(candidates "$path" | while read -r c; do
		printf '%s\n' "$owners" | awk -v c="$c" '$NF == c { sub(/[:,].*/, "", $1); print $1; exit }'
	done | head -n 1)
	[ -n "$pkg" ] || { echo "$0: $path belongs to no Debian package" >&2; exit 1; }
	packages="$packages $pkg"
done

echo "# Debian packages of the dnsbatch image's runtime stage (Dockerfile, make image-rootfs)."
echo "# Generated: sh scripts/runtime-packages.sh build/dnsbatch > scripts/runtime-packages.txt"
printf '%s\n' $packages | sort -u
