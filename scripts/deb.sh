#!/bin/sh
# deb.sh OUTDIR: the Debian packages of this tree (make deb), from packaging/:
#   OUTDIR/dnsbatch_VERSION_ARCH.deb         the program, its man pages, bash completion, examples
#   OUTDIR/libdnsbatchN_VERSION_ARCH.deb     the shared library libdnsbatch.so.N (Debian policy 8.1: a
#                                            library package is named by its soname, so that two ABIs
#                                            can be installed side by side)
#   OUTDIR/libdnsbatch-dev_VERSION_ARCH.deb  the headers, libdnsbatch.so, libdnsbatch.a, dnsbatch.pc
# The program links libdnsbatch.a (as build/dnsbatch does), so dnsbatch does not need libdnsbatchN.
# Depends of the program and the library: dpkg-shlibdeps, from the libraries they link. Of the -dev
# package: its library, and the -dev packages that hold the .pc files dnsbatch.pc requires.
#
# Reproducible: built in OUTDIR/obj with Debian's flags (dpkg-buildflags: hardening, and
# -ffile-prefix-map so that no build path is in a binary), every file's time SOURCE_DATE_EPOCH (by
# default the date of packaging/changelog's entry), owner root, mode 0644/0755. HELP_JSON is passed
# to make man (see the Makefile).
set -eu
[ $# -eq 1 ] || { echo "usage: $0 OUTDIR" >&2; exit 2; }
out=$1
top=$(pwd)
version=$(sed -n 's/^#define DNSBATCH_VERSION "\(.*\)"/\1/p' include/dnsbatch/version.h)
sover=$(sed -n 's/^SOVERSION = //p' Makefile)
arch=$(dpkg --print-architecture)
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
clversion=$(dpkg-parsechangelog -l packaging/changelog -SVersion)
[ "$clversion" = "$version" ] || {
	echo "$0: packaging/changelog's last entry is $clversion, include/dnsbatch/version.h says $version" >&2; exit 1; }
SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(dpkg-parsechangelog -l packaging/changelog -STimestamp)}
export SOURCE_DATE_EPOCH
case $out in /*) ;; *) out=$top/$out ;; esac

# The build, with Debian's flags (every hardening feature; fixfilepath maps $top to .).
export DEB_BUILD_MAINT_OPTIONS=hardening=+all
cflags="$(dpkg-buildflags --get CFLAGS) $(dpkg-buildflags --get CPPFLAGS)"
cxxflags="$(dpkg-buildflags --get CXXFLAGS) $(dpkg-buildflags --get CPPFLAGS)"
case $cflags in *-ffile-prefix-map=*) ;; *) cflags="$cflags -ffile-prefix-map=$top=."; cxxflags="$cxxflags -ffile-prefix-map=$top=." ;; esac
obj=$out/obj
stage=$out/stage
rm -rf "$stage" "$out"/*.deb
mkdir -p "$stage"
mk() { make --no-print-directory -s BUILD="$obj" OPT= CFLAGS="$cflags" CXXFLAGS="$cxxflags" \
	LDFLAGS="$(dpkg-buildflags --get LDFLAGS)" "$@"; }
mk -j"$(nproc)" all shared >&2
mk install install-doc DESTDIR="$stage/all" PREFIX=/usr LIBDIR=/usr/lib/"$multiarch" >/dev/null

# Split the install into the three packages.
lib=usr/lib/$multiarch
libpkg=libdnsbatch$sover
for p in dnsbatch "$libpkg" libdnsbatch-dev; do mkdir -p "$stage/$p/DEBIAN" "$stage/$p/usr/share/doc/$p"; done
mv "$stage/all/usr/bin" "$stage/dnsbatch/usr/"
mv "$stage/all/usr/share/man" "$stage/all/usr/share/bash-completion" "$stage/dnsbatch/usr/share/"
mv "$stage/all/usr/share/doc/dnsbatch/examples" "$stage/dnsbatch/usr/share/doc/dnsbatch/"
mkdir -p "$stage/$libpkg/$lib" "$stage/libdnsbatch-dev/$lib"
mv "$stage/all/$lib"/libdnsbatch.so.* "$stage/$libpkg/$lib/"
mv "$stage/all/usr/include" "$stage/libdnsbatch-dev/usr/"
mv "$stage/all/$lib"/libdnsbatch.so "$stage/all/$lib"/libdnsbatch.a "$stage/all/$lib/pkgconfig" "$stage/libdnsbatch-dev/$lib/"

# As dh_strip and dh_compress would.
strip --remove-section=.comment --remove-section=.note "$stage/dnsbatch/usr/bin/dnsbatch"
strip --remove-section=.comment --remove-section=.note --strip-unneeded "$stage/$libpkg/$lib/libdnsbatch.so.$version"
strip --strip-debug --enable-deterministic-archives "$stage/libdnsbatch-dev/$lib/libdnsbatch.a"
gzip -9n "$stage/dnsbatch/usr/share/man/man1"/*.1
for p in dnsbatch "$libpkg" libdnsbatch-dev; do
	cp packaging/copyright "$stage/$p/usr/share/doc/$p/copyright"
	gzip -9nc packaging/changelog >"$stage/$p/usr/share/doc/$p/changelog.gz"
done
printf 'libdnsbatch %s %s (>= %s)\n' "$sover" "$libpkg" "$version" >"$stage/$libpkg/DEBIAN/shlibs"
echo "activate-noawait ldconfig" >"$stage/$libpkg/DEBIAN/triggers"

# shlibdeps FILE...: the Depends of what links FILE (dpkg-shlibdeps wants a debian/control beside it).
shlibdeps() {
	mkdir -p "$stage/shlibdeps/debian"
	printf 'Source: dnsbatch\n\nPackage: dnsbatch\nArchitecture: any\n' >"$stage/shlibdeps/debian/control"
	(cd "$stage/shlibdeps" && dpkg-shlibdeps -O "$@" 2>/dev/null) | sed -n 's/^shlibs:Depends=//p'
}
# The -dev packages of the modules dnsbatch.pc requires: the owners of their .pc files.
dev_depends() {
	pc="$stage/libdnsbatch-dev/$lib/pkgconfig/dnsbatch.pc"
	mods=$(sed -n 's/^Requires\(\.private\)\{0,1\}: //p' "$pc")
	for m in $mods; do
		dpkg-query -S "$(pkg-config --variable=pcfiledir "$m")/$m.pc" | sed 's/[:,].*//'
	done | sort -u | tr '\n' ' ' | sed 's/ $//; s/ /, /g'
}
dep_dnsbatch=$(shlibdeps "$stage/dnsbatch/usr/bin/dnsbatch")
dep_lib=$(shlibdeps "$stage/$libpkg/$lib/libdnsbatch.so.$version")
dep_dev="$libpkg (= $version), $(dev_depends)"

# control FILE PACKAGE DEPENDS: the control file of PACKAGE from packaging/FILE
control() {
	size=$(du -sk --apparent-size --exclude=DEBIAN "$stage/$2" | cut -f1)
	sed -e "s/@VERSION@/$version/" -e "s/@ARCH@/$arch/" -e "s/@SOVERSION@/$sover/" -e "s/@SIZE@/$size/" \
		-e "s/@DEPENDS@/$3/" "packaging/$1" >"$stage/$2/DEBIAN/control"
}
control dnsbatch.control dnsbatch "$dep_dnsbatch"
control libdnsbatch.control "$libpkg" "$dep_lib"
control libdnsbatch-dev.control libdnsbatch-dev "$dep_dev"

for p in dnsbatch "$libpkg" libdnsbatch-dev; do
	root=$stage/$p
	(cd "$root" && find . -type f ! -path './DEBIAN/*' | LC_ALL=C sort | sed 's|^\./||' | xargs md5sum) \
		>"$root/DEBIAN/md5sums"
	find "$root" -type d -exec chmod 0755 {} +
	find "$root" -type f -exec chmod go-w,a+r {} +
	find "$root" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +
	dpkg-deb --root-owner-group -Zxz --build "$root" "$out/${p}_${version}_$arch.deb" >/dev/null
	echo "$out/${p}_${version}_$arch.deb"
done
