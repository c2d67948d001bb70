#!/usr/bin/env bash
# test_deb.sh - the Debian packages as a user gets them (make deb):
# - lintian reports no error on dnsbatch, libdnsbatchN and libdnsbatch-dev;
# - into a clean Debian 12 root filesystem (scripts/debian-rootfs.sh: Essential packages and apt),
#   `apt-get install ./dnsbatch_*.deb ./libdnsbatchN_*.deb` installs them with their Depends from
#   Debian's archive, and inside it (chroot, in a mount namespace of its own for /proc):
#   `dnsbatch version` names its libraries, `dnsbatch apply` applies a plan to a zone file,
#   `dnsbatch serve` answers /healthz, the man pages and the completion are where man and bash look,
#   the loader finds libdnsbatch.so.N;
# - `apt-get purge --autoremove` leaves no file behind that was not there before.
# Needs root (chroot, unshare) and Debian's archive (apt-get, first run of debian-rootfs.sh).
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/integration/extdns_client.sh
BUILD=${BUILD:-build}

if [ "$(id -u)" -ne 0 ]; then
	echo "# skip: test_deb.sh needs root to chroot into a Debian root filesystem (running as uid $(id -u))"
	exit 0
fi
if [ "${SANITIZED:-0}" = 1 ]; then
	echo "# skip: the package holds the release build; make test runs this test, not make sanitize"
	exit 0
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/dnsbatch-deb.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
not_ok_with() {
	echo "not ok - $1"
	sed 's/^/#   /' "$2" | tail -n 30
	EXTDNS_FAILED=$((EXTDNS_FAILED + 1))
}

# Before the flag tables print JSON (`dnsbatch help --json`), the man pages come from the fixture.
help_json=
if ! "$BUILD/dnsbatch" help --json 2>/dev/null | jq -e .commands >/dev/null 2>&1; then
	help_json=tests/integration/help_fixture.json
	echo "# $BUILD/dnsbatch help --json prints no flag tables yet: man pages from $help_json"
fi
start=$(date +%s)
if make -s --no-print-directory BUILD="$BUILD" deb ${help_json:+HELP_JSON=$help_json} >"$tmp/deb.log" 2>&1; then
	echo "ok - make deb ($(($(date +%s) - start)) s): $(grep -c '\.deb$' "$tmp/deb.log") packages"
else
	not_ok_with "make deb" "$tmp/deb.log"
	extdns_done
fi
debs=$BUILD/deb
version=$(sed -n 's/^#define DNSBATCH_VERSION "\(.*\)"/\1/p' include/dnsbatch/version.h)
arch=$(dpkg --print-architecture)
libpkg=libdnsbatch$(sed -n 's/^SOVERSION = //p' Makefile)
extdns_check "the packages are named by version and architecture (dnsbatch_${version}_$arch.deb)" \
	test -s "$debs/dnsbatch_${version}_$arch.deb" -a -s "$debs/${libpkg}_${version}_$arch.deb" \
	-a -s "$debs/libdnsbatch-dev_${version}_$arch.deb"
dpkg-deb -f "$debs/dnsbatch_${version}_$arch.deb" Depends >"$tmp/depends"
extdns_check "dnsbatch's Depends name the libraries it links (libcurl4, libldns3, libc6)" \
	grep -q 'libc6 (>= .*libcurl4 (>= .*libldns3' "$tmp/depends"

if lintian --tag-display-limit 0 "$debs"/*_"${version}_$arch".deb >"$tmp/lintian" 2>&1; grep -q '^E:' "$tmp/lintian"; then
	not_ok_with "lintian: no error" "$tmp/lintian"
else
	echo "ok - lintian: no error ($(grep -c '^W:' "$tmp/lintian") warnings)"
fi

# A clean Debian 12 with apt, the packages in /tmp/debs, a zone and a plan in /tmp/work.
if ! sh scripts/debian-rootfs.sh "$BUILD/deb-test/bookworm.tar" >"$tmp/rootfs.log" 2>&1; then
	not_ok_with "a clean Debian 12 root filesystem (scripts/debian-rootfs.sh)" "$tmp/rootfs.log"
	extdns_done
fi
root=$tmp/root
mkdir -p "$root"
tar -xf "$BUILD/deb-test/bookworm.tar" -C "$root"
cp /etc/resolv.conf "$root/etc/resolv.conf"
mkdir -p "$root/tmp/debs" "$root/tmp/work"
cp "$debs/dnsbatch_${version}_$arch.deb" "$debs/${libpkg}_${version}_$arch.deb" "$root/tmp/debs/"
cp examples/zones/example.com.zone "$root/tmp/work/"
printf '{"create":[{"dnsName":"new.example.com","targets":["192.0.2.7"],"recordType":"A"}]}' >"$root/tmp/work/plan.json"
# in_root COMMAND: COMMAND by sh in the root filesystem, /proc mounted in a mount namespace of its own
in_root() {
	unshare --mount --fork /bin/sh -c 'mount -t proc proc "$1/proc" && exec chroot "$1" /bin/sh -c "$2"' _ "$root" "$1"
}
# The file list outside the state apt and dpkg keep, to compare before and after.
files() {
	(cd "$root" && find . -xdev \( -path ./proc -o -path ./tmp -o -path ./var/lib/dpkg -o -path ./var/lib/apt \
		-o -path ./var/cache -o -path ./var/log -o -path ./dev -o -path ./run \) -prune -o -print | LC_ALL=C sort)
}
# The host's package lists (same archive and suites) spare an apt-get update, and the packages
# make image-rootfs fetched (the same libraries) a download; apt checks both, and a failed install
# is tried again after an apt-get update.
cp -a /var/lib/apt/lists/. "$root/var/lib/apt/lists/" 2>/dev/null
rm -f "$root/var/lib/apt/lists/lock"
[ -d "$BUILD/image/debs" ] && cp "$BUILD/image/debs"/*.deb "$root/var/cache/apt/archives/" 2>/dev/null
ls "$root/var/lib/apt/lists" | grep -q '_Packages' || in_root 'apt-get update -qq' >"$tmp/update.log" 2>&1
files >"$tmp/before"
install="cd /tmp/debs && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
	./dnsbatch_*.deb ./${libpkg}_*.deb"
start=$(date +%s)
if in_root "$install" >"$tmp/install.log" 2>&1 ||
	{ in_root 'apt-get update -qq' >"$tmp/update.log" 2>&1 && in_root "$install" >"$tmp/install.log" 2>&1; }; then
	echo "ok - apt-get install ./dnsbatch_*.deb ./${libpkg}_*.deb into a clean Debian 12 ($(($(date +%s) - start)) s," \
		"$(grep -c '^Setting up' "$tmp/install.log") packages set up)"
else
	not_ok_with "apt-get install ./dnsbatch_*.deb into a clean Debian 12" "$tmp/install.log"
	extdns_done
fi

files >"$tmp/installed"
extdns_check "the file list sees what the install added (./usr/bin/dnsbatch)" grep -qx './usr/bin/dnsbatch' "$tmp/installed"
chroot "$root" dnsbatch version >"$tmp/version" 2>&1
if [ "$(head -n 1 "$tmp/version")" = "dnsbatch $version" ] &&
	grep -q '^  libcurl [0-9]' "$tmp/version" && grep -q '^  ldns [0-9]' "$tmp/version"; then
	echo "ok - in the root filesystem: dnsbatch version ($(tr '\n' ' ' <"$tmp/version" | cut -c1-120)...)"
else
	not_ok_with "in the root filesystem: dnsbatch version" "$tmp/version"
fi
chroot "$root" dnsbatch apply --plan /tmp/work/plan.json --provider zonefile \
	--zonefile example.com=/tmp/work/example.com.zone >"$tmp/apply.log" 2>&1
rc=$?
if [ "$rc" -eq 0 ] && grep -Eq '^new\.example\.com\.[[:space:]].*192\.0\.2\.7' "$root/tmp/work/example.com.zone"; then
	echo "ok - in the root filesystem: dnsbatch apply writes the record to the zone file"
else
	echo "exit $rc" >>"$tmp/apply.log"
	not_ok_with "in the root filesystem: dnsbatch apply writes the record to the zone file" "$tmp/apply.log"
fi
cat >"$tmp/in-root" <<EOF
#!/bin/sh
exec chroot "$root" /usr/bin/dnsbatch "\$@"
EOF
chmod +x "$tmp/in-root"
DNSBATCH=$tmp/in-root
if extdns_serve "$tmp/serve.log" --provider memory --memory-zone example.com 2>"$tmp/serve.start"; then
	extdns_check "in the root filesystem: dnsbatch serve answers GET /healthz with 200" extdns_wait_ready 10
	extdns_stop
	extdns_check "... and exits 0 on SIGTERM" [ "$EXTDNS_EXIT" = 0 ]
else
	not_ok_with "in the root filesystem: dnsbatch serve starts" "$tmp/serve.start"
fi
extdns_check "the man pages are installed (dnsbatch.1.gz, dnsbatch-apply.1.gz)" \
	test -s "$root/usr/share/man/man1/dnsbatch.1.gz" -a -s "$root/usr/share/man/man1/dnsbatch-apply.1.gz"
chroot "$root" /bin/bash -c '. /usr/share/bash-completion/completions/dnsbatch &&
	COMP_WORDS=(dnsbatch apply --provider pdns --pdns-s) COMP_CWORD=4 && _dnsbatch && echo "${COMPREPLY[*]}"' \
	>"$tmp/complete" 2>&1
extdns_check "the installed completion offers --pdns-server after --provider pdns" grep -q -- '--pdns-server' "$tmp/complete"
extdns_check "the examples are in /usr/share/doc/dnsbatch/examples" \
	test -s "$root/usr/share/doc/dnsbatch/examples/zones/example.com.zone"
chroot "$root" /sbin/ldconfig -p >"$tmp/ldconfig" 2>&1
extdns_check "$libpkg: the loader knows libdnsbatch.so.${libpkg#libdnsbatch}" grep -q "libdnsbatch.so.${libpkg#libdnsbatch} " "$tmp/ldconfig"

if in_root "DEBIAN_FRONTEND=noninteractive apt-get purge -y -q --autoremove dnsbatch $libpkg" >"$tmp/purge.log" 2>&1; then
	echo "ok - apt-get purge --autoremove dnsbatch $libpkg"
else
	not_ok_with "apt-get purge --autoremove dnsbatch $libpkg" "$tmp/purge.log"
fi
files >"$tmp/after"
if diff "$tmp/before" "$tmp/after" >"$tmp/left"; then
	echo "ok - removing the packages leaves nothing behind ($(wc -l <"$tmp/before") paths, as before the install)"
else
	not_ok_with "removing the packages leaves nothing behind" "$tmp/left"
fi
extdns_done
